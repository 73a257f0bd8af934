// Order (spec 2.2) and the order-book queries: a Relay connection with the same filters, sorts
// and cursors as GET /api/v1/orders, and one order by hash.
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../context.js';
import type { Order as PrismaOrder } from '../generated/prisma/client.js';
import { badRequest } from '../domain/errors.js';
import { paramsForResponse } from '../domain/order-params.js';
import { ORDER_SORTS, parseOrderConnectionArgs } from '../domain/order-query.js';
import { effectiveStatus, ORDER_STATUSES } from '../domain/order-status.js';
import { toUintString, weiToEther } from '../domain/uint256.js';
import { orderArgumentsError } from './argument-problems.js';
import { builder } from './builder.js';
import { orderReadPlan } from './order-read-plan.js';
import { TraitFilterInput } from './trait.js';

export const OrderStatusEnum = builder.enumType('OrderStatus', {
  description: 'Spec 3. A live order past its endTime reads as EXPIRED.',
  values: ORDER_STATUSES,
});

export const OrderSortEnum = builder.enumType('OrderSort', {
  description: 'NEWEST: most recently created first. EXPIRING_SOON: earliest endTime first. Ties break on creation order.',
  values: ORDER_SORTS,
});

const PriceRange = builder.inputType('PriceRangeInput', {
  fields: (t) => ({
    min: t.field({ type: 'Uint256', required: false }),
    max: t.field({ type: 'Uint256', required: false }),
  }),
});

export const OrderFilterInput = builder.inputType('OrderFilterInput', {
  fields: (t) => ({
    hash: t.field({ type: 'Hash', required: false, description: 'only the order with this hash' }),
    isOrderAsk: t.boolean({ required: false }),
    collection: t.field({ type: 'Address', required: false }),
    tokenId: t.field({ type: 'Uint256', required: false }),
    signer: t.field({ type: 'Address', required: false }),
    strategy: t.field({ type: 'Address', required: false }),
    currency: t.field({ type: 'Address', required: false }),
    nonce: t.field({ type: 'Uint256', required: false }),
    price: t.field({ type: PriceRange, required: false }),
    startTime: t.field({ type: 'UnixTime', required: false, description: 'orders whose startTime is at or after this' }),
    endTime: t.field({ type: 'UnixTime', required: false, description: 'orders whose endTime is at or before this' }),
    status: t.field({ type: [OrderStatusEnum], required: false, description: 'any of these statuses' }),
    attributes: t.field({
      type: [TraitFilterInput],
      required: false,
      description: 'orders on tokens carrying these traits (OR within a trait type, AND across; collection offers never match); needs the collection or the signer',
    }),
  }),
});

export const Order = builder.prismaObject('Order', {
  fields: (t) => ({
    hash: t.expose('hash', { type: 'Hash' }),
    collectionAddress: t.expose('collectionAddress', { type: 'Address' }),
    tokenId: t.field({
      type: 'Uint256',
      nullable: true,
      description: 'null for a collection offer',
      resolve: (o) => (o.tokenId === null ? null : toUintString(o.tokenId)),
    }),
    isOrderAsk: t.exposeBoolean('isOrderAsk'),
    signer: t.expose('signer', { type: 'Address' }),
    strategy: t.expose('strategy', { type: 'Address' }),
    currencyAddress: t.expose('currencyAddress', { type: 'Address' }),
    amount: t.field({ type: 'Uint256', resolve: (o) => toUintString(o.amount) }),
    price: t.field({ type: 'Uint256', description: 'in wei', resolve: (o) => toUintString(o.price) }),
    priceEth: t.string({ description: 'price in ETH, exact decimal for display ("1.25"); compute with price (wei)', resolve: (o) => weiToEther(o.price) }),
    nonce: t.field({ type: 'Uint256', resolve: (o) => toUintString(o.nonce) }),
    startTime: t.expose('startTime', { type: 'UnixTime' }),
    endTime: t.expose('endTime', { type: 'UnixTime' }),
    minPercentageToAsk: t.exposeInt('minPercentageToAsk'),
    params: t.string({ description: 'ABI-encoded params as signed; "" when none', resolve: (o) => paramsForResponse(o.params) }),
    status: t.field({
      type: OrderStatusEnum,
      resolve: (o, _args, ctx) => effectiveStatus(o.status, o.endTime, BigInt(Math.floor(ctx.now().getTime() / 1000))),
    }),
    signature: t.exposeString('signature'),
    v: t.exposeInt('v'),
    r: t.exposeString('r'),
    s: t.exposeString('s'),
    // collection: in ./collection.ts (it needs the Collection type; read with the page or batched)
  }),
});

/** A resolved page; totalCount is read with the page when planned, else on demand. */
type OrderConnectionShape = { totalCount: number | (() => Promise<number>) };

export const OrderConnection = builder.connectionObject(
  {
    type: Order,
    name: 'OrderConnection',
    description: 'A page of orders',
    fields: (t) => ({
      totalCount: t.int({
        description: 'orders matching the filter, all pages (exact; cursors and page size do not change it). One COUNT, read with the page, only when selected.',
        resolve: (c) => {
          const { totalCount } = c as unknown as OrderConnectionShape;
          return typeof totalCount === 'function' ? totalCount() : totalCount;
        },
      }),
    }),
  },
  { name: 'OrderEdge', description: 'An order and its cursor (the order hash)' },
);

type ConnectionArgs = {
  filter?: Record<string, unknown> | null;
  sort?: string | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
};

/** Shared by Query.orders and Collection.orders (which pins the collection). */
export async function resolveOrderConnection(args: ConnectionArgs, ctx: Context, info: GraphQLResolveInfo, collection?: string) {
  const parsed = parseOrderConnectionArgs(args, collection);
  if (!parsed.ok) throw orderArgumentsError(parsed.problems);
  const page = await ctx.services.orders.listOrderPage(parsed.value, orderReadPlan(info), ctx.sql);
  // A row holds only the planned columns: exactly what the selected Order resolvers read.
  const edges = page.orders.map((o) => ({ cursor: o.hash, node: o as unknown as PrismaOrder }));
  return {
    totalCount: page.totalCount ?? (() => ctx.services.orders.countOrders(parsed.value, ctx.sql)),
    edges,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

builder.queryFields((t) => ({
  orders: t.connection(
    {
      type: Order,
      description: 'The order book: filter, sort and page with cursors (an order hash): first/after forward, last/before backward.',
      args: {
        filter: t.arg({ type: OrderFilterInput, required: false }),
        sort: t.arg({ type: OrderSortEnum, required: false, defaultValue: 'NEWEST' }),
      },
      complexity: (args) => ({ field: 1, multiplier: Math.min(args.first ?? 20, 150) }),
      resolve: (_root, args, ctx, info) => resolveOrderConnection(args, ctx, info),
    },
    OrderConnection,
  ),
  order: t.prismaField({
    type: 'Order',
    nullable: true,
    args: { hash: t.arg({ type: 'Hash', required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.orders.getOrder(args.hash, query),
  }),
}));
