// Query.collections: every collection matching a filter, ranked by a statistic, paged with the
// address of the last collection as cursor, with an exact totalCount. A ranking needs the
// statistic of every matching collection, but only that one statistic (src/services/ranking-keys.ts)
// and only from the rows that can hold it. By a volume or the floor, PostgreSQL ranks and pages in
// one statement and only the page's addresses come back; by name or change (an ICU collation and
// a rounded percentage, both JavaScript's), the keys come back and the ranking is done here.
import { DEFAULT_COLLECTION_NAME } from '../domain/collection-input.js';
import { rankCollections, type CollectionOrder } from '../domain/collection-ranking.js';
import { ServiceError } from '../domain/errors.js';
import { pageOfScan, type PageQuery, type PageRules } from '../domain/page-args.js';
import type { Collection, Prisma } from '../generated/prisma/client.js';
import { clockParams, type AddClockParam } from './clock-param.js';
import { readDb, type ServiceDeps } from './deps.js';
import { createRankingKeys, DAY_MS, rankedPageSql } from './ranking-keys.js';

export interface CollectionFilter {
  type?: 'ERC721' | 'ERC1155' | null;
  isVerified?: boolean | null;
  /** case-insensitive part of the name */
  nameContains?: string | null;
}

export interface CollectionPage {
  collections: Collection[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

export interface RankedPage {
  /** the page's addresses, in the ranking's order */
  addresses: string[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/** Query.collections' page arguments (src/domain/page-args.ts); a cursor is a collection's address, checked against the list. */
export const COLLECTION_PAGE_RULES: PageRules = { max: 150, defaultSize: 20 };

/** A page of the ranking: `after` and `before` are addresses of collections in it (any letter case). */
export type CollectionQuery = PageQuery & {
  filter: CollectionFilter;
  orderBy: CollectionOrder;
};

const unknownCursor = (side: 'after' | 'before', address: string) => new ServiceError('INVALID_CURSOR', `${side}: ${address} is not the address of a collection in this list`);

export function createCollectionDiscoveryService(deps: ServiceDeps) {
  const { prisma } = deps.db;
  const { rankingKeys } = createRankingKeys(deps);

  /**
   * A ranking by a volume or the floor as one SELECT of `total`, `found_after` and
   * `found_before` (each cursor given names a collection of the list) and `addresses` (the page and one more, for the flag of more rows, in
   * scan order: reversed when paging from the end; ranking-keys.ts rankedPageSql), its values
   * added through `add` (`count: false`: total is null, for a page that does not show it); null
   * where JavaScript ranks. The read engine puts it inside the page's
   * own statement (src/read-engine/plan-query.ts); rankInSql runs it alone.
   */
  function rankedPageQuery(q: CollectionQuery, add: (v: unknown) => string, at: AddClockParam, { count = true } = {}): string | null {
    const order = q.orderBy;
    // a name filter is Prisma's case-insensitive contains; NAME and CHANGE_24H rank in JavaScript
    if ((order !== 'VOLUME_24H' && order !== 'VOLUME_7D' && order !== 'FLOOR') || q.filter.nameContains) return null;
    const days = order === 'VOLUME_24H' ? 1 : 7;
    const clock =
      order === 'FLOOR'
        ? [at((now) => Math.floor(now.getTime() / 1000))]
        : [at((now) => new Date(now.getTime() - days * DAY_MS).toISOString()), at((now) => now.toISOString())];
    const where = ['true'];
    if (q.filter.type) where.push(`c.type = ${add(q.filter.type)}::"CollectionType"`);
    if (q.filter.isVerified != null) where.push(`c.is_verified = ${add(q.filter.isVerified)}`);
    const cursors = { after: q.after !== undefined ? add(q.after) : null, before: q.before !== undefined ? add(q.before) : null, fromEnd: q.fromEnd };
    return rankedPageSql(order, clock, where.join(' AND '), add(q.first + 1), cursors, deps.network.strategies.standardSale, count);
  }

  /** A ranking by a volume or the floor, in one statement (ranking-keys.ts); null: not one of those. */
  async function rankInSql(q: CollectionQuery): Promise<RankedPage | null> {
    const params: unknown[] = [];
    const add = (v: unknown) => `$${params.push(v)}`;
    const sql = rankedPageQuery(q, add, clockParams(add, deps.now()));
    if (sql === null) return null;
    const [row] = await readDb(deps).sql.query<{ total: number; found_after: boolean; found_before: boolean; addresses: string[] }>(sql, params);
    if (!row!.found_after) throw unknownCursor('after', q.after!);
    if (!row!.found_before) throw unknownCursor('before', q.before!);
    const { rows: addresses, hasNextPage, hasPreviousPage } = pageOfScan(row!.addresses, q);
    return { addresses, hasNextPage, hasPreviousPage, totalCount: row!.total };
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
    const at = (side: 'after' | 'before') => {
      const cursor = q[side];
      if (cursor === undefined) return null;
      const i = ranked.findIndex((r) => r.address.toLowerCase() === cursor.toLowerCase());
      if (i < 0) throw unknownCursor(side, cursor);
      return i;
    };
    const [after, before] = [at('after'), at('before')];
    // Relay: the cursors bound the list, then the page is its first or last rows
    const start = after === null ? 0 : after + 1;
    const window = ranked.slice(start, Math.max(start, before ?? ranked.length)).map((r) => r.address);
    const scanned = q.fromEnd ? window.slice(-(q.first + 1)).reverse() : window.slice(0, q.first + 1);
    const { rows: addresses, hasNextPage, hasPreviousPage } = pageOfScan(scanned, q);
    return { addresses, hasNextPage, hasPreviousPage, totalCount: ranked.length };
  }

  async function listCollections(q: CollectionQuery): Promise<CollectionPage> {
    const { addresses, hasNextPage, hasPreviousPage, totalCount } = await rankCollectionPage(q);
    const rows = addresses.length ? await prisma.collection.findMany({ where: { address: { in: addresses } } }) : [];
    const byAddress = new Map(rows.map((r) => [r.address, r]));
    return { collections: addresses.flatMap((a) => byAddress.get(a) ?? []), hasNextPage, hasPreviousPage, totalCount };
  }

  return { rankCollectionPage, rankedPageQuery, listCollections, rankInJs };
}
