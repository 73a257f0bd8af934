// The host limiter on its own: concurrency, spacing, pauses that fail fast or are waited out.
import { describe, expect, it } from 'vitest';
import { HostLimiter, HostPausedError } from '../../../src/services/metadata-fetch/host-limiter.js';
import { retryDelayMs } from '../../../src/services/metadata-fetch/fetch-with-retry.js';
import { sleep } from './local-servers.js';

describe('HostLimiter', () => {
  it('runs at most `concurrency` jobs per host, started `intervalMs` apart; other hosts are not held', async () => {
    const limiter = new HostLimiter({ concurrency: 2, intervalMs: 50 });
    let inFlight = 0;
    let most = 0;
    const starts: number[] = [];
    const job = async () => {
      starts.push(performance.now());
      most = Math.max(most, ++inFlight);
      await sleep(120);
      inFlight--;
    };
    const t0 = performance.now();
    const jobs = Promise.all([1, 2, 3, 4].map(() => limiter.run('a.example', job)));
    const other = limiter.run('b.example', async () => performance.now() - t0);
    await jobs;
    expect(most).toBe(2);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(40);
    expect(await other).toBeLessThan(60); // held behind host a it would wait 120 ms
  });

  it('fails jobs at once while a host is paused, and lets them through after', async () => {
    const limiter = new HostLimiter({ concurrency: 1, intervalMs: 0, waitUnderMs: 50 });
    limiter.pause('a.example', 200, 429);
    const started = performance.now();
    const err = await limiter.run('a.example', async () => 'ran').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostPausedError);
    expect((err as HostPausedError).status).toBe(429);
    expect(performance.now() - started).toBeLessThan(50);
    await sleep(160); // 40 ms of pause left: waited out
    expect(await limiter.run('a.example', async () => 'ran')).toBe('ran');
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('caps a pause at maxPauseMs', () => {
    const limiter = new HostLimiter({ concurrency: 1, intervalMs: 0, maxPauseMs: 1000 });
    limiter.pause('a.example', 3_600_000);
    expect(limiter.pausedForMs('a.example')).toBeLessThanOrEqual(1000);
  });
});

describe('retryDelayMs', () => {
  const opts = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  it('draws from 0 up to a doubling ceiling, capped, and never under Retry-After', () => {
    expect(retryDelayMs(1, undefined, opts, 0.999)).toBe(99);
    expect(retryDelayMs(3, undefined, opts, 0.5)).toBe(200);
    expect(retryDelayMs(10, undefined, opts, 0.999)).toBe(999);
    expect(retryDelayMs(1, undefined, opts, 0)).toBe(0);
    expect(retryDelayMs(1, 700, opts, 0.5)).toBe(700);
  });
});
