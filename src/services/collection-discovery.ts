// Query.collections: every collection matching a filter, ranked by a statistic, paged with the
// address of the last collection as cursor, with an exact totalCount. A ranking needs the
// statistic of every matching collection, so it is computed for all of them, but only that one
// statistic (src/services/ranking-keys.ts) and only from the rows that can hold it; then the
// matching collections are ranked here by address and name alone, and only the page's rows are
// read whole.
import { DEFAULT_COLLECTION_NAME } from '../domain/collection-input.js';
import { rankCollections, type CollectionOrder } from '../domain/collection-ranking.js';
import { ServiceError } from '../domain/errors.js';
import type { Collection, Prisma } from '../generated/prisma/client.js';
import type { ServiceDeps } from './deps.js';
import { createRankingKeys } from './ranking-keys.js';

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

export interface CollectionQuery {
  filter: CollectionFilter;
  orderBy: CollectionOrder;
  first: number;
  after?: string | null;
}

export function createCollectionDiscoveryService(deps: ServiceDeps) {
  const { prisma } = deps.db;
  const { rankingKeys } = createRankingKeys(deps);

  /** The addresses of one page of the ranked list (the read engine renders the rows itself). */
  async function rankCollectionPage(q: CollectionQuery): Promise<{ addresses: string[]; hasNextPage: boolean; totalCount: number }> {
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

  return { rankCollectionPage, listCollections };
}
