// Per-collection figures of the order book for discovery: the best VALID offer (top bid) and
// how many tokens are listed, for many collections in one SQL statement each (DataLoaders).
import type { Order } from '../generated/prisma/client.js';
import { nowSeconds, type ServiceDeps } from './deps.js';

export function createCollectionMarketService(deps: ServiceDeps) {
  const { prisma, sql } = deps.db;

  /**
   * The highest-priced VALID offer (token or collection offer) live now, per collection; ties go
   * to the oldest offer (by the numeric id: `id` alone would name the text column of the select
   * list, where '1000' < '999'). Same liveness rule as the floor: started, not ended, status VALID.
   */
  async function topBids(addresses: readonly string[]): Promise<(Order | null)[]> {
    const now = nowSeconds(deps);
    const ids = await sql.query<{ id: string; collection_address: string }>(
      `SELECT DISTINCT ON (collection_address) id::text AS id, collection_address
         FROM orders
        WHERE collection_address = ANY($1::varchar[]) AND is_order_ask = false AND status = 'VALID'
          AND start_time <= $2 AND end_time >= $2
        ORDER BY collection_address, price DESC, orders.id ASC`,
      [[...new Set(addresses)], now.toString()],
    );
    const orders = ids.length ? await prisma.order.findMany({ where: { id: { in: ids.map((r) => BigInt(r.id)) } } }) : [];
    const byCollection = new Map(orders.map((o) => [o.collectionAddress, o]));
    return addresses.map((a) => byCollection.get(a) ?? null);
  }

  /** Distinct tokens with a VALID listing live now, per collection. */
  async function listedCounts(addresses: readonly string[]): Promise<number[]> {
    const now = nowSeconds(deps);
    const rows = await sql.query<{ collection_address: string; n: number }>(
      `SELECT collection_address, count(DISTINCT token_id)::int AS n
         FROM orders
        WHERE collection_address = ANY($1::varchar[]) AND is_order_ask = true AND status = 'VALID'
          AND start_time <= $2 AND end_time >= $2
        GROUP BY collection_address`,
      [[...new Set(addresses)], now.toString()],
    );
    const by = new Map(rows.map((r) => [r.collection_address, Number(r.n)]));
    return addresses.map((a) => by.get(a) ?? 0);
  }

  return { topBids, listedCounts };
}
