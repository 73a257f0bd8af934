// Account: an address's side of the market: its orders, the offers it could fill, what it holds
// and what that is worth, and its activity. Every address has one (nothing is stored per account);
// its Node identity is in ./node.ts. The read engine renders the same answers in SQL
// (src/read-engine/account-reads.ts); these resolvers are its reference.
import { accountPageOf, isOrderHashCursor, MAX_ACCOUNT_PAGE } from '../domain/account-query.js';
import type { Order as OrderRow } from '../generated/prisma/client.js';
import { parseHoldingCursor } from '../services/account-sql.js';
import { accountService, valueOf, type Holding } from '../services/accounts.js';
import { AccountActivityFilterInput, activityComplexity, MarketEvent, MarketEventConnection, resolveActivityConnection } from './activity.js';
import { builder } from './builder.js';
import { Order, OrderConnection, OrderFilterInput, OrderSortEnum, resolveOrderConnection } from './order.js';
import { Token } from './token.js';

export interface AccountKey {
  address: string;
}

const AccountHolding = builder.objectRef<Holding>('AccountHolding').implement({
  description: 'A token the account holds (indexed ownership) and what its balance is worth at the floor and at the best bid',
  fields: (t) => ({
    token: t.field({ type: Token, resolve: (h) => ({ collectionAddress: h.collectionAddress, tokenId: h.tokenId }) }),
    balance: t.field({ type: 'Uint256', description: 'how many it holds (ERC-721: 1)', resolve: (h) => h.balance }),
    floorPrice: t.field({ type: 'Uint256', nullable: true, description: "the collection's floor (its cheapest live fixed-price listing); null when nothing is listed", resolve: (h) => h.floorPrice }),
    valueAtFloor: t.field({ type: 'Uint256', nullable: true, description: 'floorPrice times balance', resolve: (h) => valueOf(h.floorPrice, h.balance) }),
    bestBidPrice: t.field({
      type: 'Uint256',
      nullable: true,
      description: "the token's best bid (Token.bestBid: the higher of its best token offer and the collection's best collection offer, whoever made it); null when none",
      resolve: (h) => h.bestBidPrice,
    }),
    valueAtBestBid: t.field({ type: 'Uint256', nullable: true, description: 'bestBidPrice times balance', resolve: (h) => valueOf(h.bestBidPrice, h.balance) }),
  }),
});

export const Account = builder.objectRef<AccountKey>('Account');

Account.implement({
  description: 'An address on the market. Every address has an account; one that never traded has empty pages.',
  fields: (t) => ({
    address: t.field({ type: 'Address', resolve: (a) => a.address }),
    orders: t.connection(
      {
        type: Order,
        description: 'Its orders as maker: Query.orders with the signer pinned (same filters, sorts and cursors)',
        args: {
          filter: t.arg({ type: OrderFilterInput, required: false }),
          sort: t.arg({ type: OrderSortEnum, required: false, defaultValue: 'NEWEST' }),
        },
        complexity: (args) => ({ field: 5, multiplier: Math.min(args.first ?? 20, 150) }),
        resolve: (a, args, ctx, info) => resolveOrderConnection({ ...args, filter: { ...(args.filter ?? {}), signer: a.address } }, ctx, info),
      },
      OrderConnection,
    ),
    offersReceived: t.connection(
      {
        type: Order,
        description:
          'Live bids it could fill: token offers on tokens it holds and collection offers on collections where it holds a token (at least the ' +
          "offer's amount), not its own; best first (highest price, then oldest). Pages forward (first/after) or backward (last/before); cursor = order hash.",
        args: { collection: t.arg({ type: 'Address', required: false, description: 'only offers on this collection' }) },
        complexity: (args) => ({ field: 5, multiplier: Math.min(args.last ?? args.first ?? 20, MAX_ACCOUNT_PAGE) }),
        resolve: async (a, args, ctx) => {
          const q = accountPageOf(args, isOrderHashCursor);
          const page = await accountService(ctx.services.deps).offersReceived(a.address, { ...q, collection: args.collection }, ctx.sql);
          const edges = page.orders.map((o) => ({ cursor: o.hash, node: o as OrderRow }));
          return {
            totalCount: page.totalCount,
            edges,
            pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
          };
        },
      },
      OrderConnection,
    ),
    holdings: t.connection(
      {
        type: AccountHolding,
        description: 'The tokens it holds (indexed ownership, balance > 0), by collection then token id. Pages forward (first/after) or backward (last/before); cursor = <collection>:<tokenId>.',
        args: { collection: t.arg({ type: 'Address', required: false, description: 'only tokens of this collection' }) },
        complexity: (args) => ({ field: 5, multiplier: Math.min(args.last ?? args.first ?? 20, MAX_ACCOUNT_PAGE) }),
        resolve: async (a, args, ctx) => {
          const q = accountPageOf(args, (c) => parseHoldingCursor(c) !== null);
          const page = await accountService(ctx.services.deps).holdings(a.address, { ...q, collection: args.collection }, ctx.sql);
          const edges = page.holdings.map((h) => ({ cursor: h.cursor, node: h }));
          return {
            totalCount: page.totalCount,
            valueAtFloor: page.valueAtFloor,
            valueAtBestBid: page.valueAtBestBid,
            edges,
            pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
          };
        },
      },
      {
        name: 'AccountHoldingConnection',
        description: 'A page of holdings; the totals cover every holding matching the arguments, not only the page',
        fields: (c) => {
          type Totals = { totalCount: number; valueAtFloor: string; valueAtBestBid: string };
          const totals = (p: unknown) => p as Totals;
          return {
            totalCount: c.int({ description: 'holdings matching the arguments (all pages)', resolve: (p) => totals(p).totalCount }),
            valueAtFloor: c.field({ type: 'Uint256', description: 'sum of valueAtFloor over all pages (a holding without a floor adds 0)', resolve: (p) => totals(p).valueAtFloor }),
            valueAtBestBid: c.field({ type: 'Uint256', description: 'sum of valueAtBestBid over all pages (a holding without a bid adds 0)', resolve: (p) => totals(p).valueAtBestBid }),
          };
        },
      },
      { name: 'AccountHoldingEdge' },
    ),
    activity: t.connection(
      {
        type: MarketEvent,
        description: 'Its market events, newest first: Query.activity with the account pinned (sender or receiver; the maker of an order). cursor = eventId.',
        args: { filter: t.arg({ type: AccountActivityFilterInput, required: false }) },
        complexity: activityComplexity(5),
        resolve: (a, args, ctx) => resolveActivityConnection(args, ctx, { account: a.address }),
      },
      MarketEventConnection,
    ),
  }),
});

builder.queryFields((t) => ({
  account: t.field({
    type: Account,
    description: 'The account of an address (every address has one)',
    args: { address: t.arg({ type: 'Address', required: true }) },
    resolve: (_root, args) => ({ address: args.address }),
  }),
}));
