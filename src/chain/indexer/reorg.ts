// Reorg detection and undo. Each batch first checks that the cursor block is still on the chain.
// If it is not, the fork is the highest kept batch end (indexed_blocks) the chain still has;
// every effect above it is rolled back in one transaction (undo-script.ts) and indexing resumes
// from there on the new branch. Orders whose status the undo restores are announced as changes
// marked `reorg`.
import type { SqlRunner } from '../../db/sql-runner.js';
import type { OrderStatusName } from '../../domain/order-status.js';
import type { BlockRef } from './batch-script.js';
import type { IndexerContext } from './indexer-context.js';
import { blockHashAt, type Cursor } from './indexer-cursor.js';
import { IndexerError } from './indexer-errors.js';
import { buildUndoScript } from './undo-script.js';

/** null when the cursor block is still on the chain; else the highest kept batch end that is. */
export async function findFork(ctx: IndexerContext, s: SqlRunner, cursor: Cursor): Promise<BlockRef | null> {
  if (cursor.number < 0 || (await blockHashAt(ctx.provider, cursor.number)) === cursor.hash) return null;
  const kept = await s.query<{ number: string; hash: string }>(
    // the table's column, not the text output column of the same name (which sorts '98' above '199')
    'SELECT number::text AS number, hash FROM indexed_blocks WHERE number < $1 ORDER BY indexed_blocks.number DESC',
    [cursor.number],
  );
  for (const b of kept) {
    const n = Number(b.number);
    if ((await blockHashAt(ctx.provider, n)) === b.hash) return { number: n, hash: b.hash };
  }
  throw new IndexerError(`reorg deeper than the ${kept.length} kept batch ends below block ${cursor.number}; re-index from an earlier start block`);
}

export async function rollBack(ctx: IndexerContext, s: SqlRunner, cursor: Cursor, fork: BlockRef): Promise<void> {
  const { opts, network, stream } = ctx;
  const restored = opts.onEvent
    ? await s.query<{ order_hash: string; old_status: OrderStatusName; current: OrderStatusName; collection_address: string; signer: string; is_order_ask: boolean }>(
        `SELECT DISTINCT ON (j.order_hash) j.order_hash, j.old_status::text AS old_status, o.status::text AS current,
                o.collection_address, o.signer, o.is_order_ask
         FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
         WHERE j.block_number > $1 ORDER BY j.order_hash, j.id`,
        [fork.number],
      )
    : [];
  await s.exec(buildUndoScript({ stream, expectedCursor: cursor.number, fork, now: opts.now(), standardStrategies: network.strategies.standardSale }));
  opts.onCursor?.(fork.number);
  ctx.logger.warn({ forkBlock: fork.number, replacedUpTo: cursor.number }, 'chain reorganisation: rolled back to the fork block');
  ctx.emit({ type: 'reorg', forkBlock: fork.number, replacedUpTo: cursor.number });
  for (const r of restored) {
    if (r.current === r.old_status) continue;
    ctx.emit({
      type: 'orderStatusChanged',
      orderHash: r.order_hash,
      collection: r.collection_address,
      signer: r.signer,
      isOrderAsk: r.is_order_ask,
      oldStatus: r.current,
      newStatus: r.old_status,
      blockNumber: fork.number,
      reorg: true,
    });
  }
}

/** The cursor at the fork after rolling a reorg back; null when the cursor block is still on the chain. */
export async function undoReorg(ctx: IndexerContext, s: SqlRunner, cursor: Cursor): Promise<Cursor | null> {
  const fork = await findFork(ctx, s, cursor);
  if (!fork) return null;
  await rollBack(ctx, s, cursor, fork);
  return { ...fork, chainId: cursor.chainId };
}
