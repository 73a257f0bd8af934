// EXPIRED events: the stored status never holds time (src/domain/order-status.ts reads expiry at
// the market clock), but the activity log and the event stream should say when an order expired.
//
// The exchange refuses an order in any block whose timestamp is past its end time, so an order
// expires at the first such block. Each indexer batch therefore writes, in its own transaction and
// before it moves the cursor, one STATUS_CHANGE row with cause EXPIRED for every order that is
// VALID after the batch's changes and whose end time lies in [timestamp of the cursor's batch
// end, timestamp of this batch's last block). Consecutive batches cover consecutive ranges, so an
// order is considered once; its row is of the batch's last block (no transaction, like the
// statuses re-derived there), and `created_at` is the instant it expired (end time + 1 s).
//
// Why chain time rather than the wall clock: a fill in a block at or before the end time may
// still be ahead of the cursor (confirmations, a lagging indexer); writing EXPIRED before it would
// log an expiry and then a sale the chain accepted. Why after the batch's changes: a fill or a
// cancel in the batch's blocks comes first, and a fill never follows its EXPIRED row.
//
// Reorgs: the rows carry their block, so the rollback retracts those above the fork
// (src/db/market-events-sql.ts), the cursor goes back to a kept batch end whose timestamp is
// stored with it, and the next batch expires the range again. The NOT EXISTS keeps one live
// EXPIRED row per order whatever happens to the bounds (the first batch after the migration,
// which reads the cursor's own timestamp, or a rollback to a batch end stored without one).
import { sqlInt, sqlName } from '../../db/sql-literals.js';

export interface ExpiryInput {
  stream: string;
  /** the batch's last block and its timestamp (unix seconds) */
  block: number;
  timestamp: number;
}

/**
 * The EXPIRED rows of a batch, run before the batch writes its cursor and batch end: the lower
 * bound is read from them. No cursor yet (the first batch): nothing expires before the chain time
 * the indexer starts at.
 */
export function expireOrdersSql(input: ExpiryInput): string {
  const hi = sqlInt(input.timestamp);
  const stream = sqlName(input.stream);
  return `WITH bound AS (
  SELECT COALESCE(
    (SELECT b.block_timestamp FROM indexed_blocks b JOIN indexer_cursor c ON b.number = c.block_number WHERE c.stream = ${stream}),
    (SELECT c.block_timestamp FROM indexer_cursor c WHERE c.stream = ${stream}),
    ${hi}) AS lo
)
INSERT INTO market_events (type, cause, collection_address, token_id, order_hash, from_address, price, amount,
                           old_status, new_status, block_number, created_at)
SELECT 'STATUS_CHANGE', 'EXPIRED', o.collection_address, o.token_id, o.hash, o.signer, o.price, o.amount,
       o.status, 'EXPIRED', ${sqlInt(input.block)}, to_timestamp(o.end_time + 1)
FROM orders o, bound
WHERE o.status = 'VALID' AND o.end_time >= bound.lo AND o.end_time < ${hi} AND o.start_time <= o.end_time
  AND NOT EXISTS (
    SELECT 1 FROM market_events m
    WHERE m.order_hash = o.hash AND m.type = 'STATUS_CHANGE' AND m.cause = 'EXPIRED'
      AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = m.id))
ORDER BY o.end_time, o.id`;
}
