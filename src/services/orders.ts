// Reading orders: one page of a filtered, sorted list with keyset cursors, or one order by hash.
// listOrderPage is the read path every request takes (one SQL statement, ./order-page-sql.ts);
// listOrders is the Prisma implementation it replaced, kept as the reference the fast path is
// tested against (test/services/order-read-paths.test.ts).
import type { TraitCondition } from '../domain/token-filter.js';
import { ServiceError } from '../domain/errors.js';
import type { OrderQuery } from '../domain/order-query.js';
import type { Order, Prisma } from '../generated/prisma/client.js';
import type { StatementBatch } from '../db/statement-batch.js';
import { nowSeconds, readDb, type ServiceDeps } from './deps.js';
import { orderCountStatement, orderPageStatement, type OrderReadPlan } from './order-page-sql.js';
import { orderByFor, whereAfter, whereFilter } from './order-where.js';

/** Extra relations to load with the page (GraphQL passes what the query selects). */
export type OrderSelection = { include?: Prisma.OrderInclude; select?: Prisma.OrderSelect };

export interface OrderPage<T = Order> {
  orders: T[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** orders matching the filter (all pages); only when the plan asks for it */
  totalCount?: number;
}

/** An order row as the SQL path reads it: only the planned columns, uint256 values as strings. */
export type OrderRow = Record<string, unknown> & { hash: string; collection?: Record<string, unknown> };

export function createOrderService(deps: ServiceDeps) {
  const { prisma, sql } = deps.db;

  /**
   * One page in one SQL statement (a second one only when the page is empty and a cursor was
   * given, to tell "no more orders" from "unknown cursor"). Relay's algorithm: `after`/`before`
   * bound the list, then the first or (fromEnd) the last `first` orders of it. With
   * `plan.count` the COUNT is queued in the same tick, so a statement batch sends both as one.
   */
  async function listOrderPage(q: OrderQuery, plan: OrderReadPlan, runner: StatementBatch = readDb(deps).sql): Promise<OrderPage<OrderRow>> {
    const now = nowSeconds(deps);
    const st = orderPageStatement(q, plan, now);
    const counted = plan.count ? orderCountStatement(q, now) : null;
    const [rows, count] = await Promise.all([
      runner.query<Record<string, unknown>>(st.text, st.values),
      counted ? runner.query<{ n: string }>(counted.text, counted.values) : null,
    ]);
    if (rows.length === 0 && (q.cursor || q.before)) await assertCursorsExist(q);
    const more = rows.length > q.first;
    if (more) rows.pop();
    if (st.reversed) rows.reverse();
    const orders = rows.map((r) => toOrderRow(r, plan));
    const total = count ? { totalCount: Number(count[0]!.n) } : {};
    return q.fromEnd
      ? { orders, hasPreviousPage: more, hasNextPage: q.before !== undefined, ...total }
      : { orders, hasNextPage: more, hasPreviousPage: q.cursor !== undefined, ...total };
  }

  /** Orders matching the filter (totalCount when the plan did not ask for it with the page). */
  async function countOrders(q: OrderQuery, runner: StatementBatch = readDb(deps).sql): Promise<number> {
    const st = orderCountStatement(q, nowSeconds(deps));
    const [row] = await runner.query<{ n: string }>(st.text, st.values);
    return Number(row!.n);
  }

  async function assertCursorsExist(q: OrderQuery) {
    const wanted = [q.cursor, q.before].filter((h): h is string => h !== undefined);
    const found = await sql.query<{ hash: string }>('SELECT hash FROM orders WHERE hash = ANY($1::char(66)[])', [wanted]);
    const known = new Set(found.map((f) => f.hash));
    for (const h of wanted) {
      if (!known.has(h)) throw new ServiceError('INVALID_CURSOR', `pagination cursor ${h} is not the hash of a known order`);
    }
  }

  /** The Prisma path (forward only): the reference the SQL path is compared with. */
  async function listOrders(q: OrderQuery, selection: OrderSelection = {}): Promise<OrderPage> {
    if (q.fromEnd || q.before) throw new ServiceError('BAD_REQUEST', 'the reference read path pages forward only');
    const now = nowSeconds(deps);
    const where: Prisma.OrderWhereInput[] = [whereFilter(q.filter, now)];
    if (q.filter.attributes) where.push(await whereTokensCarry(q.filter.attributes, q.filter.collection));
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
    return { orders: rows.slice(0, q.first), hasNextPage: rows.length > q.first, hasPreviousPage: q.cursor !== undefined };
  }

  /** The tokens carrying every trait condition, found first: the reference's own way, not the SQL path's probe. */
  async function whereTokensCarry(conditions: readonly TraitCondition[], collection?: string): Promise<Prisma.OrderWhereInput> {
    const found = await Promise.all(
      conditions.map((c) =>
        prisma.tokenAttribute.findMany({
          where: { traitType: c.traitType, value: { in: [...c.values] }, ...(collection ? { collectionAddress: collection } : {}) },
          select: { collectionAddress: true, tokenId: true },
        }),
      ),
    );
    const key = (r: { collectionAddress: string; tokenId: { toFixed(): string } }) => `${r.collectionAddress}:${r.tokenId.toFixed()}`;
    const sets = found.map((rows) => new Set(rows.map(key)));
    const tokens = (found[0] ?? []).filter((r) => sets.every((set) => set.has(key(r)))).map((r) => ({ collectionAddress: r.collectionAddress, tokenId: r.tokenId.toFixed() }));
    return tokens.length ? { OR: tokens } : { id: { lt: 0n } };
  }

  async function getOrder(hash: string, selection: OrderSelection = {}): Promise<Order | null> {
    const db = readDb(deps);
    const found = await db.prisma.order.findUnique({ ...selection, where: { hash } });
    // Read your own write: an order the replica has not replayed yet is asked of the primary.
    if (found || db === deps.db) return found as Order | null;
    return (await deps.db.prisma.order.findUnique({ ...selection, where: { hash } })) as Order | null;
  }

  return { listOrderPage, countOrders, listOrders, getOrder };
}

/** Times back to bigint (as Prisma gives them; the status rule compares bigints); collection columns nested. */
function toOrderRow(r: Record<string, unknown>, plan: OrderReadPlan): OrderRow {
  if (r.endTime !== undefined) r.endTime = BigInt(r.endTime as string);
  if (r.startTime !== undefined) r.startTime = BigInt(r.startTime as string);
  // a statement batch returns timestamps as JSON strings
  if (typeof r.createdAt === 'string') r.createdAt = new Date(r.createdAt);
  if (typeof r.updatedAt === 'string') r.updatedAt = new Date(r.updatedAt);
  if (!plan.collectionColumns) return r as OrderRow;
  const o: Record<string, unknown> = {};
  for (const { key } of plan.orderColumns) o[key] = r[key];
  const c: Record<string, unknown> = {};
  for (const { key } of plan.collectionColumns) c[key] = r[`c.${key}`];
  o.collection = c;
  return o as OrderRow;
}

export type OrderService = ReturnType<typeof createOrderService>;
