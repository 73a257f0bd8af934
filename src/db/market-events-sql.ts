// The one statement that keeps the market event log honest after a reorg. Events are written by
// triggers (prisma/migrations/20261127090000_market_events) and never deleted: when the indexer
// rolls back to a fork block, every event of a block above it that no earlier rollback retracted
// gets a RETRACTED row naming it, newest first (the order an undo replays), in the rollback's
// transaction. Deletions that are not undos (the journal pruning of old blocks) retract nothing,
// which is why this lives here and not in a DELETE trigger.
import { sqlInt } from './sql-literals.js';

export function retractMarketEventsAboveSql(forkBlock: number | bigint): string {
  return `INSERT INTO market_events (type, retracts_id, collection_address, token_id, order_hash, from_address, to_address, price, amount,
  old_status, new_status, block_number, tx_hash, log_index)
SELECT 'RETRACTED', e.id, e.collection_address, e.token_id, e.order_hash, e.from_address, e.to_address, e.price, e.amount,
  e.old_status, e.new_status, e.block_number, e.tx_hash, e.log_index
FROM market_events e
WHERE e.block_number > ${sqlInt(forkBlock)} AND e.type <> 'RETRACTED'
  AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = e.id)
ORDER BY e.id DESC`;
}
