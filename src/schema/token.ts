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
import { AttributeKindEnum, TraitFilterInput } from './trait.js';
import { parseTokenTraitFilter, TOKEN_FILTER_LIMITS } from '../domain/token-filter.js';
import type { TokenAttributeRow, TokenMetadataRow } from '../services/token-metadata.js';
import { hostedUrl } from './hosted-media.js';
import { HOSTED_VARIANT } from '../services/hosted-media-sql.js';

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
    metadata: new DataLoader<TokenKey, TokenMetadataRow | null, string>((k) => ctx.services.tokenMetadata.metadata(k), opts),
    attributes: new DataLoader<TokenKey, TokenAttributeRow[], string>((k) => ctx.services.tokenMetadata.attributes(k), opts),
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

const TokenAttributeRef = builder.objectRef<TokenAttributeRow>('TokenAttribute').implement({
  description: "A trait of a token, as its metadata states it, with how many of the collection's tokens carry the same value",
  fields: (t) => ({
    traitType: t.exposeString('traitType', { description: 'the trait type ("" when the document names none)' }),
    value: t.exposeString('value', { description: 'the value as text (numbers in their shortest form)' }),
    displayType: t.exposeString('displayType', { nullable: true, description: "the document's display_type, lower-cased; null when it has none" }),
    kind: t.field({ type: AttributeKindEnum, resolve: (a) => a.kind }),
    tokenCount: t.exposeInt('tokenCount', { description: "the collection's tokens carrying this value" }),
  }),
});

const MetadataStatusEnum = builder.enumType('MetadataStatus', {
  description: 'PENDING: not read yet; OK: read and shown; ERROR: the last read failed (error says why; a document read before stays shown)',
  values: ['PENDING', 'OK', 'ERROR'] as const,
});

const MetadataErrorRef = builder.objectRef<{ code: string; message: string | null }>('MetadataError').implement({
  description: 'Why the last read failed',
  fields: (t) => ({
    code: t.exposeString('code', {
      description:
        'TIMEOUT, HTTP_STATUS, TOO_LARGE, NETWORK, BLOCKED_TARGET, TOO_MANY_REDIRECTS, CID_MISMATCH, INVALID_JSON, INVALID_METADATA, UNSUPPORTED_URI, INVALID_URI, NO_URI, TOKEN_URI_REVERTED, RPC_UNAVAILABLE',
    }),
    message: t.exposeString('message', { nullable: true }),
  }),
});

const TokenMetadataRef = builder.objectRef<TokenMetadataRow>('TokenMetadata').implement({
  description: "Where a token's metadata stands: read, failed or waiting, and when it is read next",
  fields: (t) => ({
    status: t.field({ type: MetadataStatusEnum, resolve: (m) => m.status }),
    error: t.field({ type: MetadataErrorRef, nullable: true, resolve: (m) => (m.errorCode === null ? null : { code: m.errorCode, message: m.errorMessage }) }),
    tokenURI: t.exposeString('tokenUri', { nullable: true, description: 'the URI the contract answered (ERC-1155: with {id} replaced)' }),
    fetchedAt: t.field({ type: 'UnixTime', nullable: true, description: 'the last read', resolve: (m) => unixOrNull(m.fetchedAt) }),
    nextFetchAt: t.field({
      type: 'UnixTime',
      nullable: true,
      description: 'the next read: queued, a retry, or the recheck of a mutable (http) URI; null: only on a chain event or a refresh',
      resolve: (m) => unixOrNull(m.nextFetchAt),
    }),
  }),
});

const TokenRarityRef = builder.objectRef<NonNullable<TokenMetadataRow['rarity']>>('TokenRarity').implement({
  description: "OpenRarity's rank and score (information content), over the collection's tokens showing metadata",
  fields: (t) => ({
    rank: t.exposeInt('rank', { description: '1 is the rarest; tokens with equal scores share a rank (1, 2, 2, 4)' }),
    score: t.exposeFloat('score'),
    tokensScored: t.exposeInt('tokensScored', { description: 'the tokens ranked: those showing metadata, not a maximum supply' }),
    maxRank: t.exposeInt('maxRank', { description: 'the largest rank given' }),
    method: t.exposeString('method'),
    version: t.exposeString('version', { description: 'the reference implementation the method follows' }),
  }),
});

const unixOrNull = (d: Date | null) => (d === null ? null : BigInt(Math.floor(new Date(d).getTime() / 1000)));
/** A field of the token's document (null without one). */
const documentField = (ctx: Context, k: TokenKey, pick: (m: TokenMetadataRow) => string | null) =>
  tokenLoaders(ctx).metadata.load(k).then((m) => (m ? pick(m) : null));

export const Token = builder.objectRef<TokenKey>('Token').implement({
  description:
    'A token of a collection, known from ownership (token_balances) or from an order naming it. Its market counts live orders ' +
    '(VALID, started, not ended): fixed-price listings for the ask, token offers and collection offers for the bid. ' +
    'Its metadata (name, image, traits, rarity) is read from its token URI (docs/metadata.md).',
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
    name: t.string({ nullable: true, description: "the metadata's name", resolve: (k, _a, ctx) => documentField(ctx, k, (m) => m.name) }),
    description: t.string({ nullable: true, resolve: (k, _a, ctx) => documentField(ctx, k, (m) => m.description) }),
    image: t.string({
      nullable: true,
      description: 'the image on our own media origin once stored (256 px WebP, docs/media.md); until then imageSourceURI',
      resolve: async (k, _a, ctx) => hostedUrl(ctx, await documentField(ctx, k, (m) => m.image), HOSTED_VARIANT.token),
    }),
    imageSourceURI: t.string({
      nullable: true,
      description: "the document's image as an http(s) URL (ipfs:// and ar:// through the public gateways) or a data: URI",
      resolve: (k, _a, ctx) => documentField(ctx, k, (m) => m.image),
    }),
    animationURL: t.string({ nullable: true, resolve: (k, _a, ctx) => documentField(ctx, k, (m) => m.animationUrl) }),
    externalURL: t.string({ nullable: true, resolve: (k, _a, ctx) => documentField(ctx, k, (m) => m.externalUrl) }),
    attributes: t.field({
      type: [TokenAttributeRef],
      nullable: true,
      description: 'its traits in document order; null while no metadata document is shown',
      resolve: async (k, _a, ctx) => {
        const m = await tokenLoaders(ctx).metadata.load(k);
        return m?.hasDocument ? tokenLoaders(ctx).attributes.load(k) : null;
      },
    }),
    metadata: t.field({ type: TokenMetadataRef, nullable: true, description: 'null: never queued for a read (no chain to read it from, or not seen yet)', resolve: (k, _a, ctx) => tokenLoaders(ctx).metadata.load(k) }),
    rarity: t.field({ type: TokenRarityRef, nullable: true, description: 'null: not ranked (no metadata)', resolve: (k, _a, ctx) => tokenLoaders(ctx).metadata.load(k).then((m) => m?.rarity ?? null) }),
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
  description: 'PRICE_ASC / PRICE_DESC: by best ask, unlisted tokens last. TOKEN_ID: ascending. RARITY: OpenRarity rank, rarest first, unranked last. Ties break on the token id.',
  values: TOKEN_SORTS,
});

const TraitRangeInput = builder.inputType('TraitRangeInput', {
  description: 'Tokens whose NUMBER or DATE trait of this type lies within [min, max] (either bound may be left out)',
  fields: (t) => ({ traitType: t.string({ required: true }), min: t.float({ required: false }), max: t.float({ required: false }) }),
});
const RankRangeInput = builder.inputType('RankRangeInput', {
  fields: (t) => ({ min: t.int({ required: false }), max: t.int({ required: false }) }),
});

const TokenFilterInput = builder.inputType('TokenFilterInput', {
  description: `OR within a trait type's values, AND across every condition; at most ${TOKEN_FILTER_LIMITS.conditions} trait conditions of ${TOKEN_FILTER_LIMITS.values} values`,
  fields: (t) => ({
    listed: t.boolean({ required: false, description: 'true: tokens with a live listing; false: without; absent: every known token' }),
    attributes: t.field({ type: [TraitFilterInput], required: false, description: 'trait values: a gold or silver background, and a crown' }),
    ranges: t.field({ type: [TraitRangeInput], required: false, description: 'numeric and date traits within a range' }),
    rarityRank: t.field({ type: RankRangeInput, required: false, description: 'OpenRarity ranks within a range (unranked tokens never match)' }),
    name: t.string({ required: false, description: 'tokens whose metadata name contains this text (letter case ignored, 1..200 characters)' }),
  }),
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
          filter: parseTokenTraitFilter(args.filter),
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
