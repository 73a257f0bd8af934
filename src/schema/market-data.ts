// The operator feed of external market data for listing rewards (spec 2.8): an admin mutation
// behind the same guard as upsertCollection. Validation lives in src/services/market-data.ts.
import { requireAdmin } from '../services/api-key-guards.js';
import { builder } from './builder.js';

const MarketDataInput = builder.inputType('MarketDataInput', {
  description: "One observation of a collection on the other marketplace. A collection's newest observation is kept.",
  fields: (t) => ({
    collection: t.field({ type: 'Address', required: true, description: 'an existing collection' }),
    volume24hGlobal: t.field({ type: 'Uint256', required: true, description: 'wei volume on the other marketplace over its last 24 hours' }),
    floorGlobal: t.field({ type: 'Uint256', required: true, description: 'floor price on the other marketplace, wei' }),
    observedAt: t.string({
      required: false,
      description: 'when it was observed: ISO 8601 date-time with a zone (2026-06-01T12:00:00Z); default now. Older than GLOBAL_DATA_MAX_AGE_SECONDS does not count.',
    }),
  }),
});

const UpsertMarketDataPayload = builder.objectRef<{ written: number; ignoredOlder: number }>('UpsertMarketDataPayload').implement({
  fields: (t) => ({
    written: t.exposeInt('written', { description: 'observations stored' }),
    ignoredOlder: t.exposeInt('ignoredOlder', { description: 'observations older than the one already stored for their collection, ignored' }),
  }),
});

builder.mutationFields((t) => ({
  upsertMarketData: t.field({
    type: UpsertMarketDataPayload,
    description: 'Admin: stores external market data, all or nothing (every problem listed). Needs the x-api-key header (ADMIN_API_KEY).',
    args: { input: t.arg({ type: [MarketDataInput], required: true }) },
    resolve: (_root, args, ctx) => {
      requireAdmin(ctx);
      return ctx.services.listingRewards.upsertMarketData(args.input);
    },
  }),
}));
