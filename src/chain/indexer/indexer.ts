// The chain indexer: follows the exchange, WETH and the known collections in batches of
// blocks up to head - confirmations and keeps every order's status equal to what the chain says
// (spec 3, with the precedence of src/domain/order-status-rules.ts), plus sales, nonces, token
// ownership and supply.
//
// The parts, by job: the lease (indexer-lease.ts: one batch at a time per instance, and only the
// instance holding the advisory lock of indexer-lock.ts writes), reorg detection and undo
// (reorg.ts), the batch pipeline (batch-pipeline.ts: logs, order facts, status changes, one
// transaction with the cursor), and the other work of a turn (turns.ts: settling fresh
// submissions, time-driven floors, collection backfill chunks). This file holds the loop and the
// public API. The cursor lives in the database, so a restarted indexer resumes after the last
// committed batch.
import { indexNextBatch, type BatchResult } from './batch-pipeline.js';
import type { BackfillStep } from './collection-backfill.js';
import { createIndexerContext } from './indexer-context.js';
import { readCursor } from './indexer-cursor.js';
import { ChainMovedError, IndexerError } from './indexer-errors.js';
import { createIndexerLease } from './indexer-lease.js';
import type { IndexerOptions } from './indexer-options.js';
import { backfillChunk, catchUpFloors } from './turns.js';

export type { BatchResult } from './batch-pipeline.js';
export { ChainMovedError, IndexerError } from './indexer-errors.js';
export type { IndexerEvent, IndexerLogger, IndexerOptions } from './indexer-options.js';

export interface BackfillProgress {
  from: number;
  to: number;
  /** last block committed */
  current: number;
  events: number;
  elapsedMs: number;
}

export function createIndexer(opts: IndexerOptions) {
  const ctx = createIndexerContext(opts);
  const { logger, runtime } = ctx;
  const lease = createIndexerLease(opts.db.sql);
  const { exclusive, withLock } = lease;

  let loop: Promise<void> | null = null;
  let stopping = false;
  let wake: (() => void) | null = null;

  /**
   * Runs `collection`'s queued backfill (requestCollectionBackfill) to its end, chunk by chunk,
   * each chunk between live batches; null when another instance holds the lease (it runs the
   * job instead). Waits for the live indexer to follow the collection first (tick() does that).
   */
  async function backfillCollection(collection: string, onProgress?: (step: BackfillStep) => void): Promise<BackfillStep | null> {
    for (;;) {
      const r = await exclusive(() => withLock((s) => backfillChunk(ctx, s, collection)));
      if (r === null) return null;
      onProgress?.(r);
      if (r.state === 'none' || r.state === 'finished') return r;
      if (r.state === 'waiting') {
        const t = await tick();
        if (t === null) return r; // caught up and still not followed: another instance, or no cursor yet
      }
    }
  }

  /** Time-driven floor changes up to now; false when another instance holds the lease. */
  async function recordTimeFloors(): Promise<boolean> {
    return (await exclusive(() => withLock(async (s) => (await catchUpFloors(ctx, s), true)))) ?? false;
  }

  /** Indexes the next batch up to head - confirmations; null when caught up or another instance is active. */
  function tick(): Promise<BatchResult | null> {
    return exclusive(() => withLock((s) => indexNextBatch(ctx, s, opts.startBlock))).then((r) => r ?? null);
  }

  /** Batches until caught up with head - confirmations; null when another instance is active. */
  function runUntilCaughtUp(): Promise<{ batches: number; events: number; cursor: number | null } | null> {
    return exclusive(() =>
      withLock(async (s) => {
        let batches = 0;
        let events = 0;
        for (;;) {
          const r = await indexNextBatch(ctx, s, opts.startBlock);
          if (!r) break;
          batches++;
          events += r.events;
        }
        return { batches, events, cursor: (await readCursor(ctx, s))?.number ?? null };
      }),
    );
  }

  /**
   * Indexes blocks `from`..`to` (capped at head - confirmations). On an empty database the cursor
   * starts at `from`; otherwise the range continues the cursor (blocks already indexed are skipped,
   * and a gap after the cursor is refused: skipping blocks would lose their effects).
   */
  function backfill(from: number, to: number, onProgress?: (p: BackfillProgress) => void): Promise<{ cursor: number; events: number } | null> {
    return exclusive(() =>
      withLock(async (s) => {
        const cursor = await readCursor(ctx, s);
        if (cursor && from > cursor.number + 1) {
          throw new IndexerError(`the database is indexed up to block ${cursor.number}; a backfill must start at or before ${cursor.number + 1}`);
        }
        const started = performance.now();
        let events = 0;
        let current = cursor?.number ?? from - 1;
        while (current < to) {
          const r = await indexNextBatch(ctx, s, from, to);
          if (!r) break;
          events += r.events;
          current = r.to;
          onProgress?.({ from, to, current, events, elapsedMs: performance.now() - started });
        }
        return { cursor: current, events };
      }),
    );
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  }

  /** Follows the chain in the background: stand-by while another instance holds the lock. */
  function start(pollMs = 1000): void {
    if (loop) return;
    stopping = false;
    if (runtime) runtime.running = true;
    loop = (async () => {
      let standby = false;
      while (!stopping) {
        try {
          let lock = lease.held();
          if (!lock) {
            const acquired = await lease.tryAcquire();
            if (!acquired) {
              if (!standby) logger.info({}, 'another indexer is active; standing by');
              standby = true;
              await sleep(pollMs);
              continue;
            }
            if (stopping) {
              await acquired.release();
              break;
            }
            lease.hold(acquired);
            lock = acquired;
            standby = false;
            if (runtime) runtime.holdsLease = true;
            logger.info({}, 'indexer active');
          }
          const session = lock.session;
          const r = await exclusive(() => indexNextBatch(ctx, session, opts.startBlock));
          // One backfill chunk per turn: backfills progress while the live indexer keeps up.
          const b = await exclusive(() => backfillChunk(ctx, session));
          if (b.state === 'progress' || b.state === 'finished') {
            logger.info({ collection: b.job.collection, from: b.from, to: b.to, upTo: b.job.toBlock, transfers: b.transfers, sales: b.sales, finished: b.state === 'finished' }, 'collection backfill');
          }
          if (!r) await exclusive(() => catchUpFloors(ctx, session));
          if (runtime) runtime.lastError = null;
          if (!r && b.state !== 'progress' && !stopping) await sleep(pollMs);
        } catch (err) {
          // The connection may be the problem: give the lock up and start over after a pause.
          logger[err instanceof ChainMovedError ? 'warn' : 'error']({ err }, 'indexer batch failed; retrying');
          if (runtime) {
            runtime.lastError = (err as Error).message ?? String(err);
            runtime.holdsLease = false;
          }
          await lease.drop();
          if (!stopping) await sleep(pollMs);
        }
      }
      if (runtime) {
        runtime.holdsLease = false;
        runtime.running = false;
      }
      await lease.drop();
    })();
  }

  async function stop(): Promise<void> {
    stopping = true;
    wake?.();
    await loop;
    loop = null;
  }

  return { tick, runUntilCaughtUp, backfill, backfillCollection, recordTimeFloors, start, stop };
}

export type Indexer = ReturnType<typeof createIndexer>;
