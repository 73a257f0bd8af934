// Collection (spec 2.6), its nested stats and orders, and the admin upsert.
import { DEFAULT_COLLECTION_NAME, COLLECTION_TYPES } from '../domain/collection-input.js';
import type { Collection as CollectionRow } from '../generated/prisma/client.js';
import { requireAdmin } from '../services/api-key-guards.js';
import { builder } from './builder.js';
import { CollectionStatsRef } from './collection-stats.js';
import { Order, OrderConnection, OrderFilterInput, OrderSortEnum, resolveOrderConnection } from './order.js';
import { hostedUrl } from './hosted-media.js';
import { HOSTED_VARIANT } from '../services/hosted-media-sql.js';

export const CollectionTypeEnum = builder.enumType('CollectionType', { values: COLLECTION_TYPES });

export const Collection = builder.prismaObject('Collection', {
  fields: (t) => ({
    address: t.expose('address', { type: 'Address' }),
    owner: t.expose('owner', { type: 'Address' }),
    setter: t.expose('setter', { type: 'Address', nullable: true }),
    admin: t.expose('admin', { type: 'Address', nullable: true }),
    name: t.string({ resolve: (c) => c.name ?? DEFAULT_COLLECTION_NAME }),
    description: t.exposeString('description', { nullable: true }),
    symbol: t.exposeString('symbol', { nullable: true }),
    type: t.expose('type', { type: CollectionTypeEnum }),
    websiteLink: t.exposeString('websiteLink', { nullable: true }),
    alphaLink: t.exposeString('alphaLink', { nullable: true }),
    bravoLink: t.exposeString('bravoLink', { nullable: true }),
    charlieLink: t.exposeString('charlieLink', { nullable: true }),
    deltaLink: t.exposeString('deltaLink', { nullable: true }),
    echoLink: t.exposeString('echoLink', { nullable: true }),
    foxtrotLink: t.exposeString('foxtrotLink', { nullable: true }),
    isVerified: t.exposeBoolean('isVerified'),
    isExplicit: t.exposeBoolean('isExplicit'),
    logoURI: t.string({
      nullable: true,
      description: 'the logo on our own media origin once stored (256 px WebP, docs/media.md); until then the source URL',
      resolve: (c, _a, ctx) => hostedUrl(ctx, c.logoURI, HOSTED_VARIANT.logo),
    }),
    bannerURI: t.string({
      nullable: true,
      description: 'the banner on our own media origin once stored (1024 px WebP); until then the source URL',
      resolve: (c, _a, ctx) => hostedUrl(ctx, c.bannerURI, HOSTED_VARIANT.banner),
    }),
    logoSourceURI: t.exposeString('logoURI', { nullable: true, description: 'the logo as an admin gave it (or contractURI filled it): what the media origin fetched' }),
    bannerSourceURI: t.exposeString('bannerURI', { nullable: true, description: 'the banner as an admin gave it (or contractURI filled it)' }),
    stats: t.field({
      type: CollectionStatsRef,
      description: 'Marketplace-only statistics (batched across every collection in the request)',
      complexity: 5,
      resolve: async (c, _args, ctx) => (await ctx.loaders.stats.load(c.address))!,
    }),
    orders: t.connection({
      type: Order,
      description: "This collection's orders; same filters, sorts and cursors as Query.orders",
      args: {
        filter: t.arg({ type: OrderFilterInput, required: false }),
        sort: t.arg({ type: OrderSortEnum, required: false, defaultValue: 'NEWEST' }),
      },
      complexity: (args) => ({ field: 5, multiplier: Math.min(args.first ?? 20, 150) }),
      resolve: (c, args, ctx, info) => resolveOrderConnection(args, ctx, info, c.address),
    }, OrderConnection),
  }),
});

// Order.collection: read with the order page (one joined statement, see ./order-read-plan.ts)
// or, for an order that came without it (order(hash), submissions), batched per request.
builder.prismaObjectField(Order, 'collection', (t) =>
  t.field({
    type: Collection,
    resolve: async (o, _args, ctx) =>
      ((o as { collection?: unknown }).collection as Awaited<ReturnType<typeof ctx.loaders.collection.load>>) ??
      (await ctx.loaders.collection.load(o.collectionAddress))!,
  }),
);

const UpsertCollectionInput = builder.inputType('UpsertCollectionInput', {
  description: 'Every field of spec 2.6. address, and type on create, are required; null clears a field, an absent field is unchanged.',
  fields: (t) => ({
    address: t.field({ type: 'Address', required: true }),
    type: t.field({ type: CollectionTypeEnum, required: false }),
    owner: t.field({ type: 'Address', required: false }),
    setter: t.field({ type: 'Address', required: false }),
    admin: t.field({ type: 'Address', required: false }),
    name: t.string({ required: false }),
    description: t.string({ required: false }),
    symbol: t.string({ required: false }),
    websiteLink: t.string({ required: false }),
    alphaLink: t.string({ required: false }),
    bravoLink: t.string({ required: false }),
    charlieLink: t.string({ required: false }),
    deltaLink: t.string({ required: false }),
    echoLink: t.string({ required: false }),
    foxtrotLink: t.string({ required: false }),
    isVerified: t.boolean({ required: false }),
    isExplicit: t.boolean({ required: false }),
    logoURI: t.string({ required: false }),
    bannerURI: t.string({ required: false }),
  }),
});

// The collection as the upsert stored it (the service returns the written row).
const UpsertCollectionPayload = builder
  .objectRef<{ collection: CollectionRow; created: boolean }>('UpsertCollectionPayload')
  .implement({
    fields: (t) => ({
      created: t.exposeBoolean('created'),
      collection: t.field({ type: Collection, resolve: (p) => p.collection }),
    }),
  });

builder.queryFields((t) => ({
  collection: t.prismaField({
    type: 'Collection',
    nullable: true,
    description: 'null when no collection has this address',
    args: { address: t.arg({ type: 'Address', required: true }) },
    resolve: (_query, _root, args, ctx) => ctx.loaders.collection.load(args.address),
  }),
}));

builder.mutationFields((t) => ({
  upsertCollection: t.field({
    type: UpsertCollectionPayload,
    description: 'Admin: creates or updates a collection. Needs the x-api-key header (ADMIN_API_KEY).',
    args: { input: t.arg({ type: UpsertCollectionInput, required: true }) },
    resolve: (_root, args, ctx) => {
      requireAdmin(ctx);
      return ctx.services.collections.upsertCollection(args.input);
    },
  }),
}));
