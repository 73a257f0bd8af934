// Query.collections: every collection matching a filter, ranked by a statistic, paged with the
// address of the last collection as cursor, with an exact totalCount. Ranking by a rolling
// statistic needs the statistic of every matching collection: statsFor computes them for the
// whole set in two SQL statements (from the rollups), then the ranking is done here.
import { DEFAULT_COLLECTION_NAME } from '../domain/collection-input.js';
import { compareCollections, type CollectionOrder } from '../domain/collection-ranking.js';
import { ServiceError } from '../domain/errors.js';
import type { Collection, Prisma } from '../generated/prisma/client.js';
import type { ServiceDeps } from './deps.js';
import type { StatsService } from './stats.js';

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

export function createCollectionDiscoveryService(deps: ServiceDeps, stats: StatsService) {
  const { prisma } = deps.db;

  async function listCollections(q: { filter: CollectionFilter; orderBy: CollectionOrder; first: number; after?: string | null }): Promise<CollectionPage> {
    const where: Prisma.CollectionWhereInput = {};
    if (q.filter.type) where.type = q.filter.type;
    if (q.filter.isVerified != null) where.isVerified = q.filter.isVerified;
    if (q.filter.nameContains) where.name = { contains: q.filter.nameContains, mode: 'insensitive' };
    const all = await prisma.collection.findMany({ where, orderBy: { address: 'asc' } });
    const statsList = q.orderBy === 'NAME' ? [] : await stats.statsFor(all.map((c) => c.address));
    const ranked = all.map((c, i) => {
      const s = statsList[i];
      return {
        row: c,
        address: c.address,
        name: c.name ?? DEFAULT_COLLECTION_NAME,
        volume24h: s?.volume24h ?? '0',
        volume7d: s?.volume7d ?? '0',
        floorPrice: s?.floorPrice ?? null,
        change24h: s?.change24h ?? null,
      };
    });
    ranked.sort(compareCollections(q.orderBy));
    let start = 0;
    if (q.after) {
      const i = ranked.findIndex((r) => r.address.toLowerCase() === q.after!.toLowerCase());
      if (i < 0) throw new ServiceError('INVALID_CURSOR', `after: ${q.after} is not the address of a collection in this list`);
      start = i + 1;
    }
    const page = ranked.slice(start, start + q.first);
    return { collections: page.map((r) => r.row), hasNextPage: start + q.first < ranked.length, totalCount: ranked.length };
  }

  return { listCollections };
}
