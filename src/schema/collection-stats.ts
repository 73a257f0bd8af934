// CollectionStats (spec 2.7): every field a string; see src/domain/stats-math.ts for windows,
// rounding and the value of a change without a baseline.
import { STATS_WINDOWS } from '../domain/stats-math.js';
import { weiToEther } from '../domain/uint256.js';
import type { CollectionStats } from '../services/stats.js';
import { builder } from './builder.js';

export const CollectionStatsRef = builder.objectRef<CollectionStats>('CollectionStats').implement({
  description: 'Marketplace-only statistics. Wei amounts and counts as decimal strings; percentages with two decimals.',
  fields: (t) => {
    // The wei amounts again in ETH for people (exact decimals, null where the wei value is null).
    const describe = (field: string) => `${field} in ETH, exact decimal for display; compute with ${field} (wei)`;
    const ether = (field: 'volumeAll' | 'averageAll' | `${'volume' | 'average'}${string}`) =>
      t.string({ description: describe(field), resolve: (s) => weiToEther((s as unknown as Record<string, string>)[field]!) });
    const etherOrNull = (field: 'floorPrice' | 'marketCap') =>
      t.string({ nullable: true, description: describe(field), resolve: (s) => (s[field] == null ? null : weiToEther(s[field]!)) });
    const windowFields = Object.fromEntries(
      STATS_WINDOWS.flatMap((w) => [
        [`volume${w.label}`, t.exposeString(`volume${w.label}`, { description: `sales volume in wei over the last ${w.label}` })],
        [`volume${w.label}Eth`, ether(`volume${w.label}`)],
        [`average${w.label}`, t.exposeString(`average${w.label}`, { description: `average sale price in wei over the last ${w.label}` })],
        [`average${w.label}Eth`, ether(`average${w.label}`)],
        [`count${w.label}`, t.exposeString(`count${w.label}`, { description: `number of sales over the last ${w.label}` })],
        [
          `change${w.label}`,
          t.exposeString(`change${w.label}`, {
            nullable: true,
            description: `volume change in percent against the ${w.label} before; null when that earlier window had no sales but this one has`,
          }),
        ],
      ]),
    );
    return {
      address: t.expose('address', { type: 'Address' }),
      countOwners: t.exposeString('countOwners'),
      totalSupply: t.exposeString('totalSupply'),
      floorPrice: t.exposeString('floorPrice', { nullable: true, description: 'lowest VALID standard listing in wei; null when none' }),
      floorChange24h: t.exposeString('floorChange24h', { nullable: true }),
      floorChange7d: t.exposeString('floorChange7d', { nullable: true }),
      floorChange30d: t.exposeString('floorChange30d', { nullable: true }),
      floorPriceEth: etherOrNull('floorPrice'),
      marketCap: t.exposeString('marketCap', { nullable: true, description: 'floorPrice x totalSupply; null without a floor' }),
      marketCapEth: etherOrNull('marketCap'),
      volumeAll: t.exposeString('volumeAll'),
      volumeAllEth: ether('volumeAll'),
      averageAll: t.exposeString('averageAll'),
      averageAllEth: ether('averageAll'),
      countAll: t.exposeString('countAll'),
      ...windowFields,
    };
  },
});

builder.queryFields((t) => ({
  collectionStats: t.field({
    type: CollectionStatsRef,
    nullable: true,
    description: 'null when no collection has this address',
    args: { address: t.arg({ type: 'Address', required: true }) },
    resolve: (_root, args, ctx) => ctx.loaders.stats.load(args.address),
  }),
}));
