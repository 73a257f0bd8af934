// Statements shared by the batch and rollback scripts: a journaled status change that never touches
// a terminal order, the floor record after ask statuses moved, and the guard that makes a script
// fail when the cursor is not where the indexer read it (another writer got in between).
import { TERMINAL_STATUSES, type OrderStatusName } from '../../domain/order-status.js';
import { DAY_BUCKET_SQL, HOUR_BUCKET_SQL } from '../../services/sales.js';
import { sqlHex, sqlInt, sqlName, sqlStatus, sqlTime } from './sql-literals.js';

export { DAY_BUCKET_SQL, HOUR_BUCKET_SQL };

const TERMINAL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * Sets `status` on the live orders matching `where` (a condition on the orders table) and journals
 * each change with the status it replaced, at `block` (spec 3: terminal states never come back).
 */
export function setStatusSql(where: string, status: OrderStatusName, block: number | bigint): string {
  return `WITH target AS (
  SELECT hash, status FROM orders
  WHERE (${where}) AND status NOT IN (${TERMINAL}) AND status <> ${sqlStatus(status)}
), upd AS (
  UPDATE orders o SET status = ${sqlStatus(status)}, updated_at = CURRENT_TIMESTAMP FROM target t WHERE o.hash = t.hash
)
INSERT INTO order_status_changes (order_hash, old_status, new_status, block_number)
SELECT hash, status, ${sqlStatus(status)}, ${sqlInt(block)} FROM target`;
}

/**
 * The set form of StatsService.recordFloor (src/services/stats.ts), for every collection with an
 * ask among `journalRows` (a condition on order_status_changes j): a floor_history row when the
 * floor differs from the last recorded one. Same definition of the floor: the cheapest VALID
 * standard-sale ask live at `now`. Duplicated because it must run inside the batch's transaction.
 */
export function recordFloorsSql(journalRows: string, now: Date, standardStrategies: readonly string[]): string {
  const nowSec = sqlInt(Math.floor(now.getTime() / 1000));
  const strategies = standardStrategies.length ? `ARRAY[${standardStrategies.map(sqlHex).join(', ')}]::text[]` : `ARRAY[]::text[]`;
  return `WITH touched AS (
  SELECT DISTINCT o.collection_address AS c FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
  WHERE (${journalRows}) AND o.is_order_ask
), cur AS (
  SELECT t.c,
    (SELECT MIN(price) FROM orders
      WHERE collection_address = t.c AND is_order_ask AND status = 'VALID'
        AND end_time >= ${nowSec} AND start_time <= ${nowSec} AND strategy = ANY(${strategies})) AS floor,
    (SELECT f.floor_price FROM floor_history f WHERE f.collection_address = t.c ORDER BY f.at DESC, f.id DESC LIMIT 1) AS last_floor,
    EXISTS (SELECT 1 FROM floor_history f WHERE f.collection_address = t.c) AS has_last
  FROM touched t
)
INSERT INTO floor_history (collection_address, floor_price, at)
SELECT c, floor, ${sqlTime(now)} FROM cur WHERE NOT has_last OR last_floor IS DISTINCT FROM floor`;
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
