// The write batcher: a lone write leaves at once; what arrives while batches are in flight leaves
// together when a slot frees; never more batches in flight than allowed, never more items in one
// than allowed; an Error for one item fails only that item.
import { describe, expect, it } from 'vitest';
import { createWriteBatcher } from '../../src/db/write-batcher.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('write batcher', () => {
  it('sends a lone write at once, and the writes that arrive meanwhile as one batch when a slot frees', async () => {
    const batches: number[][] = [];
    const gates: ReturnType<typeof deferred>[] = [];
    let inFlight = 0;
    let maxSeen = 0;
    const b = createWriteBatcher<number, number>(
      async (items) => {
        batches.push([...items]);
        inFlight++;
        maxSeen = Math.max(maxSeen, inFlight);
        const gate = deferred();
        gates.push(gate);
        await gate.promise;
        inFlight--;
        return items.map((x) => x * 10);
      },
      { maxInFlight: 1, maxBatch: 3 },
    );
    const first = b.add(1);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4, 5].map((x) => b.add(x));
    await new Promise((r) => setTimeout(r, 5));
    expect(batches).toHaveLength(1); // the slot is taken: they wait
    gates[0]!.resolve();
    expect(await first).toBe(10);
    while (gates.length < 2) await new Promise((r) => setTimeout(r, 1));
    expect(batches[1]).toEqual([2, 3, 4]); // maxBatch
    gates[1]!.resolve();
    while (gates.length < 3) await new Promise((r) => setTimeout(r, 1));
    expect(batches[2]).toEqual([5]);
    gates[2]!.resolve();
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
    expect(maxSeen).toBe(1);
  });

  it('keeps up to maxInFlight batches in flight', async () => {
    let inFlight = 0;
    let maxSeen = 0;
    const b = createWriteBatcher<number, number>(
      async (items) => {
        inFlight++;
        maxSeen = Math.max(maxSeen, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return [...items];
      },
      { maxInFlight: 2, maxBatch: 1 },
    );
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map((x) => b.add(x)))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(maxSeen).toBe(2);
  });

  it('fails only the item whose result is an Error, and a whole failed batch fails its items only', async () => {
    let calls = 0;
    const b = createWriteBatcher<number, number>(
      async (items) => {
        calls++;
        if (items.includes(99)) throw new Error('batch down');
        return items.map((x) => (x < 0 ? new Error(`bad ${x}`) : x));
      },
      { maxInFlight: 1, maxBatch: 10 },
    );
    const r = await Promise.allSettled([b.add(1), b.add(-2), b.add(3)]);
    expect(r.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await expect(b.add(99)).rejects.toThrow('batch down');
    expect(await b.add(4)).toBe(4); // the batcher goes on after a failed batch
    expect(calls).toBeGreaterThanOrEqual(3);
  });
});
