// Looking back in time: a collection's sales page by page, and its hourly or daily series of
// volume, sales count and floor, read from the rollups (sale_buckets, sale_day_buckets,
// floor_history) rather than from raw sales.
import { ServiceError } from '../domain/errors.js';
import { pageOfScan, type PageQuery, type PageRules } from '../domain/page-args.js';
import type { Sale } from '../generated/prisma/client.js';
import type { ServiceDeps } from './deps.js';

export const SERIES_RESOLUTIONS = ['HOUR', 'DAY'] as const;
export type SeriesResolution = (typeof SERIES_RESOLUTIONS)[number];
export const MAX_SERIES_POINTS = 1000;
const STEP_MS: Record<SeriesResolution, number> = { HOUR: 3_600_000, DAY: 86_400_000 };

export interface SeriesPoint {
  /** start of the hour or UTC day */
  start: Date;
  volume: string;
  salesCount: number;
  /** the floor at the end of the interval (last recorded floor at or before it); null: no listing */
  floorPrice: string | null;
}

export interface SalePage {
  sales: Sale[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/** Query.sales' page arguments (src/domain/page-args.ts): a cursor is a sale's id. */
export const SALE_PAGE_RULES: PageRules = { max: 150, defaultSize: 20, isCursor: (c) => /^\d{1,19}$/.test(c) };

export function createSaleHistoryService(deps: ServiceDeps) {
  const { prisma } = deps.db;

  /**
   * Newest first; `from` inclusive, `to` exclusive (unix seconds); cursors = sale ids (after: the
   * last sale of the previous page, before: the first of the next), forward or from the end.
   */
  async function listSales(q: PageQuery & { collection?: string | null; from?: number | null; to?: number | null }): Promise<SalePage> {
    const timestamp = {
      ...(q.from != null ? { gte: new Date(q.from * 1000) } : {}),
      ...(q.to != null ? { lt: new Date(q.to * 1000) } : {}),
    };
    const where = { ...(q.collection ? { collectionAddress: q.collection } : {}), ...(q.from != null || q.to != null ? { timestamp } : {}) };
    // the sales after the cursor are older (list order), those before it newer
    const bound = async (side: 'after' | 'before') => {
      const cursor = q[side];
      if (cursor === undefined) return {};
      if (!SALE_PAGE_RULES.isCursor!(cursor)) throw new ServiceError('INVALID_CURSOR', `${side}: ${JSON.stringify(cursor)} is not a sale cursor`);
      const c = await prisma.sale.findUnique({ where: { id: BigInt(cursor) }, select: { id: true, timestamp: true } });
      if (!c) throw new ServiceError('INVALID_CURSOR', `${side}: ${cursor} is not the cursor of a known sale`);
      const beyond = side === 'after' ? 'lt' : 'gt';
      return { OR: [{ timestamp: { [beyond]: c.timestamp } }, { timestamp: c.timestamp, id: { [beyond]: c.id } }] };
    };
    const bounds = await Promise.all([bound('after'), bound('before')]);
    const dir = q.fromEnd ? 'asc' : 'desc';
    const [rows, totalCount] = await Promise.all([
      prisma.sale.findMany({ where: { AND: [where, ...bounds] }, orderBy: [{ timestamp: dir }, { id: dir }], take: q.first + 1 }),
      prisma.sale.count({ where }),
    ]);
    const { rows: sales, hasNextPage, hasPreviousPage } = pageOfScan(rows, q);
    return { sales, hasNextPage, hasPreviousPage, totalCount };
  }

  /** One point per hour or UTC day in [from, to) (both rounded down to the resolution), empty intervals included. */
  async function series(collection: string, resolution: SeriesResolution, fromSeconds: number, toSeconds: number): Promise<SeriesPoint[]> {
    const step = STEP_MS[resolution];
    const from = Math.floor((fromSeconds * 1000) / step) * step;
    const to = Math.floor((toSeconds * 1000) / step) * step;
    if (to <= from) throw new ServiceError('BAD_REQUEST', 'Invalid argument to: must be after from (at least one interval)');
    const count = (to - from) / step;
    if (count > MAX_SERIES_POINTS) {
      throw new ServiceError('BAD_REQUEST', `Invalid argument from/to: ${count} ${resolution === 'HOUR' ? 'hours' : 'days'} asked, at most ${MAX_SERIES_POINTS} points per request`);
    }
    const range = { gte: new Date(from), lt: new Date(to) };
    const [buckets, floorsBefore, floors] = await Promise.all([
      resolution === 'HOUR'
        ? prisma.saleBucket.findMany({ where: { collectionAddress: collection, bucketStart: range }, select: { bucketStart: true, volume: true, count: true } })
            .then((r) => r.map((b) => ({ at: b.bucketStart.getTime(), volume: b.volume.toFixed(), count: b.count })))
        : prisma.saleDayBucket.findMany({ where: { collectionAddress: collection, dayStart: range }, select: { dayStart: true, volume: true, count: true } })
            .then((r) => r.map((b) => ({ at: b.dayStart.getTime(), volume: b.volume.toFixed(), count: b.count }))),
      prisma.floorPoint.findFirst({ where: { collectionAddress: collection, at: { lt: new Date(from) } }, orderBy: [{ at: 'desc' }, { id: 'desc' }] }),
      prisma.floorPoint.findMany({ where: { collectionAddress: collection, at: range }, orderBy: [{ at: 'asc' }, { id: 'asc' }] }),
    ]);
    const byStart = new Map(buckets.map((b) => [b.at, b]));
    const points: SeriesPoint[] = [];
    let floor: string | null = floorsBefore?.floorPrice?.toFixed() ?? null;
    let f = 0;
    for (let at = from; at < to; at += step) {
      // the floor at the end of this interval: the last point recorded before its end
      while (f < floors.length && floors[f]!.at.getTime() < at + step) floor = floors[f++]!.floorPrice?.toFixed() ?? null;
      const b = byStart.get(at);
      points.push({ start: new Date(at), volume: b?.volume ?? '0', salesCount: b?.count ?? 0, floorPrice: floor });
    }
    return points;
  }

  return { listSales, series };
}
