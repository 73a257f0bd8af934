// eth_getLogs against providers that cap ranges and fail transiently: ranges are
// split until they fit, other errors retried with backoff, and no block is ever skipped.
import { describe, expect, it } from 'vitest';
import { createLogFetcher, isRangeTooLarge } from '../../src/chain/indexer/log-fetcher.js';

/** A fake node: one log per block, a cap on blocks per call, and a transient failure every `flakyEvery` calls. */
function fakeNode(opts: { maxRange: number; flakyEvery?: number; deadBlock?: number }) {
  let calls = 0;
  const asked: [number, number][] = [];
  return {
    asked,
    async send(method: string, params: unknown[]): Promise<unknown> {
      expect(method).toBe('eth_getLogs');
      const f = params[0] as { fromBlock: string; toBlock: string };
      const from = Number(f.fromBlock);
      const to = Number(f.toBlock);
      calls++;
      if (opts.flakyEvery && calls % opts.flakyEvery === 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      if (opts.deadBlock !== undefined && from <= opts.deadBlock && opts.deadBlock <= to) throw new Error('internal error');
      if (to - from + 1 > opts.maxRange) {
        // the shape ethers gives a JSON-RPC error
        throw Object.assign(new Error('could not coalesce error'), { code: 'UNKNOWN_ERROR', error: { code: -32005, message: 'query returned more than 10000 results' } });
      }
      asked.push([from, to]);
      return Array.from({ length: to - from + 1 }, (_, i) => ({ blockNumber: `0x${(from + i).toString(16)}` }));
    },
  };
}

const blocksOf = (logs: Record<string, unknown>[]) => logs.map((l) => Number(l.blockNumber));
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const noWait = async () => {};

describe('log fetcher', () => {
  it('recognises the refusals of common providers as "too large"', () => {
    for (const message of [
      'query returned more than 10000 results',
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
      'exceed maximum block range: 5000',
      'block range is too wide',
      'eth_getLogs is limited to a 10,000 range',
      'Query timeout exceeded. Consider reducing your block range.',
    ]) {
      expect(isRangeTooLarge({ error: { code: -32000, message } }), message).toBe(true);
    }
    expect(isRangeTooLarge({ error: { code: -32005, message: 'limit exceeded' } })).toBe(true);
    expect(isRangeTooLarge(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(false);
  });

  it('splits a refused range until it fits, keeps block order, and starts later calls from the span that worked', async () => {
    const node = fakeNode({ maxRange: 7 });
    const f = createLogFetcher(node, { sleep: noWait });
    expect(blocksOf(await f.getLogs({ address: '0x', topics: [] }, 100, 199))).toEqual(range(100, 199));
    expect(node.asked.every(([a, b]) => b - a + 1 <= 7)).toBe(true);
    expect(f.stats().splits).toBeGreaterThan(0);
    expect(f.currentSpan()).toBeLessThanOrEqual(8);
    // the next range is cut up front: few refusals
    const splitsBefore = f.stats().splits;
    expect(blocksOf(await f.getLogs({ address: '0x', topics: [] }, 200, 260))).toEqual(range(200, 260));
    expect(f.stats().splits - splitsBefore).toBeLessThan(8);
  });

  it('retries transient errors with backoff and never skips a block', async () => {
    const node = fakeNode({ maxRange: 10, flakyEvery: 3 });
    const waits: number[] = [];
    const f = createLogFetcher(node, { sleep: async (ms) => void waits.push(ms), baseDelayMs: 100 });
    expect(blocksOf(await f.getLogs({ address: '0x', topics: [] }, 0, 99))).toEqual(range(0, 99));
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((ms) => ms >= 100)).toBe(true);
  });

  it('fails rather than skip a block that keeps failing', async () => {
    const node = fakeNode({ maxRange: 100, deadBlock: 42 });
    const waits: number[] = [];
    const f = createLogFetcher(node, { sleep: async (ms) => void waits.push(ms), retries: 2, baseDelayMs: 10 });
    await expect(f.getLogs({ address: '0x', topics: [] }, 0, 99)).rejects.toThrow('internal error');
    // backoff doubles per retry
    expect(waits.slice(0, 2)).toEqual([10, 20]);
  });
});
