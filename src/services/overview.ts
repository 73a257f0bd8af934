// The figures on the landing page: how much is in the book and how far the chain indexer got.
import { whereEffectiveStatus } from './order-where.js';
import { nowSeconds, type ServiceDeps } from './deps.js';

export interface MarketplaceOverview {
  collections: number;
  /** orders whose effective status is VALID now (a VALID order past its endTime is EXPIRED) */
  validOrders: number;
  sales: number;
  /** null when no indexer ever ran against this database */
  indexer: { blockNumber: string; updatedAt: Date; secondsBehind: number } | null;
}

export function createOverviewService(deps: ServiceDeps) {
  const { prisma } = deps.db;
  async function overview(): Promise<MarketplaceOverview> {
    const [collections, validOrders, sales, cursor] = await Promise.all([
      prisma.collection.count(),
      prisma.order.count({ where: whereEffectiveStatus('VALID', nowSeconds(deps)) }),
      prisma.sale.count(),
      prisma.indexerCursor.findFirst({ where: { chainId: deps.network.chainId }, orderBy: { updatedAt: 'desc' } }),
    ]);
    const indexer = cursor
      ? {
          blockNumber: cursor.blockNumber.toString(),
          updatedAt: cursor.updatedAt,
          secondsBehind: Math.max(0, Math.round((deps.now().getTime() - cursor.updatedAt.getTime()) / 1000)),
        }
      : null;
    return { collections, validOrders, sales, indexer };
  }
  return { overview };
}
