// Floor history (spec 2.7 floorChange*): one definition of the floor and the two ways it moves.
// The floor at unix second t is the cheapest VALID standard-sale ask with startTime <= t <= endTime.
// It moves when an order event changes a status (recorded at that moment by the indexer batch, a
// submission or a rollback) and when time alone crosses a listing's startTime or endTime + 1 (no
// event at all): those boundary instants are written too, at the exact second, by the catch-up
// below. Every floor write runs the catch-up first, under one transaction-scoped advisory lock,
// and before the status changes it records (the indexer's batch script starts with it), so a
// boundary is computed with the statuses of its time and a row for "now" is never compared with a
// history that still misses an earlier boundary. Orders created since the previous catch-up are
// left out of the boundaries it writes (a listing submitted now with a startTime in the past does
// not rewrite the past): their effect is the event row their submission records. Both instants
// are the database's clock (created_at, the catch-up's updated_at), so clock skew cannot matter.
import { endedBestBidsSql, recordBestBidsSql } from './best-bid-sql.js';
import { sqlHex, sqlInt, sqlTime } from './sql-literals.js';

/** Serialises floor_history writers (the indexer, submissions on any instance). */
const FLOOR_LOCK_ID = 72_707_373;

function strategiesSql(standardStrategies: readonly string[]): string {
  return standardStrategies.length ? `ARRAY[${standardStrategies.map(sqlHex).join(', ')}]::text[]` : `ARRAY[]::text[]`;
}

/** The floor of collection expression `c` at unix-seconds expression `t` (orders created by `createdBy` when given). */
export function floorAtSql(c: string, t: string, standardStrategies: readonly string[], createdBy?: string): string {
  return `(SELECT MIN(fo.price) FROM orders fo
    WHERE fo.collection_address = ${c} AND fo.is_order_ask AND fo.status = 'VALID'
      AND fo.start_time <= ${t} AND fo.end_time >= ${t} AND fo.strategy = ANY(${strategiesSql(standardStrategies)})${createdBy ? `
      AND (${createdBy} IS NULL OR fo.created_at <= ${createdBy})` : ''})`;
}

export function floorLockSql(): string {
  return `SELECT pg_advisory_xact_lock(${FLOOR_LOCK_ID}, hashtext(current_database()))`;
}

/**
 * Writes the floor at every listing start and end (endTime + 1) in (processed_until, until) where
 * it differs from the floor recorded just before, then moves processed_until to `until` - 1 (an
 * instant equal to `until` is the caller's "now", whose row the event write records; the next
 * catch-up handles it if nothing does). The
 * first run (no row yet) starts from the latest floor_history row, or from `until` on an empty
 * history. Statuses are today's: the catch-up runs every indexer tick and before every floor write,
 * so the instants it handles are seconds old.
 */
export function floorTimeCatchUpSql(untilSeconds: number | bigint, standardStrategies: readonly string[]): string {
  const hi = sqlInt(BigInt(untilSeconds) - 1n);
  const s = strategiesSql(standardStrategies);
  return `WITH clock AS (
  SELECT COALESCE((SELECT processed_until FROM floor_time_cursor WHERE id = 1),
                  (SELECT floor(extract(epoch FROM MAX(at)))::bigint FROM floor_history), ${hi}) AS lo,
         (SELECT updated_at FROM floor_time_cursor WHERE id = 1) AS since
), b AS (
  SELECT DISTINCT x.c, x.t FROM clock, LATERAL (
    SELECT o.collection_address AS c, o.start_time AS t FROM orders o
     WHERE o.is_order_ask AND o.status = 'VALID' AND o.strategy = ANY(${s})
       AND o.start_time > clock.lo AND o.start_time <= ${hi} AND o.end_time >= o.start_time
    UNION ALL
    SELECT o.collection_address, o.end_time + 1 FROM orders o
     WHERE o.is_order_ask AND o.status = 'VALID' AND o.strategy = ANY(${s})
       AND o.end_time >= clock.lo AND o.end_time < ${hi} AND o.end_time >= o.start_time
  ) x
), f AS (
  SELECT b.c, b.t, ${floorAtSql('b.c', 'b.t', standardStrategies, '(SELECT since FROM clock)')} AS floor FROM b
), seq AS (
  SELECT c, t, floor, LAG(floor) OVER (PARTITION BY c ORDER BY t) AS prev, ROW_NUMBER() OVER (PARTITION BY c ORDER BY t) AS rn FROM f
), ins AS (
  INSERT INTO floor_history (collection_address, floor_price, at)
  SELECT seq.c, seq.floor, to_timestamp(seq.t) FROM seq
  LEFT JOIN LATERAL (
    SELECT h.floor_price FROM floor_history h WHERE h.collection_address = seq.c AND h.at <= to_timestamp(seq.t)
    ORDER BY h.at DESC, h.id DESC LIMIT 1
  ) last ON true
  WHERE CASE WHEN seq.rn = 1
    THEN NOT EXISTS (SELECT 1 FROM floor_history h WHERE h.collection_address = seq.c AND h.at <= to_timestamp(seq.t))
         OR last.floor_price IS DISTINCT FROM seq.floor
    ELSE seq.prev IS DISTINCT FROM seq.floor END
)
INSERT INTO floor_time_cursor (id, processed_until, updated_at) VALUES (1, ${hi}, CURRENT_TIMESTAMP)
ON CONFLICT (id) DO UPDATE SET processed_until = GREATEST(floor_time_cursor.processed_until, EXCLUDED.processed_until), updated_at = CURRENT_TIMESTAMP`;
}

/**
 * For every collection in `collections` (a query returning one column `c`), a floor_history row
 * at `now` when the floor differs from the last recorded one (or none is recorded yet), then its
 * best bid (src/db/best-bid-sql.ts): two statements of a script.
 */
export function recordFloorsSql(collections: string, now: Date, standardStrategies: readonly string[]): string {
  return `${floorRowsSql(collections, now, standardStrategies)};\n${recordBestBidsSql(collections, now)}`;
}

function floorRowsSql(collections: string, now: Date, standardStrategies: readonly string[]): string {
  const nowSec = sqlInt(Math.floor(now.getTime() / 1000));
  return `WITH touched AS (${collections}), cur AS (
  SELECT t.c,
    ${floorAtSql('t.c', nowSec, standardStrategies)} AS floor,
    (SELECT f.floor_price FROM floor_history f WHERE f.collection_address = t.c ORDER BY f.at DESC, f.id DESC LIMIT 1) AS last_floor,
    EXISTS (SELECT 1 FROM floor_history f WHERE f.collection_address = t.c) AS has_last
  FROM touched t
)
INSERT INTO floor_history (collection_address, floor_price, at)
SELECT c, floor, ${sqlTime(now)} FROM cur WHERE NOT has_last OR last_floor IS DISTINCT FROM floor`;
}

/** The start of every floor write: the lock and the time-driven changes up to `now` (of best bids too). */
export function floorCatchUpScript(now: Date, standardStrategies: readonly string[]): string[] {
  return [floorLockSql(), floorTimeCatchUpSql(Math.floor(now.getTime() / 1000), standardStrategies), recordBestBidsSql(endedBestBidsSql(now), now)];
}

/** The whole floor write for `collections` at `now`: lock, time catch-up, then the event row. */
export function floorWriteScript(collections: string, now: Date, standardStrategies: readonly string[]): string[] {
  return [...floorCatchUpScript(now, standardStrategies), recordFloorsSql(collections, now, standardStrategies)];
}

/** Several collections, as a `collections` query. */
export function collectionsSql(addresses: readonly string[]): string {
  return `SELECT c FROM unnest(ARRAY[${addresses.map(sqlHex).join(', ')}]::text[]) AS c`;
}

/** One collection, as a `collections` query. */
export function oneCollectionSql(address: string): string {
  return `SELECT ${sqlHex(address)}::text AS c`;
}
