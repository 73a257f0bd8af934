// Marketplace-only collection statistics (spec 2.7), for any number of collections in two SQL
// statements (window sums; floor and supply), so Collection.stats on a page of 50 collections
// costs the same number of round trips as on one.
//
// Why the window sums do not grow with sales history: let P(t) be the sum of every sale at or
// before t. A rolling window (lo, hi] is P(hi) - P(lo), and every window edge is one of a dozen
// instants (now, now - D and now - 2D for each window D). P(t) splits at the start of t's UTC day:
//   P(t)    = daily buckets of every day before day(t) + tail(t)
//   tail(t) = hourly buckets from day(t) up to hour(t) + raw sales in [hour(t), t]
// So a read touches one daily row per day with sales (at most 730 inside the 1y window and the
// 1y before it, plus older days for the all-time total), at most 23 hourly rows and one hour of
// raw sales per edge, whether the collection has 10 sales or 100,000. The daily rows are read
// once and grouped into segments between consecutive edge days (width_bucket); P at an edge is
// then a running sum of segments. Everything is exact: NUMERIC in SQL, bigint here. All-time is
// P(now): a sale stamped after now (clocks differ) counts once it is in the past.
// Measured (bench/stats-bench.ts, 1M sales, PostgreSQL 15): a collection with 100,000 sales went
// from 368 ms p50 (every hourly bucket of 2 x 365 days) to 2.3 ms; 50 collections 314 -> 26 ms.
import { averageWei, FLOOR_CHANGE_WINDOWS, percentChange, STATS_WINDOWS, type WindowLabel } from '../domain/stats-math.js';
import { collectionsSql, floorCatchUpScript, floorWriteScript, oneCollectionSql } from '../db/floor-sql.js';
import type { StatementBatch } from '../db/statement-batch.js';
import { readDb, type ServiceDeps } from './deps.js';

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

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// Same bins as the buckets (src/services/sales.ts): UTC hours and days.
const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/**
 * Rows of two kinds per collection: 'day' = daily buckets of segment idx (idx i >= 1 holds the
 * days in [thresholds[i-1], thresholds[i]), idx 0 the days before thresholds[0]), only days
 * before today; 'tail' = tail(edge idx), from hourly buckets and from raw sales (two rows).
 * The tails are LATERAL so each edge is its own index range scan: as a plain join the planner
 * may read every hourly bucket of the collection and filter (measured: 29 ms of 31 ms for a
 * collection with 100,000 sales on PostgreSQL 15).
 */
const WINDOW_SUMS_SQL = `
WITH e(idx, at, day0, hour0) AS (SELECT * FROM unnest($2::int[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[]))
SELECT d.collection_address AS address, 'day' AS kind, width_bucket(d.day_start, $6::timestamptz[]) AS idx,
       SUM(d.volume)::text AS volume, SUM(d.count)::text AS count
  FROM sale_day_buckets d
 WHERE d.collection_address = ANY($1::text[]) AND d.day_start < $7::timestamptz
 GROUP BY 1, 3
UNION ALL
SELECT t.address, 'tail', e.idx, t.volume, t.count
  FROM e CROSS JOIN LATERAL (
    SELECT h.collection_address AS address, SUM(h.volume)::text AS volume, SUM(h.count)::text AS count
      FROM sale_buckets h
     WHERE h.collection_address = ANY($1::text[]) AND h.bucket_start >= e.day0 AND h.bucket_start < e.hour0
     GROUP BY 1) t
UNION ALL
SELECT t.address, 'tail', e.idx, t.volume, t.count
  FROM e CROSS JOIN LATERAL (
    SELECT s.collection_address AS address, SUM(s.price)::text AS volume, COUNT(*)::text AS count
      FROM sales s
     WHERE s.collection_address = ANY($1::text[]) AND s.timestamp >= e.hour0 AND s.timestamp <= e.at
     GROUP BY 1) t`;

type Sums = { volume: bigint; count: bigint };
/** The least time between the starts of two grouped floor writes (recordFloorSoon). */
const FLOOR_WRITE_SPACING_MS = 25;

const ZERO: Sums = { volume: 0n, count: 0n };
const add = (a: Sums, b: Sums): Sums => ({ volume: a.volume + b.volume, count: a.count + b.count });
const sub = (a: Sums, b: Sums): Sums => ({ volume: a.volume - b.volume, count: a.count - b.count });

/** The window edges at `now` and the day thresholds that cut daily buckets into segments. */
function edgePlan(now: Date) {
  const nowMs = now.getTime();
  const at = [...new Set([nowMs, ...STATS_WINDOWS.flatMap((w) => [nowMs - w.seconds * 1000, nowMs - 2 * w.seconds * 1000])])];
  const thresholds = [...new Set(at.map((ms) => floorTo(ms, DAY_MS)))].sort((a, b) => a - b);
  const edges = at.map((ms, idx) => ({ idx, ms, segment: thresholds.indexOf(floorTo(ms, DAY_MS)) }));
  const iso = (ms: number) => new Date(ms).toISOString();
  const params = [
    edges.map((e) => e.idx),
    at.map(iso),
    at.map((ms) => iso(floorTo(ms, DAY_MS))),
    at.map((ms) => iso(floorTo(ms, HOUR_MS))),
    thresholds.map(iso),
    iso(thresholds.at(-1)!),
  ];
  return { edges, segments: thresholds.length, params, indexOf: new Map(at.map((ms, i) => [ms, i])) };
}

type SumRow = { address: string; kind: 'day' | 'tail'; idx: number; volume: string; count: string };

/** P(edge) for every edge of one collection, from its 'day' and 'tail' rows. */
function prefixAtEdges(rows: SumRow[], plan: ReturnType<typeof edgePlan>): Sums[] {
  const segment: Sums[] = Array.from({ length: plan.segments }, () => ZERO);
  const tail: Sums[] = plan.edges.map(() => ZERO);
  for (const r of rows) {
    const v = { volume: BigInt(r.volume), count: BigInt(r.count) };
    if (r.kind === 'day') segment[r.idx] = add(segment[r.idx]!, v);
    else tail[r.idx] = add(tail[r.idx]!, v);
  }
  // before[m] = segments 0..m = every day before thresholds[m], the day the edges of m fall in.
  const before: Sums[] = [];
  let running = ZERO;
  for (const s of segment) before.push((running = add(running, s)));
  return plan.edges.map((e) => add(before[e.segment]!, tail[e.idx]!));
}

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
  /** `runner`: a request's statement batch (both statements are JSON-safe: every sum cast to text). */
  async function statsFor(addresses: readonly string[], runner: StatementBatch = readDb(deps).sql): Promise<(CollectionStats | null)[]> {
    if (!addresses.length) return [];
    const now = deps.now();
    const nowMs = now.getTime();
    const list = [...new Set(addresses)];
    const standard = deps.network.strategies.standardSale;
    const plan = edgePlan(now);
    const [sums, floors] = await Promise.all([
      runner.query<SumRow>(WINDOW_SUMS_SQL, [list, ...plan.params]),
      runner.query<FloorRow>(FLOOR_SUPPLY_SQL, [list, now.toISOString(), Math.floor(nowMs / 1000), standard]),
    ]);
    const rowsBy = new Map<string, SumRow[]>();
    for (const r of sums) {
      const mine = rowsBy.get(r.address);
      if (mine) mine.push(r);
      else rowsBy.set(r.address, [r]);
    }
    const floorsBy = new Map(floors.map((f) => [f.address, f]));
    const edge = (ms: number) => plan.indexOf.get(ms)!;

    return addresses.map((address) => {
      const f = floorsBy.get(address);
      if (!f) return null;
      const p = prefixAtEdges(rowsBy.get(address) ?? [], plan);
      const all = p[edge(nowMs)]!;
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
        const ms = w.seconds * 1000;
        const cur = sub(all, p[edge(nowMs - ms)]!);
        const prev = sub(p[edge(nowMs - ms)]!, p[edge(nowMs - 2 * ms)]!);
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
   * recorded one, after the time-driven changes up to now (src/db/floor-sql.ts). Called after
   * anything that can move the floor (new listing, status change).
   */
  async function recordFloor(collection: string): Promise<void> {
    await sql.exec(floorWriteScript(oneCollectionSql(collection), deps.now(), deps.network.strategies.standardSale).join(';\n') + ';');
  }

  // Group floor writes: every submission waits for its collection's floor to be recorded, but the
  // submissions that arrive while one write runs share the next one (one lock, one catch-up, one
  // statement for all their collections) instead of queueing one by one on the floor lock.
  // Writes start at most every FLOOR_WRITE_SPACING_MS: a write costs PostgreSQL about 2 ms of CPU
  // whatever it carries (the catch-up is planned each time), so under a stream of listings the
  // spacing, not the write's own latency, sets how many there are (bench/submit-sql-cost.ts).
  let pending = new Set<string>();
  let next: Promise<void> | null = null;
  let running: Promise<void> = Promise.resolve();
  let lastStart = -Infinity;
  function recordFloorSoon(collection: string): Promise<void> {
    pending.add(collection);
    if (!next) {
      next = running.then(async () => {
        const wait = lastStart + FLOOR_WRITE_SPACING_MS - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        lastStart = performance.now();
        const batch = [...pending];
        pending = new Set();
        next = null;
        await sql.exec(floorWriteScript(collectionsSql(batch), deps.now(), deps.network.strategies.standardSale).join(';\n') + ';');
      });
      running = next.catch(() => {});
    }
    return next;
  }

  /** Only the time-driven floor changes up to now (a process without an indexer runs it on a timer). */
  async function catchUpTimeFloors(): Promise<void> {
    await sql.exec(floorCatchUpScript(deps.now(), deps.network.strategies.standardSale).join(';\n') + ';');
  }

  return { statsFor, recordFloor, recordFloorSoon, catchUpTimeFloors };
}

export type StatsService = ReturnType<typeof createStatsService>;
