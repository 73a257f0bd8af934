// Marketplace-only collection statistics (spec 2.7), computed for any number of collections in
// two SQL statements. Sales are rolled up into hourly buckets (sale_buckets) as they land; a
// rolling window (now - D, now] reads the whole hours inside it from the buckets and only the
// two partial hours at its edges from raw sales, so the cost does not grow with sales history.
import { averageWei, FLOOR_CHANGE_WINDOWS, percentChange, STATS_WINDOWS, type WindowLabel } from '../domain/stats-math.js';
import type { ServiceDeps } from './deps.js';

export type WindowStats = Record<`volume${WindowLabel}` | `average${WindowLabel}` | `count${WindowLabel}`, string> &
  Record<`change${WindowLabel}`, string | null>;

export type CollectionStats = {
  address: string;
  countOwners: string;
  totalSupply: string;
  /** null when the collection has no VALID standard listing now */
  floorPrice: string | null;
  floorChange24h: string | null;
  floorChange7d: string | null;
  floorChange30d: string | null;
  marketCap: string | null;
  volumeAll: string;
  averageAll: string;
  countAll: string;
} & WindowStats;

/** Sums per (collection, window, part): part 'cur' is (now-D, now], 'prev' is (now-2D, now-D]. */
const WINDOW_SUMS_SQL = `
WITH w(label, secs) AS (VALUES ${STATS_WINDOWS.map((w) => `('${w.label}', ${w.seconds})`).join(', ')}),
r AS (
  SELECT label, 'cur'::text AS part, $2::timestamptz - make_interval(secs => secs) AS lo, $2::timestamptz AS hi FROM w
  UNION ALL
  SELECT label, 'prev'::text, $2::timestamptz - make_interval(secs => 2 * secs), $2::timestamptz - make_interval(secs => secs) FROM w
),
rb AS (
  SELECT label, part, lo, hi,
         date_bin('1 hour', lo, TIMESTAMPTZ '2000-01-01 00:00:00+00') + interval '1 hour' AS flo,
         date_bin('1 hour', hi, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS fhi
  FROM r
),
parts AS (
  SELECT b.collection_address, rb.label, rb.part, b.volume AS v, b.count::bigint AS c
    FROM rb JOIN sale_buckets b ON b.collection_address = ANY($1::text[]) AND b.bucket_start >= rb.flo AND b.bucket_start < rb.fhi
  UNION ALL
  SELECT s.collection_address, rb.label, rb.part, s.price, 1
    FROM rb JOIN sales s ON s.collection_address = ANY($1::text[]) AND s.timestamp > rb.lo AND s.timestamp < rb.flo
  UNION ALL
  SELECT s.collection_address, rb.label, rb.part, s.price, 1
    FROM rb JOIN sales s ON s.collection_address = ANY($1::text[]) AND s.timestamp >= rb.fhi AND s.timestamp <= rb.hi
  UNION ALL
  SELECT b.collection_address, 'all', 'cur', b.volume, b.count::bigint
    FROM sale_buckets b WHERE b.collection_address = ANY($1::text[])
)
SELECT collection_address AS address, label, part, SUM(v)::text AS volume, SUM(c)::text AS count
FROM parts GROUP BY 1, 2, 3`;

/** Per known collection: current floor, floor at each floor-change horizon, supply. */
const FLOOR_SUPPLY_SQL = `
SELECT c.address,
  (SELECT MIN(o.price) FROM orders o
    WHERE o.collection_address = c.address AND o.is_order_ask AND o.status = 'VALID'
      AND o.end_time >= $3 AND o.start_time <= $3 AND o.strategy = ANY($4::text[]))::text AS floor,
  ${FLOOR_CHANGE_WINDOWS.map(
    (w) => `(SELECT f.floor_price FROM floor_history f
    WHERE f.collection_address = c.address AND f.at <= $2::timestamptz - make_interval(secs => ${w.seconds})
    ORDER BY f.at DESC, f.id DESC LIMIT 1)::text AS floor_${w.label}`,
  ).join(',\n  ')},
  cs.total_supply::text AS total_supply, cs.count_owners AS count_owners
FROM collections c LEFT JOIN collection_supply cs ON cs.collection_address = c.address
WHERE c.address = ANY($1::text[])`;

type SumRow = { address: string; label: string; part: string; volume: string; count: string };
type FloorRow = {
  address: string;
  floor: string | null;
  floor_24h: string | null;
  floor_7d: string | null;
  floor_30d: string | null;
  total_supply: string | null;
  count_owners: number | null;
};

function floorChange(current: string | null, past: string | null): string | null {
  if (current === null || past === null) return null;
  return percentChange(BigInt(current), BigInt(past));
}

export function createStatsService(deps: ServiceDeps) {
  const { sql } = deps.db;

  /** Stats for each address in order; null for an address that is not a known collection. */
  async function statsFor(addresses: readonly string[]): Promise<(CollectionStats | null)[]> {
    if (!addresses.length) return [];
    const now = deps.now();
    const nowSec = Math.floor(now.getTime() / 1000);
    const list = [...new Set(addresses)];
    const standard = deps.network.strategies.standardSale;
    const [sums, floors] = await Promise.all([
      sql.query<SumRow>(WINDOW_SUMS_SQL, [list, now.toISOString()]),
      sql.query<FloorRow>(FLOOR_SUPPLY_SQL, [list, now.toISOString(), nowSec, standard]),
    ]);
    const sumsBy = new Map<string, { volume: bigint; count: bigint }>();
    for (const r of sums) sumsBy.set(`${r.address}|${r.label}|${r.part}`, { volume: BigInt(r.volume), count: BigInt(r.count) });
    const get = (a: string, label: string, part: string) => sumsBy.get(`${a}|${label}|${part}`) ?? { volume: 0n, count: 0n };
    const floorsBy = new Map(floors.map((f) => [f.address, f]));

    return addresses.map((address) => {
      const f = floorsBy.get(address);
      if (!f) return null;
      const all = get(address, 'all', 'cur');
      const totalSupply = f.total_supply ?? '0';
      const stats: Record<string, string | null> = {
        address,
        countOwners: String(f.count_owners ?? 0),
        totalSupply,
        floorPrice: f.floor,
        floorChange24h: floorChange(f.floor, f.floor_24h),
        floorChange7d: floorChange(f.floor, f.floor_7d),
        floorChange30d: floorChange(f.floor, f.floor_30d),
        marketCap: f.floor === null ? null : (BigInt(f.floor) * BigInt(totalSupply)).toString(),
        volumeAll: all.volume.toString(),
        averageAll: averageWei(all.volume, all.count),
        countAll: all.count.toString(),
      };
      for (const w of STATS_WINDOWS) {
        const cur = get(address, w.label, 'cur');
        const prev = get(address, w.label, 'prev');
        stats[`volume${w.label}`] = cur.volume.toString();
        stats[`average${w.label}`] = averageWei(cur.volume, cur.count);
        stats[`count${w.label}`] = cur.count.toString();
        stats[`change${w.label}`] = percentChange(cur.volume, prev.volume);
      }
      return stats as CollectionStats;
    });
  }

  /**
   * Records the collection's current floor in floor_history when it differs from the last
   * recorded one. Called after anything that can move the floor (new listing, status change).
   */
  async function recordFloor(collection: string): Promise<void> {
    const now = deps.now();
    await sql.query(
      `WITH cur AS (
         SELECT MIN(price) AS floor FROM orders
         WHERE collection_address = $1 AND is_order_ask AND status = 'VALID'
           AND end_time >= $3 AND start_time <= $3 AND strategy = ANY($4::text[])
       ), last AS (
         SELECT floor_price FROM floor_history WHERE collection_address = $1 ORDER BY at DESC, id DESC LIMIT 1
       )
       INSERT INTO floor_history (collection_address, floor_price, at)
       SELECT $1, cur.floor, $2::timestamptz FROM cur
       WHERE NOT EXISTS (SELECT 1 FROM last) OR (SELECT floor_price FROM last) IS DISTINCT FROM cur.floor`,
      [collection, now.toISOString(), Math.floor(now.getTime() / 1000), deps.network.strategies.standardSale],
    );
  }

  return { statsFor, recordFloor };
}

export type StatsService = ReturnType<typeof createStatsService>;
