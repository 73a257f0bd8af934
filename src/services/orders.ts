// Reading orders: one page of a filtered, sorted list with keyset cursors, or one order by hash.
import { ServiceError } from '../domain/errors.js';
import type { OrderQuery } from '../domain/order-query.js';
import type { Order, Prisma } from '../generated/prisma/client.js';
import { nowSeconds, readDb, type ServiceDeps } from './deps.js';
import { orderByFor, whereAfter, whereFilter } from './order-where.js';

/** Extra relations to load with the page (GraphQL passes what the query selects). */
export type OrderSelection = { include?: Prisma.OrderInclude; select?: Prisma.OrderSelect };

export interface OrderPage<T = Order> {
  orders: T[];
  hasNextPage: boolean;
}

export function createOrderService(deps: ServiceDeps) {
  async function listOrders(q: OrderQuery, selection: OrderSelection = {}): Promise<OrderPage> {
    const { prisma } = readDb(deps); // one database for the cursor and the page
    const now = nowSeconds(deps);
    const where: Prisma.OrderWhereInput[] = [whereFilter(q.filter, now)];
    if (q.cursor) {
      const c = await prisma.order.findUnique({ where: { hash: q.cursor }, select: { id: true, price: true, endTime: true } });
      if (!c) throw new ServiceError('INVALID_CURSOR', `pagination cursor ${q.cursor} is not the hash of a known order`);
      where.push(whereAfter(q.sort, c));
    }
    const rows = (await prisma.order.findMany({
      ...selection,
      where: { AND: where },
      orderBy: orderByFor(q.sort),
      take: q.first + 1,
    })) as Order[];
    return { orders: rows.slice(0, q.first), hasNextPage: rows.length > q.first };
  }

  async function getOrder(hash: string, selection: OrderSelection = {}): Promise<Order | null> {
    const db = readDb(deps);
    const found = await db.prisma.order.findUnique({ ...selection, where: { hash } });
    // Read your own write: an order the replica has not replayed yet is asked of the primary.
    if (found || db === deps.db) return found as Order | null;
    return (await deps.db.prisma.order.findUnique({ ...selection, where: { hash } })) as Order | null;
  }

  return { listOrders, getOrder };
}

export type OrderService = ReturnType<typeof createOrderService>;
