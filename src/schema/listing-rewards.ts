// ListingRewardCollection (spec 2.8): the top 5 listing-reward collections.
import type { ListingRewardEntry } from '../services/listing-rewards.js';
import { builder } from './builder.js';

const ListingRewardCollection = builder.objectRef<ListingRewardEntry>('ListingRewardCollection').implement({
  fields: (t) => ({
    collection: t.prismaField({
      type: 'Collection',
      resolve: async (_q, e, _args, ctx) => (await ctx.loaders.collection.load(e.collectionAddress))!,
    }),
    volume24hGlobal: t.exposeString('volume24hGlobal', { description: 'wei volume on the other marketplace, last 24 hours' }),
    points: t.exposeInt('points', { description: 'listing reward points per snapshot' }),
    floorGlobal: t.exposeString('floorGlobal', { description: 'lowest floor across both marketplaces, wei' }),
  }),
});

builder.queryFields((t) => ({
  listingRewards: t.field({
    type: [ListingRewardCollection],
    nullable: true,
    description: 'Up to 5 collections, best first; null when the listing rewards program is off',
    resolve: (_root, _args, ctx) => ctx.services.listingRewards.topListingRewards(ctx.sql),
  }),
}));
