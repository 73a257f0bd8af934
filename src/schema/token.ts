// Token: one token of a collection, who holds it and its market (best live ask and bid, last
// sale, the depth of its book), and the token(s) queries. Its Node identity is in ./node.ts.
import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import type { Order as OrderRow, Sale as SaleRow } from '../generated/prisma/client.js';
import { pageArgsOf } from '../domain/page-args.js';
import { listedAt, MAX_DEPTH_LEVELS, MAX_TOKEN_PAGE, TOKEN_PAGE_RULES, tokenService, type TokenKey, type TokenOwner } from '../services/tokens.js';
import { TOKEN_SORTS } from '../services/token-sql.js';
import { builder } from './builder.js';
import { Collection } from './collection.js';
import { BookDepthRef, BookSideEnum } from './depth.js';
import { Sale } from './discovery.js';
import { Order } from './order.js';

const key = (k: TokenKey) => `${k.collectionAddress}:${k.tokenId}`;
const loaders = new WeakMap<Context, ReturnType<typeof createLoaders>>();
function createLoaders(ctx: Context) {
  const tokens = tokenService(ctx.services.deps);
  const opts = { cacheKeyFn: key };
  return {
    owners: new DataLoader<TokenKey, TokenOwner[], string>((k) => tokens.owners(k), opts),
    bestAsk: new DataLoader<TokenKey, OrderRow | null, string>((k) => tokens.bestAsks(k), opts),
    bestBid: new DataLoader<TokenKey, OrderRow | null, string>((k) => tokens.bestBids(k), opts),
    lastSale: new DataLoader<TokenKey, SaleRow | null, string>((k) => tokens.lastSales(k), opts),
  };
}
export function tokenLoaders(ctx: Context) {
  let l = loaders.get(ctx);
  if (!l) loaders.set(ctx, (l = createLoaders(ctx)));
  return l;
}

const TokenOwnerRef = builder.objectRef<TokenOwner>('TokenOwner').implement({
  description: 'A holder of a token and how many it holds (ERC-721: 1)',
  fields: (t) => ({
    owner: t.expose('owner', { type: 'Address' }),
    balance: t.field({ type: 'Uint256', resolve: (o) => o.balance }),
  }),
});

const TokenAttributeRef = builder.objectRef<{ traitType: string; value: string }>('TokenAttribute').implement({
  description: 'A metadata trait (not indexed yet: Token.attributes is null)',
  fields: (t) => ({ traitType: t.exposeString('traitType'), value: t.exposeString('value') }),
});

export const Token = builder.objectRef<TokenKey>('Token').implement({
  description:
    'A token of a collection, known from ownership (token_balances) or from an order naming it. Its market counts live orders ' +
    '(VALID, started, not ended): fixed-price listings for the ask, token offers and collection offers for the bid. ' +
    'The metadata (name, image, attributes) is not indexed: null.',
  fields: (t) => ({
    collectionAddress: t.expose('collectionAddress', { type: 'Address' }),
    collection: t.field({ type: Collection, resolve: async (k, _args, ctx) => (await ctx.loaders.collection.load(k.collectionAddress))! }),
    tokenId: t.field({ type: 'Uint256', resolve: (k) => k.tokenId }),
    owners: t.field({
      type: [TokenOwnerRef],
      description: 'Holders with a positive balance, largest first (then by address); ERC-1155 tokens can have several',
      resolve: (k, _args, ctx) => tokenLoaders(ctx).owners.load(k),
    }),
    bestAsk: t.field({
      type: Order,
      nullable: true,
      description: 'The cheapest live fixed-price listing of this token (ties: the oldest)',
      resolve: (k, _args, ctx) => tokenLoaders(ctx).bestAsk.load(k),
    }),
    bestBid: t.field({
      type: Order,
      nullable: true,
      description: "The highest live offer that can fill this token: its token offers and its collection's collection offers (ties: the oldest)",
      resolve: (k, _args, ctx) => tokenLoaders(ctx).bestBid.load(k),
    }),
    lastSale: t.field({ type: Sale, nullable: true, description: 'The newest sale of this token', resolve: (k, _args, ctx) => tokenLoaders(ctx).lastSale.load(k) }),
    listedAt: t.field({
      type: 'UnixTime',
      nullable: true,
      description: 'When bestAsk went live here: the later of its submission and its startTime; null when not listed',
      resolve: async (k, _args, ctx) => {
        const ask = await tokenLoaders(ctx).bestAsk.load(k);
        return ask ? listedAt(ask) : null;
      },
    }),
    name: t.string({ nullable: true, description: 'not indexed: null', resolve: () => null }),
    image: t.string({ nullable: true, description: 'not indexed: null', resolve: () => null }),
    attributes: t.field({ type: [TokenAttributeRef], nullable: true, description: 'not indexed: null', resolve: () => null }),
    depth: t.field({
      type: BookDepthRef,
      description: 'The price ladder of one side of what can trade this token: its listings, or its token offers and the collection offers',
      args: {
        side: t.arg({ type: BookSideEnum, required: true }),
        first: t.arg.int({ required: false, defaultValue: 20, description: `levels to return, 1..${MAX_DEPTH_LEVELS}` }),
      },
      complexity: 5,
      resolve: (k, args, ctx) => tokenService(ctx.services.deps).depth(k.collectionAddress, k.tokenId, args.side, args.first ?? 20),
    }),
  }),
});

const TokenSortEnum = builder.enumType('TokenSort', {
  description: 'PRICE_ASC / PRICE_DESC: by best ask, unlisted tokens last. TOKEN_ID: ascending. Ties break on the token id.',
  values: TOKEN_SORTS,
});

const TokenFilterInput = builder.inputType('TokenFilterInput', {
  fields: (t) => ({ listed: t.boolean({ required: false, description: 'true: tokens with a live listing; false: without; absent: every known token' }) }),
});

builder.queryFields((t) => ({
  token: t.field({
    type: Token,
    nullable: true,
    description: 'One token; null when the index knows no such token (never held, named by no order)',
    args: { collection: t.arg({ type: 'Address', required: true }), tokenId: t.arg({ type: 'Uint256', required: true }) },
    resolve: (_root, args, ctx) => tokenService(ctx.services.deps).getToken(args.collection, args.tokenId.toString()),
  }),
  tokens: t.connection(
    {
      type: Token,
      description:
        "A collection's tokens, one row each: by default every known token, cheapest listing first. Pages forward (first/after) or backward (last/before); cursor = opaque token cursor.",
      args: {
        collection: t.arg({ type: 'Address', required: true }),
        filter: t.arg({ type: TokenFilterInput, required: false }),
        sort: t.arg({ type: TokenSortEnum, required: false, defaultValue: 'PRICE_ASC' }),
      },
      complexity: (args) => ({ field: 5, multiplier: Math.min(args.last ?? args.first ?? 20, MAX_TOKEN_PAGE) }),
      resolve: async (_root, args, ctx) => {
        const page = await tokenService(ctx.services.deps).listTokens({
          ...pageArgsOf(args, TOKEN_PAGE_RULES),
          collection: args.collection,
          listed: args.filter?.listed ?? null,
          sort: args.sort ?? 'PRICE_ASC',
        });
        const edges = page.tokens.map(({ cursor, ...node }) => ({ cursor, node }));
        return {
          totalCount: page.totalCount,
          edges,
          pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
        };
      },
    },
    {
      name: 'TokenConnection',
      fields: (c) => ({ totalCount: c.int({ description: 'tokens matching the filter (all pages)', resolve: (p) => (p as unknown as { totalCount: number }).totalCount }) }),
    },
    { name: 'TokenEdge' },
  ),
}));
