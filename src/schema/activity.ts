// Activity: the market event log (docs/activity.md) as MarketEvent nodes and Query.activity,
// newest first, filtered and paged both ways by event id. The read engine renders the same
// answers in SQL (src/read-engine/read-types.ts, plan-query.ts); these resolvers are its reference.
import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { activityQueryOf, MARKET_EVENT_CAUSES, MARKET_EVENT_TYPES, MAX_ACTIVITY_PAGE } from '../domain/activity-query.js';
import { weiToEther } from '../domain/uint256.js';
import type { Order as OrderRow } from '../generated/prisma/client.js';
import type { MarketEventRow } from '../services/activity.js';
import { builder } from './builder.js';
import { Collection } from './collection.js';
import { Order, OrderStatusEnum } from './order.js';
import { Token } from './token.js';
import { TraitFilterInput } from './trait.js';

export const MarketEventTypeEnum = builder.enumType('MarketEventType', {
  description:
    'What happened (docs/activity.md). RETRACTED: a reorg undid the event named by retractsEventId. FLOOR_CHANGE: the collection floor moved to price ' +
    '(null: nothing listed). BEST_BID_CHANGE: the collection\'s best live bid (Collection.topBid) moved to price, order its order (null: no bid left). ' +
    'TRAIT_FLOOR_CHANGE: the floor of the tokens carrying traitType = traitValue moved to price (null: none listed). METADATA_UPDATE: a token\'s metadata document changed.',
  values: MARKET_EVENT_TYPES,
});

export const MarketEventCauseEnum = builder.enumType('MarketEventCause', {
  description: 'Why an order changed status; ..._RESTORED names what a move back to VALID repaired.',
  values: MARKET_EVENT_CAUSES,
});

/** Orders by hash, per request (an event names its order by hash). */
const orderLoaders = new WeakMap<object, DataLoader<string, OrderRow | null>>();
function orderLoader(ctx: Context) {
  let loader = orderLoaders.get(ctx.loaders);
  if (!loader) {
    loader = new DataLoader(async (hashes: readonly string[]) => {
      const rows = await ctx.services.deps.db.prisma.order.findMany({ where: { hash: { in: [...hashes] } } });
      const byHash = new Map(rows.map((o) => [o.hash, o]));
      return hashes.map((h) => byHash.get(h) ?? null);
    });
    orderLoaders.set(ctx.loaders, loader);
  }
  return loader;
}

export const MarketEvent = builder.nodeRef<MarketEventRow>('MarketEvent', {
  id: { resolve: (e) => e.id },
  loadMany: (ids, ctx: Context) => ctx.services.activity.eventsById(ids, ctx.sql),
});

MarketEvent.implement({
  description: 'One event of the market event log',
  fields: (t) => ({
    eventId: t.field({ type: 'Uint256', description: 'the log position: increasing, the cursor of activity pages and of GET /api/v1/events', resolve: (e) => e.id }),
    type: t.field({ type: MarketEventTypeEnum, resolve: (e) => e.type }),
    cause: t.field({ type: MarketEventCauseEnum, nullable: true, description: 'status changes and cancels', resolve: (e) => e.cause as (typeof MARKET_EVENT_CAUSES)[number] | null }),
    collectionAddress: t.field({ type: 'Address', resolve: (e) => e.collectionAddress }),
    collection: t.field({ type: Collection, resolve: (e, _args, ctx) => ctx.loaders.collection.load(e.collectionAddress) as never }),
    tokenId: t.field({ type: 'Uint256', nullable: true, description: 'null for a collection offer', resolve: (e) => e.tokenId }),
    orderHash: t.field({ type: 'Hash', nullable: true, resolve: (e) => e.orderHash }),
    order: t.field({ type: Order, nullable: true, description: 'the order as it is now (its current status)', resolve: (e, _args, ctx) => (e.orderHash ? orderLoader(ctx).load(e.orderHash) : null) }),
    from: t.field({ type: 'Address', nullable: true, description: 'the sender, seller or maker', resolve: (e) => e.fromAddress }),
    to: t.field({ type: 'Address', nullable: true, description: 'the receiver or buyer; null for orders', resolve: (e) => e.toAddress }),
    traitType: t.string({ nullable: true, description: 'TRAIT_FLOOR_CHANGE: the trait type whose value\'s floor moved', resolve: (e) => e.traitType }),
    traitValue: t.string({ nullable: true, description: 'TRAIT_FLOOR_CHANGE: the trait value whose floor moved', resolve: (e) => e.traitValue }),
    price: t.field({ type: 'Uint256', nullable: true, description: 'wei: the order or sale price', resolve: (e) => e.price }),
    priceEth: t.string({ nullable: true, description: 'price in ETH, exact decimal for display', resolve: (e) => (e.price === null ? null : weiToEther(e.price)) }),
    amount: t.field({ type: 'Uint256', nullable: true, resolve: (e) => e.amount }),
    oldStatus: t.field({ type: OrderStatusEnum, nullable: true, resolve: (e) => e.oldStatus }),
    newStatus: t.field({ type: OrderStatusEnum, nullable: true, resolve: (e) => e.newStatus }),
    blockNumber: t.field({ type: 'Uint256', nullable: true, description: 'null for off-chain events (a new order)', resolve: (e) => e.blockNumber }),
    txHash: t.field({ type: 'Hash', nullable: true, resolve: (e) => e.txHash }),
    logIndex: t.int({ nullable: true, resolve: (e) => e.logIndex }),
    retractsEventId: t.field({ type: 'Uint256', nullable: true, description: 'RETRACTED: the event a reorg undid', resolve: (e) => e.retractsId }),
    createdAt: t.field({ type: 'UnixTime', description: 'block time for a sale, else when the service recorded it', resolve: (e) => Math.floor(e.createdAt.getTime() / 1000) }),
  }),
});

type ActivityFilterField = 'collection' | 'tokenId' | 'account' | 'from' | 'to' | 'types' | 'since' | 'until' | 'attributes';

/** The activity filter's fields, less those a parent pins (Collection.activity, Token.activity, Account.activity). */
function activityFilterInput(name: string, pinned: readonly ActivityFilterField[]) {
  return builder.inputType(name, {
    fields: (t) => {
      const all = {
        collection: t.field({ type: 'Address', required: false }),
        tokenId: t.field({ type: 'Uint256', required: false, description: pinned.includes('collection') ? 'a token of this collection' : 'with collection' }),
        account: t.field({ type: 'Address', required: false, description: 'as sender or receiver (the maker of an order)' }),
        from: t.field({ type: 'Address', required: false, description: 'the sender, seller or maker' }),
        to: t.field({ type: 'Address', required: false, description: 'the receiver or buyer' }),
        types: t.field({ type: [MarketEventTypeEnum], required: false, description: 'any of these; default: all but RETRACTED, FLOOR_CHANGE, BEST_BID_CHANGE, METADATA_UPDATE and TRAIT_FLOOR_CHANGE' }),
        since: t.field({ type: 'UnixTime', required: false, description: 'inclusive' }),
        until: t.field({ type: 'UnixTime', required: false, description: 'exclusive' }),
        attributes: t.field({
          type: [TraitFilterInput],
          required: false,
          description: "events of tokens carrying these traits (OR within a trait type, AND across; a collection's own events never match); with collection",
        }),
      };
      for (const field of pinned) delete (all as Partial<typeof all>)[field];
      return all;
    },
  });
}

const ActivityFilterInput = activityFilterInput('ActivityFilterInput', []);
export const CollectionActivityFilterInput = activityFilterInput('CollectionActivityFilterInput', ['collection']);
export const TokenActivityFilterInput = activityFilterInput('TokenActivityFilterInput', ['collection', 'tokenId', 'attributes']);
export const AccountActivityFilterInput = activityFilterInput('AccountActivityFilterInput', ['account']);

export const MarketEventConnection = builder.connectionObject(
  {
    type: MarketEvent,
    name: 'MarketEventConnection',
    fields: (c) => ({ totalCount: c.int({ description: 'events matching the filter (all pages)', resolve: (p) => (p as unknown as { totalCount: number }).totalCount }) }),
  },
  { name: 'MarketEventEdge' },
);

export const activityComplexity = (field: number) => (args: { first?: number | null; last?: number | null }) => ({ field, multiplier: Math.min(args.first ?? args.last ?? 20, MAX_ACTIVITY_PAGE) });

interface ActivityConnectionArgs {
  filter?: Record<string, unknown> | null;
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** One activity page as a connection: Query.activity, and the nested ones with what their parent pins set in the filter. */
export async function resolveActivityConnection(args: ActivityConnectionArgs, ctx: Context, pinned: { collection?: string; tokenId?: string; account?: string } = {}) {
  const q = activityQueryOf({ ...(args.filter ?? {}), ...pinned, first: args.first, last: args.last, after: args.after, before: args.before });
  const page = await ctx.services.activity.listActivity(q, { count: true, sql: ctx.sql });
  const edges = page.events.map((e) => ({ cursor: e.id, node: e }));
  return {
    totalCount: page.totalCount,
    edges,
    pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
  };
}

builder.queryFields((t) => ({
  activity: t.connection(
    {
      type: MarketEvent,
      description: 'Market events, newest first; events a reorg undid are left out. cursor = eventId.',
      args: { filter: t.arg({ type: ActivityFilterInput, required: false }) },
      complexity: activityComplexity(1),
      resolve: (_root, args, ctx) => resolveActivityConnection(args, ctx),
    },
    MarketEventConnection,
  ),
}));

builder.prismaObjectField(Collection, 'activity', (t) =>
  t.connection(
    {
      type: MarketEvent,
      description: "This collection's market events, newest first: Query.activity with the collection pinned. cursor = eventId.",
      args: { filter: t.arg({ type: CollectionActivityFilterInput, required: false }) },
      complexity: activityComplexity(5),
      resolve: (c, args, ctx) => resolveActivityConnection(args, ctx, { collection: c.address }),
    },
    MarketEventConnection,
  ),
);

builder.objectField(Token, 'activity', (t) =>
  t.connection(
    {
      type: MarketEvent,
      description: "This token's market events (its collection's offers not included), newest first: Query.activity with the token pinned. cursor = eventId.",
      args: { filter: t.arg({ type: TokenActivityFilterInput, required: false }) },
      complexity: activityComplexity(5),
      resolve: (k, args, ctx) => resolveActivityConnection(args, ctx, { collection: k.collectionAddress, tokenId: k.tokenId }),
    },
    MarketEventConnection,
  ),
);
