// Query.collections: every collection matching a filter, ranked by a statistic, paged with the
// address of the last collection as cursor, with an exact totalCount. A ranking needs the
// statistic of every matching collection, but only that one statistic (src/services/ranking-keys.ts)
// and only from the rows that can hold it. By a volume or the floor, PostgreSQL ranks and pages in
// one statement and only the page's addresses come back; by name or change (an ICU collation and
// a rounded percentage, both JavaScript's), the keys come back and the ranking is done here.
import { DEFAULT_COLLECTION_NAME } from '../domain/collection-input.js';
import { rankCollections, type CollectionOrder } from '../domain/collection-ranking.js';
import { ServiceError } from '../domain/errors.js';
import type { Collection, Prisma } from '../generated/prisma/client.js';
import { readDb, type ServiceDeps } from './deps.js';
import { createRankingKeys, DAY_MS, rankedPageSql, windowParams } from './ranking-keys.js';

export interface CollectionFilter {
  type?: 'ERC721' | 'ERC1155' | null;
  isVerified?: boolean | null;
  /** case-insensitive part of the name */
  nameContains?: string | null;
}

export interface CollectionPage {
  collections: Collection[];
  hasNextPage: boolean;
  totalCount: number;
}

export interface RankedPage {
  addresses: string[];
  hasNextPage: boolean;
  totalCount: number;
}

export interface CollectionQuery {
  filter: CollectionFilter;
  orderBy: CollectionOrder;
  first: number;
  after?: string | null;
}

export function createCollectionDiscoveryService(deps: ServiceDeps) {
  const { prisma } = deps.db;
  const { rankingKeys } = createRankingKeys(deps);

  /**
   * A ranking by a volume or the floor as one SELECT of `total`, `found` (the cursor names a
   * collection of the list) and `addresses` (the page and one more, for hasNextPage), its values
   * added through `add` (`count: false`: total is null, for a page that does not show it); null
   * where JavaScript ranks. The read engine puts it inside the page's
   * own statement (src/read-engine/plan-query.ts); rankInSql runs it alone.
   */
  function rankedPageQuery(q: CollectionQuery, add: (v: unknown) => string, now: Date, { count = true } = {}): string | null {
    const order = q.orderBy;
    // a name filter is Prisma's case-insensitive contains; NAME and CHANGE_24H rank in JavaScript
    if ((order !== 'VOLUME_24H' && order !== 'VOLUME_7D' && order !== 'FLOOR') || q.filter.nameContains) return null;
    const nowMs = now.getTime();
    const clock = (order === 'FLOOR' ? [Math.floor(nowMs / 1000)] : windowParams(nowMs - (order === 'VOLUME_24H' ? 1 : 7) * DAY_MS, nowMs)).map(add);
    const where = ['true'];
    if (q.filter.type) where.push(`c.type = ${add(q.filter.type)}::"CollectionType"`);
    if (q.filter.isVerified != null) where.push(`c.is_verified = ${add(q.filter.isVerified)}`);
    return rankedPageSql(order, clock, where.join(' AND '), add(q.first + 1), q.after ? add(q.after) : null, deps.network.strategies.standardSale, count);
  }

  /** A ranking by a volume or the floor, in one statement (ranking-keys.ts); null: not one of those. */
  async function rankInSql(q: CollectionQuery): Promise<RankedPage | null> {
    const params: unknown[] = [];
    const sql = rankedPageQuery(q, (v) => `$${params.push(v)}`, deps.now());
    if (sql === null) return null;
    const [row] = await readDb(deps).sql.query<{ total: number; found: boolean; addresses: string[] }>(sql, params);
    if (!row!.found) throw new ServiceError('INVALID_CURSOR', `after: ${q.after} is not the address of a collection in this list`);
    return { addresses: row!.addresses.slice(0, q.first), hasNextPage: row!.addresses.length > q.first, totalCount: row!.total };
  }

  /** The addresses of one page of the ranked list (the read engine renders the rows itself). */
  async function rankCollectionPage(q: CollectionQuery): Promise<RankedPage> {
    return (await rankInSql(q)) ?? rankInJs(q);
  }

  /** Any ranking, in JavaScript: every matching collection's key, then rankCollections (the reference of rankInSql). */
  async function rankInJs(q: CollectionQuery): Promise<RankedPage> {
    const where: Prisma.CollectionWhereInput = {};
    if (q.filter.type) where.type = q.filter.type;
    if (q.filter.isVerified != null) where.isVerified = q.filter.isVerified;
    if (q.filter.nameContains) where.name = { contains: q.filter.nameContains, mode: 'insensitive' };
    const [matching, keysOf] = await Promise.all([prisma.collection.findMany({ where, select: { address: true, name: true } }), rankingKeys(q.orderBy)]);
    const ranked = rankCollections(
      q.orderBy,
      matching.map((c) => ({ address: c.address, name: c.name ?? DEFAULT_COLLECTION_NAME, ...keysOf(c.address) })),
    );
    let start = 0;
    if (q.after) {
      const i = ranked.findIndex((r) => r.address.toLowerCase() === q.after!.toLowerCase());
      if (i < 0) throw new ServiceError('INVALID_CURSOR', `after: ${q.after} is not the address of a collection in this list`);
      start = i + 1;
    }
    const addresses = ranked.slice(start, start + q.first).map((r) => r.address);
    return { addresses, hasNextPage: start + q.first < ranked.length, totalCount: ranked.length };
  }

  async function listCollections(q: CollectionQuery): Promise<CollectionPage> {
    const { addresses, hasNextPage, totalCount } = await rankCollectionPage(q);
    const rows = addresses.length ? await prisma.collection.findMany({ where: { address: { in: addresses } } }) : [];
    const byAddress = new Map(rows.map((r) => [r.address, r]));
    return { collections: addresses.flatMap((a) => byAddress.get(a) ?? []), hasNextPage, totalCount };
  }

  return { rankCollectionPage, rankedPageQuery, listCollections, rankInJs };
}
