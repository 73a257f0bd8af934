// Live events over Server-Sent Events (graphql-yoga's built-in transport): order lifecycle and
// sales. Beyond the original API, which had none. `orderEvents` is deprecated for
// `marketEvents` (./market-event-stream.ts), which streams the same order events from the log.
import { filter, pipe } from 'graphql-yoga';
import type { OrderEvent, SaleEvent } from '../events/event-bus.js';
import { matchesOrderEvent, matchesSale } from '../events/filters.js';
import { builder } from './builder.js';
import { OrderStatusEnum } from './order.js';

const OrderEventKind = builder.enumType('OrderEventKind', {
  values: ['CREATED', 'STATUS_CHANGED', 'EXECUTED'] as const,
  description: 'CREATED: accepted by the service. STATUS_CHANGED: the chain changed its status. EXECUTED: filled on chain.',
});

const OrderEventRef = builder.objectRef<OrderEvent>('OrderEvent').implement({
  fields: (t) => ({
    kind: t.field({ type: OrderEventKind, resolve: (e) => e.kind }),
    hash: t.exposeString('hash'),
    collection: t.expose('collection', { type: 'Address' }),
    signer: t.expose('signer', { type: 'Address' }),
    isOrderAsk: t.exposeBoolean('isOrderAsk'),
    oldStatus: t.field({ type: OrderStatusEnum, nullable: true, resolve: (e) => e.oldStatus as never }),
    newStatus: t.field({ type: OrderStatusEnum, resolve: (e) => e.newStatus as never }),
    at: t.exposeString('at', { description: 'ISO time the service saw the change' }),
    blockNumber: t.exposeInt('blockNumber', { nullable: true }),
    order: t.prismaField({
      type: 'Order',
      nullable: true,
      description: 'the order as stored now',
      resolve: (query, e, _args, ctx) => ctx.services.orders.getOrder(e.hash, query),
    }),
  }),
});

const SaleEventRef = builder.objectRef<SaleEvent>('SaleEvent').implement({
  fields: (t) => ({
    collection: t.expose('collection', { type: 'Address' }),
    tokenId: t.expose('tokenId', { type: 'Uint256' }),
    amount: t.expose('amount', { type: 'Uint256' }),
    price: t.expose('price', { type: 'Uint256' }),
    currency: t.expose('currency', { type: 'Address' }),
    buyer: t.expose('buyer', { type: 'Address' }),
    seller: t.expose('seller', { type: 'Address' }),
    orderHash: t.exposeString('orderHash', { nullable: true }),
    txHash: t.exposeString('txHash'),
    logIndex: t.exposeInt('logIndex'),
    blockNumber: t.exposeInt('blockNumber'),
    timestamp: t.exposeString('timestamp', { description: 'block time, ISO' }),
  }),
});

const OrderEventFilterInput = builder.inputType('OrderEventFilter', {
  fields: (t) => ({
    collection: t.field({ type: 'Address', required: false }),
    signer: t.field({ type: 'Address', required: false }),
    hash: t.field({ type: 'Hash', required: false }),
    isOrderAsk: t.boolean({ required: false }),
    kinds: t.field({ type: [OrderEventKind], required: false }),
  }),
});

builder.subscriptionType({});
builder.subscriptionFields((t) => ({
  orderEvents: t.field({
    type: OrderEventRef,
    description: 'Orders created, changing status, executed; all of them or those the filter selects. Best effort: no ids, nothing replayed.',
    // One stream of order events: the log's, which has ids and resumes (docs/api.md#subscriptions).
    deprecationReason:
      'Use marketEvents: the same order events from the market event log (types LIST, OFFER, COLLECTION_OFFER, CANCEL_LIST, CANCEL_OFFER, ' +
      'STATUS_CHANGE, SALE), each with its eventId, resumable with `after` or Last-Event-ID; filter.account is the signer.',
    args: { filter: t.arg({ type: OrderEventFilterInput, required: false }) },
    subscribe: (_root, args, ctx) =>
      pipe(
        ctx.services.deps.events.subscribe('order-events'),
        filter((e: OrderEvent) => matchesOrderEvent(e, args.filter)),
      ),
    resolve: (e) => e,
  }),
  sales: t.field({
    type: SaleEventRef,
    description: 'Sales as the indexer records them; all collections or one.',
    args: { collection: t.arg({ type: 'Address', required: false }) },
    subscribe: (_root, args, ctx) =>
      pipe(
        ctx.services.deps.events.subscribe('sales'),
        filter((e: SaleEvent) => matchesSale(e, args.collection)),
      ),
    resolve: (e) => e,
  }),
}));
