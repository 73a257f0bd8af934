// Discovery for analysts: Query.collections (ranked, filtered, paged, totalCount) and
// Query.sales (newest first, by collection and time range, totalCount). Collection's own
// discovery fields are in collection-market.ts.
import { COLLECTION_ORDERS } from '../domain/collection-ranking.js';
import { pageArgsOf } from '../domain/page-args.js';
import { toUintString, weiToEther } from '../domain/uint256.js';
import { COLLECTION_PAGE_RULES } from '../services/collection-discovery.js';
import { SALE_PAGE_RULES } from '../services/sale-history.js';
import { builder } from './builder.js';
import { Collection, CollectionTypeEnum } from './collection.js';

const CollectionOrderEnum = builder.enumType('CollectionOrder', {
  description:
    'VOLUME_24H / VOLUME_7D: highest marketplace volume first. FLOOR: lowest floor first. CHANGE_24H: biggest 24h volume change first. NAME: A to Z. Collections without the value (no floor, no baseline) come last; ties break on the address.',
  values: COLLECTION_ORDERS,
});

const CollectionFilterInput = builder.inputType('CollectionFilterInput', {
  fields: (t) => ({
    type: t.field({ type: CollectionTypeEnum, required: false }),
    isVerified: t.boolean({ required: false }),
    nameContains: t.string({ required: false, description: 'part of the name, any letter case' }),
  }),
});

export const Sale = builder.prismaObject('Sale', {
  description: 'A sale on the marketplace exchange (indexed TakerAsk/TakerBid)',
  fields: (t) => ({
    collectionAddress: t.expose('collectionAddress', { type: 'Address' }),
    collection: t.relation('collection'),
    tokenId: t.field({ type: 'Uint256', resolve: (s) => toUintString(s.tokenId) }),
    amount: t.field({ type: 'Uint256', resolve: (s) => toUintString(s.amount) }),
    price: t.field({ type: 'Uint256', description: 'wei', resolve: (s) => toUintString(s.price) }),
    priceEth: t.string({ description: 'price in ETH, exact decimal for display; compute with price (wei)', resolve: (s) => weiToEther(s.price) }),
    currencyAddress: t.expose('currencyAddress', { type: 'Address' }),
    buyer: t.expose('buyer', { type: 'Address' }),
    seller: t.expose('seller', { type: 'Address' }),
    orderHash: t.expose('orderHash', { type: 'Hash', nullable: true }),
    isTakerAsk: t.exposeBoolean('isTakerAsk'),
    blockNumber: t.field({ type: 'Uint256', resolve: (s) => s.blockNumber.toString() }),
    txHash: t.expose('txHash', { type: 'Hash' }),
    logIndex: t.exposeInt('logIndex'),
    timestamp: t.field({ type: 'UnixTime', resolve: (s) => Math.floor(s.timestamp.getTime() / 1000) }),
  }),
});

builder.queryFields((t) => ({
  collections: t.connection(
    {
      type: Collection,
      description:
        'Every collection matching the filter, ranked. Pages forward (first/after) or backward (last/before); cursor = the address of a collection (after: the last of the previous page).',
      args: {
        orderBy: t.arg({ type: CollectionOrderEnum, required: false, defaultValue: 'NAME' }),
        filter: t.arg({ type: CollectionFilterInput, required: false }),
      },
      complexity: (args) => ({ field: 5, multiplier: Math.min(args.last ?? args.first ?? 20, COLLECTION_PAGE_RULES.max) }),
      resolve: async (_root, args, ctx) => {
        const page = await ctx.services.collectionDiscovery.listCollections({
          ...pageArgsOf(args, COLLECTION_PAGE_RULES),
          filter: args.filter ?? {},
          orderBy: args.orderBy ?? 'NAME',
        });
        const edges = page.collections.map((c) => ({ cursor: c.address, node: c }));
        return {
          totalCount: page.totalCount,
          edges,
          pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
        };
      },
    },
    {
      name: 'CollectionConnection',
      fields: (c) => ({ totalCount: c.int({ description: 'collections matching the filter (all pages)', resolve: (p) => (p as unknown as { totalCount: number }).totalCount }) }),
    },
    { name: 'CollectionEdge' },
  ),
  sales: t.connection(
    {
      type: Sale,
      description: 'Sales, newest first; `from` inclusive and `to` exclusive (unix seconds). Pages forward (first/after) or backward (last/before); cursor = opaque sale cursor.',
      args: {
        collection: t.arg({ type: 'Address', required: false }),
        from: t.arg({ type: 'UnixTime', required: false }),
        to: t.arg({ type: 'UnixTime', required: false }),
      },
      complexity: (args) => ({ field: 1, multiplier: Math.min(args.last ?? args.first ?? 20, SALE_PAGE_RULES.max) }),
      resolve: async (_root, args, ctx) => {
        const page = await ctx.services.saleHistory.listSales({
          ...pageArgsOf(args, SALE_PAGE_RULES),
          collection: args.collection,
          from: args.from == null ? null : Number(args.from),
          to: args.to == null ? null : Number(args.to),
        });
        const edges = page.sales.map((s) => ({ cursor: s.id.toString(), node: s }));
        return {
          totalCount: page.totalCount,
          edges,
          pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
        };
      },
    },
    {
      name: 'SaleConnection',
      fields: (c) => ({ totalCount: c.int({ description: 'sales matching the arguments (all pages)', resolve: (p) => (p as unknown as { totalCount: number }).totalCount }) }),
    },
    { name: 'SaleEdge' },
  ),
}));
