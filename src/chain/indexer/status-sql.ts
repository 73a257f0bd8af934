// Statements shared by the batch and rollback scripts: a journaled status change that respects the
// precedence of src/domain/order-status.ts, the floor record after ask statuses moved, and the guard that makes a script
// fail when the cursor is not where the indexer read it (another writer got in between).
import { TERMINAL_STATUSES, type OrderStatusName } from '../../domain/order-status.js';
import { floorCatchUpScript, recordFloorsSql as recordFloorsOfSql } from '../../db/floor-sql.js';
import { sqlHex, sqlInt, sqlName, sqlStatus } from '../../db/sql-literals.js';

/**
 * The stored statuses `status` may not replace (src/domain/order-status.ts): nothing replaces
 * EXECUTED, only EXECUTED replaces CANCELLED (a fill beats a cancel, whatever came first), and
 * a live status replaces no terminal one (a stored EXPIRED was written by older versions).
 */
function protectedBy(status: OrderStatusName): string {
  const kept = status === 'EXECUTED' ? ['EXECUTED'] : status === 'CANCELLED' ? ['EXECUTED', 'CANCELLED'] : TERMINAL_STATUSES;
  return kept.map((s) => `'${s}'`).join(', ');
}

/** The chain log that caused a change (a fill, a cancel): journaled so the event log can name it. */
export interface StatusCause {
  txHash: string;
  logIndex: number;
}

/**
 * Sets `status` on the orders matching `where` (a condition on the orders table) that it may
 * replace, and journals each change with the status it replaced, at `block` (and the log that
 * caused it, if one did).
 */
export function setStatusSql(where: string, status: OrderStatusName, block: number | bigint, cause?: StatusCause): string {
  return `WITH target AS (
  SELECT hash, status FROM orders
  WHERE (${where}) AND status NOT IN (${protectedBy(status)}) AND status <> ${sqlStatus(status)}
), upd AS (
  UPDATE orders o SET status = ${sqlStatus(status)}, updated_at = CURRENT_TIMESTAMP FROM target t WHERE o.hash = t.hash
)
INSERT INTO order_status_changes (order_hash, old_status, new_status, block_number, tx_hash, log_index)
SELECT hash, status, ${sqlStatus(status)}, ${sqlInt(block)}, ${cause ? sqlHex(cause.txHash) : 'NULL'}, ${cause ? sqlInt(cause.logIndex) : 'NULL'} FROM target`;
}

/**
 * The first statements of a batch or rollback script: the floor lock and the time-driven floor
 * changes up to `now`, computed before the script changes any status (src/db/floor-sql.ts).
 */
export function floorCatchUpSql(now: Date, standardStrategies: readonly string[]): string {
  return floorCatchUpScript(now, standardStrategies).join(';\n');
}

/**
 * The floor and best bid rows at `now` for every collection with an order among `journalRows` (a
 * condition on order_status_changes j), after the script's status changes.
 */
export function recordFloorsSql(journalRows: string, now: Date, standardStrategies: readonly string[]): string {
  const touched = `SELECT DISTINCT o.collection_address AS c FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
  WHERE (${journalRows})`;
  return recordFloorsOfSql(touched, now, standardStrategies);
}

/** Aborts the whole script unless the stream's cursor is at `expected` (null: no cursor yet). */
export function cursorGuardSql(stream: string, expected: number | null): string {
  const value = expected === null ? 'NULL::bigint' : `${sqlInt(expected)}::bigint`;
  return `DO $$ BEGIN
  IF (SELECT block_number FROM indexer_cursor WHERE stream = ${sqlName(stream)}) IS DISTINCT FROM ${value} THEN
    RAISE EXCEPTION 'indexer cursor moved: another indexer wrote this stream';
  END IF;
END $$`;
}
