// The market clock: the later of the wall clock and the latest indexed block time.
import { describe, expect, it } from 'vitest';
import { createMarketClock } from '../../src/services/market-clock.js';

describe('market clock', () => {
  it('is the wall clock until a later block is seen, then the block time; never moves back for an older block', () => {
    let wall = new Date('2026-06-01T12:00:00.000Z');
    const clock = createMarketClock({ wall: () => wall });
    expect(clock.now()).toEqual(wall);
    const ahead = wall.getTime() / 1000 + 90;
    clock.observeBlockTime(ahead);
    expect(clock.now().getTime()).toBe(ahead * 1000);
    clock.observeBlockTime(ahead - 500);
    expect(clock.latestBlockSeconds()).toBe(ahead);
    wall = new Date(wall.getTime() + 120_000);
    expect(clock.now()).toEqual(wall);
  });

  it('refreshes the block time from the database in the background, at most once per interval', async () => {
    const wall = new Date('2026-06-01T12:00:00.000Z');
    let reads = 0;
    let stored: number | null = null;
    const clock = createMarketClock({
      wall: () => wall,
      refreshMs: 60_000,
      readLatestBlockSeconds: async () => {
        reads++;
        return stored;
      },
    });
    await clock.refresh();
    expect(clock.latestBlockSeconds()).toBeNull();
    stored = wall.getTime() / 1000 + 30;
    // inside the interval: no read, the cached (absent) block time is used
    expect(clock.now()).toEqual(wall);
    expect(reads).toBe(1);
    await clock.refresh();
    expect(clock.now().getTime()).toBe(stored * 1000);
    expect(reads).toBe(2);
  });

  it('keeps serving when the read fails', async () => {
    const errors: unknown[] = [];
    const wall = new Date('2026-06-01T12:00:00.000Z');
    const clock = createMarketClock({ wall: () => wall, readLatestBlockSeconds: async () => Promise.reject(new Error('db down')), onError: (e) => errors.push(e) });
    await clock.refresh();
    expect(clock.now()).toEqual(wall);
    expect(errors).toHaveLength(1);
  });
});
