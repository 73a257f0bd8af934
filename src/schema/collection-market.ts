// Collection fields for discovery: top bid, listed count and the hourly/daily series. Batched
// per request (one SQL statement for every collection of a page).
import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { SERIES_RESOLUTIONS } from '../services/sale-history.js';
import { builder } from './builder.js';
import { Order } from './order.js';

const loaders = new WeakMap<Context, { topBid: DataLoader<string, unknown>; listed: DataLoader<string, number> }>();
function loadersFor(ctx: Context) {
  let l = loaders.get(ctx);
  if (!l) {
    l = {
      topBid: new DataLoader((a: readonly string[]) => ctx.services.collectionMarket.topBids(a)),
      listed: new DataLoader((a: readonly string[]) => ctx.services.collectionMarket.listedCounts(a)),
    };
    loaders.set(ctx, l);
  }
  return l;
}

const SeriesResolutionEnum = builder.enumType('SeriesResolution', { values: SERIES_RESOLUTIONS, description: 'HOUR: UTC hours. DAY: UTC days.' });

const SeriesPointRef = builder.objectRef<{ start: Date; volume: string; salesCount: number; floorPrice: string | null }>('SeriesPoint').implement({
  description: 'One hour or day of a collection: marketplace volume and sales in it, and the floor at its end',
  fields: (t) => ({
    start: t.field({ type: 'UnixTime', resolve: (p) => Math.floor(p.start.getTime() / 1000) }),
    volume: t.field({ type: 'Uint256', description: 'wei', resolve: (p) => p.volume }),
    salesCount: t.exposeInt('salesCount'),
    floorPrice: t.field({ type: 'Uint256', nullable: true, description: 'the last recorded floor at or before the end of the interval; null: no listing', resolve: (p) => p.floorPrice }),
  }),
});

builder.prismaObjectFields('Collection', (t) => ({
  topBid: t.field({
    type: Order,
    nullable: true,
    description: 'The best VALID offer live now (token or collection offer; ties: the oldest)',
    resolve: async (c, _args, ctx) => (await loadersFor(ctx).topBid.load(c.address)) as never,
  }),
  listedCount: t.int({
    description: 'Tokens with a VALID listing live now (a token listed twice counts once)',
    resolve: (c, _args, ctx) => loadersFor(ctx).listed.load(c.address),
  }),
  series: t.field({
    type: [SeriesPointRef],
    description: `Volume, sales count and floor per hour or day in [from, to) (rounded down to the resolution), empty intervals included; at most 1000 points`,
    args: {
      resolution: t.arg({ type: SeriesResolutionEnum, required: true }),
      from: t.arg({ type: 'UnixTime', required: true }),
      to: t.arg({ type: 'UnixTime', required: false, description: 'default: now' }),
    },
    complexity: 20,
    resolve: (c, args, ctx) =>
      ctx.services.saleHistory.series(c.address, args.resolution, Number(args.from), args.to == null ? Math.floor(ctx.now().getTime() / 1000) : Number(args.to)),
  }),
}));
