// After a batch commits: its journaled status changes (order_status_changes, in journal order)
// and its sales, told to opts.onEvent. Read back from the journal rather than from the batch's
// own list, so listeners see exactly what the transaction wrote (the script applies fills and
// cancels to every order they end in SQL, batch-script.ts).
import type { SqlRunner } from '../../db/sql-runner.js';
import type { OrderStatusName } from '../../domain/order-status.js';
import { saleOf } from './batch-script.js';
import type { FillEvent } from './events.js';
import type { IndexerContext } from './indexer-context.js';

export async function publishBatch(
  ctx: IndexerContext,
  s: SqlRunner,
  batch: { from: number; to: number; fills: readonly FillEvent[]; blockTimes: ReadonlyMap<number, Date> },
): Promise<void> {
  if (!ctx.opts.onEvent) return;
  const changes = await s.query<{ order_hash: string; old_status: OrderStatusName; new_status: OrderStatusName; block_number: string; collection_address: string; signer: string; is_order_ask: boolean }>(
    `SELECT j.order_hash, j.old_status::text AS old_status, j.new_status::text AS new_status, j.block_number::text AS block_number,
            o.collection_address, o.signer, o.is_order_ask
     FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
     WHERE j.block_number BETWEEN $1 AND $2 ORDER BY j.id`,
    [batch.from, batch.to],
  );
  for (const c of changes) {
    ctx.emit({
      type: 'orderStatusChanged',
      orderHash: c.order_hash,
      collection: c.collection_address,
      signer: c.signer,
      isOrderAsk: c.is_order_ask,
      oldStatus: c.old_status,
      newStatus: c.new_status,
      blockNumber: Number(c.block_number),
      reorg: false,
    });
  }
  for (const f of batch.fills) ctx.emit({ type: 'sale', sale: saleOf(f, batch.blockTimes.get(f.blockNumber)!) });
}
