// The lease of one indexer instance: the advisory lock (indexer-lock.ts) while this instance holds
// it, and the queue that runs one batch at a time per instance, whoever asks (the loop, tick,
// backfills). The loop holds the lock across turns; a one-off call (tick, backfill) takes it for
// its own duration when the loop does not hold it.
import type { SqlRunner } from '../../db/sql-runner.js';
import { tryIndexerLock, type IndexerLock } from './indexer-lock.js';

export interface IndexerLease {
  /** Runs `fn` after every call queued before it has settled. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` on the lock's session, taking the lock for the call if not held; null when another instance holds it. */
  withLock<T>(fn: (session: SqlRunner) => Promise<T>): Promise<T | null>;
  /** the lock this instance holds across turns, if any */
  held(): IndexerLock | null;
  /** The lock, or null when another instance holds it; not held until hold(). */
  tryAcquire(): Promise<IndexerLock | null>;
  hold(lock: IndexerLock): void;
  /** Gives the held lock up (a no-op when none is held). */
  drop(): Promise<void>;
}

export function createIndexerLease(sql: SqlRunner): IndexerLease {
  let lock: IndexerLock | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  return {
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      const run = queue.then(fn, fn);
      queue = run.catch(() => undefined);
      return run;
    },
    async withLock<T>(fn: (session: SqlRunner) => Promise<T>): Promise<T | null> {
      if (lock) return fn(lock.session);
      const acquired = await tryIndexerLock(sql);
      if (!acquired) return null;
      lock = acquired;
      try {
        return await fn(acquired.session);
      } finally {
        lock = null;
        await acquired.release();
      }
    },
    held: () => lock,
    tryAcquire: () => tryIndexerLock(sql),
    hold(acquired) {
      lock = acquired;
    },
    async drop() {
      const held = lock;
      lock = null;
      await held?.release();
    },
  };
}
