// The one statistic a ranking of Query.collections needs, for every collection at once, read
// only from the rows that can hold it: the sales rollups inside the window for a volume or a
// change, the live listings for a floor. Computing every field of statsFor for every collection
// instead made a ranking cost grow with the number of collections times their history (all-time
// sums, four floor look-ups each); this grows with the activity inside the window.
//
// The window sums are statsFor's, exactly (src/services/stats.ts explains P(t)): for a window
// (lo, hi], P(hi) - P(lo) = the daily buckets of the days [day(lo), day(hi)) + tail(hi) - tail(lo),
// where tail(t) = hourly buckets [day(t), hour(t)) + raw sales [hour(t), t]. Each part is a range
// on the time column alone (indexes of migration 20261124100000_rollup_time_indexes).
import { floorAtSql } from '../db/floor-sql.js';
import type { CollectionOrder, RankedCollection } from '../domain/collection-ranking.js';
import { percentChange } from '../domain/stats-math.js';
import { readDb, type ServiceDeps } from './deps.js';

const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/** The volume of every collection with sales in the window; `w`: windowParams' six values as placeholders. */
const windowVolumeSql = (w: readonly string[]) => `
SELECT address, SUM(v)::text AS volume FROM (
  SELECT d.collection_address AS address, d.volume AS v FROM sale_day_buckets d
   WHERE d.day_start >= ${w[1]}::timestamptz AND d.day_start < ${w[4]}::timestamptz
  UNION ALL
  SELECT h.collection_address, h.volume FROM sale_buckets h
   WHERE h.bucket_start >= ${w[4]}::timestamptz AND h.bucket_start < ${w[5]}::timestamptz
  UNION ALL
  SELECT s.collection_address, s.price FROM sales s
   WHERE s.timestamp >= ${w[5]}::timestamptz AND s.timestamp <= ${w[3]}::timestamptz
  UNION ALL
  SELECT h.collection_address, -h.volume FROM sale_buckets h
   WHERE h.bucket_start >= ${w[1]}::timestamptz AND h.bucket_start < ${w[2]}::timestamptz
  UNION ALL
  SELECT s.collection_address, -s.price FROM sales s
   WHERE s.timestamp >= ${w[2]}::timestamptz AND s.timestamp <= ${w[0]}::timestamptz
) parts GROUP BY address`;

/**
 * What moves each kept window volume (collection_volume_marks, windows ending at the anchor) to
 * the window (lo, hi] of the same length: ranking_volume_moved (the migration's one definition,
 * which the refresh uses too), from the anchor to hi.
 */
const keptVolumeDeltaSql = (lo: string, hi: string) =>
  `SELECT d.collection_address AS address, d.delta FROM volume_mark_anchor a, ranking_volume_moved(${hi}::timestamptz - ${lo}::timestamptz, a.at, ${hi}::timestamptz) d WHERE a.id = 1`;

/**
 * The volume of the window (lo, hi] (24 h or 168 h long; placeholders of ISO instants) of the
 * collection row `c`, from its kept mark moved to `hi`: statsFor's volume24h or volume7d at that
 * clock. `joins` go after the row's FROM item; `volume` is the NUMERIC value over them.
 */
export function keptWindowVolumeSql(order: 'VOLUME_24H' | 'VOLUME_7D', c: string, lo: string, hi: string): { joins: string; volume: string } {
  return {
    joins: `LEFT JOIN collection_volume_marks vm ON vm.collection_address = ${c}.address
           LEFT JOIN (${keptVolumeDeltaSql(lo, hi)}) v ON v.address = ${c}.address`,
    volume: `COALESCE(vm.${order === 'VOLUME_24H' ? 'volume_24h' : 'volume_7d'}, 0) + COALESCE(v.delta, 0)`,
  };
}

/** statsFor's floorPrice for every collection that has one: the cheapest live VALID standard listing. */
const FLOORS_NOW_SQL = `
SELECT o.collection_address AS address, MIN(o.price)::text AS floor FROM orders o
 WHERE o.is_order_ask AND o.status = 'VALID' AND o.end_time >= $1 AND o.start_time <= $1 AND o.strategy = ANY($2::text[])
 GROUP BY 1`;

/** A ranked page's cursors (addresses, as statement placeholders) and direction (./collection-discovery.ts CollectionQuery). */
export interface RankedPageCursors {
  after: string | null;
  before: string | null;
  /** the page is the last rows before `before`: the scan runs the ranking backwards */
  fromEnd: boolean;
}

/**
 * One page of a ranking by a volume or the floor, ranked in PostgreSQL: the matching collections
 * with their key, the cursors' rows, the page (one row more than asked, for the flag of more rows
 * on the far side: its `addresses` and their `keys`, in scan order, so reversed when `fromEnd`)
 * and the count (`total`, unless `count` is false), in one statement. The order is
 * rankCollections' (src/domain/collection-ranking.ts): volume biggest first (none is 0), floor
 * lowest first and none last, ties on the address by code unit (COLLATE "C", as JavaScript's <).
 * A cursor is the first row, in that order, whose address equals it case-insensitively, as
 * rankInJs's findIndex; `found_after` and `found_before` say whether each cursor given names a row. `clock`: for a volume, the placeholders of the window's two ends (lo, hi], ISO instants;
 * for the floor, of the clock in seconds: each collection's cheapest live standard listing by one
 * probe of the (collection, side, status, price) index, so it costs per collection, not per live
 * listing.
 */
export function rankedPageSql(
  order: 'VOLUME_24H' | 'VOLUME_7D' | 'FLOOR',
  clock: readonly string[],
  where: string,
  first: string,
  cursors: RankedPageCursors,
  standardStrategies: readonly string[],
  count = true,
): string {
  // the kept keys (migration 20261206090000_kept_ranking_keys): a kept floor inside its interval,
  // else the probe; a kept volume corrected by the sales between its anchor and this clock
  const volume = order === 'FLOOR' ? null : keptWindowVolumeSql(order, 'c', clock[0]!, clock[1]!);
  const keys =
    volume === null
      ? `SELECT c.address, CASE WHEN fk.valid_from <= ${clock[0]}::bigint AND ${clock[0]}::bigint < fk.valid_to THEN fk.floor_price
                                ELSE ${floorAtSql('c.address', `${clock[0]}::bigint`, standardStrategies)} END AS k
           FROM collections c LEFT JOIN collection_floor_keys fk ON fk.collection_address = c.address WHERE ${where}`
      : `SELECT c.address, ${volume.volume} AS k FROM collections c
           ${volume.joins}
          WHERE ${where}`;
  const ordering = order === 'FLOOR' ? 'm.k ASC NULLS LAST, m.address COLLATE "C"' : 'm.k DESC, m.address COLLATE "C"';
  const scan = !cursors.fromEnd ? ordering : order === 'FLOOR' ? 'm.k DESC NULLS FIRST, m.address COLLATE "C" DESC' : 'm.k ASC, m.address COLLATE "C" DESC';
  /** the row `x` comes after the row `y` in the ranking */
  const later = (x: string, y: string) =>
    order === 'FLOOR'
      ? `((${y}.k IS NULL AND ${x}.k IS NULL AND ${x}.address COLLATE "C" > ${y}.address COLLATE "C")
          OR (${y}.k IS NOT NULL AND (${x}.k IS NULL OR ${x}.k > ${y}.k OR (${x}.k = ${y}.k AND ${x}.address COLLATE "C" > ${y}.address COLLATE "C"))))`
      : `(${x}.k < ${y}.k OR (${x}.k = ${y}.k AND ${x}.address COLLATE "C" > ${y}.address COLLATE "C"))`;
  const cursorRow = (name: string, address: string) => `, ${name} AS (SELECT m.k, m.address FROM m WHERE lower(m.address) = lower(${address}) ORDER BY ${ordering} LIMIT 1)`;
  const ctes = (cursors.after === null ? '' : cursorRow('cur', cursors.after)) + (cursors.before === null ? '' : cursorRow('bef', cursors.before));
  const from = ['m', ...(cursors.after === null ? [] : ['cur']), ...(cursors.before === null ? [] : ['bef'])].join(', ');
  const bounds = [...(cursors.after === null ? [] : [later('m', 'cur')]), ...(cursors.before === null ? [] : [later('bef', 'm')])];
  const foundAfter = cursors.after === null ? 'true' : 'EXISTS (SELECT 1 FROM cur)';
  const foundBefore = cursors.before === null ? 'true' : 'EXISTS (SELECT 1 FROM bef)';
  // the page's keys beside its addresses: a card's statistic is the key it was ranked by
  // (src/read-engine/plan-query.ts reads it rather than computing it again)
  const pageOrder = scan.replaceAll('m.', 's.');
  const page = `COALESCE(array_agg(s.address ORDER BY ${pageOrder}), '{}') AS addresses,
       COALESCE(array_agg(s.k ORDER BY ${pageOrder}), '{}') AS keys`;
  // no count and no cursor: the keys are read once, so PostgreSQL may fold them into the page's
  // scan rather than keep them (total is null then)
  if (!count && !ctes) return `SELECT NULL::int AS total, true AS found_after, true AS found_before, ${page} FROM (SELECT m.address, m.k FROM (${keys}) m ORDER BY ${scan} LIMIT ${first}) s`;
  return `WITH m AS MATERIALIZED (${keys})${ctes}
SELECT (SELECT count(*) FROM m)::int AS total,
       ${foundAfter} AS found_after, ${foundBefore} AS found_before,
       ${page}
  FROM (SELECT m.address, m.k FROM ${from}${bounds.length ? ` WHERE ${bounds.join(' AND ')}` : ''} ORDER BY ${scan} LIMIT ${first}) s`;
}

/** The ranking fields of one collection; the defaults are statsFor's for a collection with no sales and no listing. */
export type RankingKeys = Pick<RankedCollection, 'volume24h' | 'volume7d' | 'floorPrice' | 'change24h'>;

/** windowVolumeSql's parameters for the window (lo, hi]. */
export function windowParams(loMs: number, hiMs: number): string[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  return [iso(loMs), iso(floorTo(loMs, DAY_MS)), iso(floorTo(loMs, HOUR_MS)), iso(hiMs), iso(floorTo(hiMs, DAY_MS)), iso(floorTo(hiMs, HOUR_MS))];
}

export function createRankingKeys(deps: ServiceDeps) {
  async function windowVolumes(loMs: number, hiMs: number): Promise<Map<string, bigint>> {
    const rows = await readDb(deps).sql.query<{ address: string; volume: string }>(windowVolumeSql(['$1', '$2', '$3', '$4', '$5', '$6']), windowParams(loMs, hiMs));
    return new Map(rows.map((r) => [r.address, BigInt(r.volume)]));
  }

  async function currentFloors(nowMs: number): Promise<Map<string, string>> {
    const rows = await readDb(deps).sql.query<{ address: string; floor: string }>(FLOORS_NOW_SQL, [Math.floor(nowMs / 1000), deps.network.strategies.standardSale]);
    return new Map(rows.map((r) => [r.address, r.floor]));
  }

  /** What `order` ranks on, for any collection (by address); only that field is computed. */
  async function rankingKeys(order: CollectionOrder): Promise<(address: string) => RankingKeys> {
    const none: RankingKeys = { volume24h: '0', volume7d: '0', floorPrice: null, change24h: '0.00' };
    const nowMs = deps.now().getTime();
    switch (order) {
      case 'NAME':
        return () => none;
      case 'VOLUME_24H':
      case 'VOLUME_7D': {
        const field = order === 'VOLUME_24H' ? 'volume24h' : 'volume7d';
        const volumes = await windowVolumes(nowMs - (order === 'VOLUME_24H' ? 1 : 7) * DAY_MS, nowMs);
        return (address) => ({ ...none, [field]: (volumes.get(address) ?? 0n).toString() });
      }
      case 'FLOOR': {
        const floors = await currentFloors(nowMs);
        return (address) => ({ ...none, floorPrice: floors.get(address) ?? null });
      }
      case 'CHANGE_24H': {
        const [current, previous] = await Promise.all([windowVolumes(nowMs - DAY_MS, nowMs), windowVolumes(nowMs - 2 * DAY_MS, nowMs - DAY_MS)]);
        return (address) => ({ ...none, change24h: percentChange(current.get(address) ?? 0n, previous.get(address) ?? 0n) });
      }
    }
  }

  return { rankingKeys };
}
