// Listing rewards (spec 2.8): the top 5 verified collections by 24h volume on the other
// marketplace, among those whose operator-fed market data is fresh. Points per snapshot come
// from configuration by rank. floorGlobal is the lower of that marketplace's floor and ours.
// The market data comes from the operator feed in ./market-data.ts, exposed here because it
// exists for this program (one service object for the mutation, the CLI and the read).
import type { StatementBatch } from '../db/statement-batch.js';
import { readDb, type ServiceDeps } from './deps.js';
import { createMarketDataService } from './market-data.js';

export interface ListingRewardEntry {
  collectionAddress: string;
  volume24hGlobal: string;
  floorGlobal: string;
  points: number;
}

export function createListingRewardsService(deps: ServiceDeps) {

  /** null when the program is switched off; otherwise up to 5 entries, best first. */
  /** `runner`: a request's statement batch (the statement is JSON-safe: amounts cast to text). */
  async function topListingRewards(runner: StatementBatch = readDb(deps).sql): Promise<ListingRewardEntry[] | null> {
    const { enabled, points, maxAgeSeconds } = deps.config.listingRewards;
    if (!enabled) return null;
    const now = deps.now();
    const rows = await runner.query<{ address: string; volume: string; floor_global: string; our_floor: string | null }>(
      `SELECT g.collection_address AS address, g.volume_24h_global::text AS volume, g.floor_global::text AS floor_global,
         (SELECT MIN(o.price) FROM orders o
           WHERE o.collection_address = g.collection_address AND o.is_order_ask AND o.status = 'VALID'
             AND o.end_time >= $2 AND o.start_time <= $2 AND o.strategy = ANY($3::text[]))::text AS our_floor
       FROM global_market_data g JOIN collections c ON c.address = g.collection_address
       WHERE c.is_verified AND g.observed_at >= $1::timestamptz
       ORDER BY g.volume_24h_global DESC, g.collection_address ASC
       LIMIT ${points.length}`,
      [new Date(now.getTime() - maxAgeSeconds * 1000).toISOString(), Math.floor(now.getTime() / 1000), deps.network.strategies.standardSale],
    );
    return rows.map((r, rank) => {
      const ours = r.our_floor === null ? null : BigInt(r.our_floor);
      const theirs = BigInt(r.floor_global);
      const floor = ours !== null && ours < theirs ? ours : theirs;
      return { collectionAddress: r.address, volume24hGlobal: r.volume, floorGlobal: floor.toString(), points: points[rank]! };
    });
  }

  return { topListingRewards, upsertMarketData: createMarketDataService(deps).upsertMarketData };
}

export type ListingRewardsService = ReturnType<typeof createListingRewardsService>;
