// Rolls the database back to a fork block after a reorg, in one transaction: every effect the
// indexer journaled above it is undone and the cursor moves back, so the replaced blocks can be
// indexed again from the new chain. The fork block is always a batch end (indexed_blocks keeps
// only those), so no batch is ever half undone.
import { ZERO_ADDRESS } from '../../domain/address.js';
import type { BlockRef } from './batch-script.js';
import { DAY_BUCKET_SQL, HOUR_BUCKET_SQL } from '../../db/sale-sql.js';
import { retractMarketEventsAboveSql } from '../../db/market-events-sql.js';
import { sqlHex, sqlInt, sqlName } from '../../db/sql-literals.js';
import { forgetCurrencyHoldingsAboveSql } from './currency-holdings-sql.js';
import { cursorGuardSql, floorCatchUpSql, recordFloorsSql } from './status-sql.js';

export interface UndoScriptInput {
  stream: string;
  expectedCursor: number;
  fork: BlockRef;
  now: Date;
  standardStrategies: readonly string[];
}

export function buildUndoScript(input: UndoScriptInput): string {
  const f = sqlInt(input.fork.number);
  const zero = sqlHex(ZERO_ADDRESS);
  return [
    cursorGuardSql(input.stream, input.expectedCursor),
    floorCatchUpSql(input.now, input.standardStrategies),
    // The event log keeps what happened above the fork and says it was undone.
    retractMarketEventsAboveSql(input.fork.number),

    // Statuses: per order, the status before its earliest change above the fork (the same as
    // replaying the journal backwards).
    `UPDATE orders o SET status = first.old_status, updated_at = CURRENT_TIMESTAMP
FROM (SELECT DISTINCT ON (order_hash) order_hash, old_status FROM order_status_changes
      WHERE block_number > ${f} ORDER BY order_hash, id) first
WHERE o.hash = first.order_hash`,
    recordFloorsSql(`j.block_number > ${f}`, input.now, input.standardStrategies),
    `DELETE FROM order_status_changes WHERE block_number > ${f}`,
    // WETH reads of the replaced blocks (Order.fillability's missing amount) describe a chain that is gone
    forgetCurrencyHoldingsAboveSql(input.fork.number),

    // Sales of fills above the fork (named by their nonce_events row), with their share of the
    // hourly and daily buckets (SalesService.recordSale adds to both).
    `WITH gone AS (
  DELETE FROM sales s USING nonce_events n
  WHERE n.kind = 'EXECUTED' AND n.block_number > ${f} AND s.tx_hash = n.tx_hash AND s.log_index = n.log_index
  RETURNING s.collection_address, s.timestamp, s.price
), hours AS (
  SELECT collection_address, ${HOUR_BUCKET_SQL('timestamp')} AS start, SUM(price) AS volume, COUNT(*)::int AS count FROM gone GROUP BY 1, 2
), days AS (
  SELECT collection_address, ${DAY_BUCKET_SQL('timestamp')} AS start, SUM(price) AS volume, COUNT(*)::int AS count FROM gone GROUP BY 1, 2
), hour_update AS (
  UPDATE sale_buckets b SET volume = b.volume - hours.volume, count = b.count - hours.count
  FROM hours WHERE b.collection_address = hours.collection_address AND b.bucket_start = hours.start
)
UPDATE sale_day_buckets d SET volume = d.volume - days.volume, count = d.count - days.count
FROM days WHERE d.collection_address = days.collection_address AND d.day_start = days.start`,
    `DELETE FROM sale_buckets WHERE count <= 0`,
    `DELETE FROM sale_day_buckets WHERE count <= 0`,

    // Nonces: a dead nonce stays dead only if an event at or below the fork killed it (that
    // earliest event also wrote its reason); the minimum nonce is the highest one left.
    `DELETE FROM dead_nonces d USING nonce_events n
WHERE n.block_number > ${f} AND n.kind IN ('EXECUTED', 'CANCELLED') AND d.signer = n.signer AND d.nonce = n.nonce
  AND NOT EXISTS (SELECT 1 FROM nonce_events m WHERE m.signer = d.signer AND m.nonce = d.nonce
                  AND m.kind IN ('EXECUTED', 'CANCELLED') AND m.block_number <= ${f})`,
    `UPDATE signer_nonce_state s SET updated_at = CURRENT_TIMESTAMP,
  min_nonce = COALESCE((SELECT MAX(m.nonce) FROM nonce_events m WHERE m.signer = s.signer AND m.kind = 'MIN_NONCE' AND m.block_number <= ${f}), 0)
WHERE s.signer IN (SELECT signer FROM nonce_events WHERE kind = 'MIN_NONCE' AND block_number > ${f})`,
    `DELETE FROM nonce_events WHERE block_number > ${f}`,

    // Token balances and supply: the transfers above the fork, reversed.
    `INSERT INTO token_balances (collection_address, token_id, owner, balance, updated_at)
SELECT collection_address, token_id, owner, SUM(delta), CURRENT_TIMESTAMP FROM (
  SELECT collection_address, token_id, from_address AS owner, amount AS delta FROM token_transfers
  WHERE block_number > ${f} AND from_address <> ${zero}
  UNION ALL
  SELECT collection_address, token_id, to_address, -amount FROM token_transfers
  WHERE block_number > ${f} AND to_address <> ${zero}
) d GROUP BY 1, 2, 3
ON CONFLICT (collection_address, token_id, owner)
DO UPDATE SET balance = token_balances.balance + EXCLUDED.balance, updated_at = CURRENT_TIMESTAMP`,
    `DELETE FROM token_balances b USING (SELECT DISTINCT collection_address, token_id FROM token_transfers WHERE block_number > ${f}) t
WHERE b.collection_address = t.collection_address AND b.token_id = t.token_id AND b.balance = 0`,
    `UPDATE collection_supply cs SET updated_at = CURRENT_TIMESTAMP,
  total_supply = cs.total_supply - d.minted,
  count_owners = (SELECT COUNT(DISTINCT b.owner) FROM token_balances b WHERE b.collection_address = cs.collection_address AND b.balance > 0)
FROM (SELECT collection_address,
        SUM(CASE WHEN from_address = ${zero} THEN amount ELSE 0 END) - SUM(CASE WHEN to_address = ${zero} THEN amount ELSE 0 END) AS minted
      FROM token_transfers WHERE block_number > ${f} GROUP BY 1) d
WHERE cs.collection_address = d.collection_address`,
    `DELETE FROM token_transfers WHERE block_number > ${f}`,
    // metadata updates of the replaced blocks: their tokens are read again (the URI they set may be gone)
    `UPDATE token_metadata m SET due_at = CURRENT_TIMESTAMP FROM metadata_update_journal j
      WHERE j.block_number > ${f} AND m.collection_address = j.collection_address AND m.token_id BETWEEN j.from_token_id AND j.to_token_id`,
    `DELETE FROM metadata_update_journal WHERE block_number > ${f}`,

    // Collections first followed above the fork are followed from the fork on (the re-index reads
    // them), so their backfills end at the fork (collection-backfill.ts).
    `UPDATE collections SET indexed_from_block = ${f} + 1 WHERE indexed_from_block > ${f} + 1`,
    `UPDATE collection_backfills SET to_block = ${f}, next_block = LEAST(next_block, ${f} + 1) WHERE to_block > ${f}`,

    `DELETE FROM indexed_blocks WHERE number > ${f}`,
    `UPDATE indexer_cursor SET block_number = ${f}, block_hash = ${sqlHex(input.fork.hash)}, updated_at = CURRENT_TIMESTAMP
WHERE stream = ${sqlName(input.stream)}`,
  ].join(';\n') + ';';
}
