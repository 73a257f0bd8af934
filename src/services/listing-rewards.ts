// Listing rewards (spec 2.8): the top 5 verified collections by 24h volume on the other
// marketplace, among those whose operator-fed market data is fresh. Points per snapshot come
// from configuration by rank. floorGlobal is the lower of that marketplace's floor and ours.
// The market data comes from the operator feed in ./market-data.ts, exposed here because it
// exists for this program (one service object for the mutation, the CLI and the read).
import type { StatementBatch } from '../db/statement-batch.js';
import { clockParams, unixSeconds, type AddClockParam } from './clock-param.js';
import { readDb, type ServiceDeps } from './deps.js';
import { createMarketDataService } from './market-data.js';

export interface ListingRewardEntry {
  collectionAddress: string;
  volume24hGlobal: string;
  floorGlobal: string;
  points: number;
}

/** A statement parameter for a value: `add(value, cast)` returns its placeholder (`$3::bigint`). */
export type AddParam = (value: unknown, cast?: string) => string;

export function createListingRewardsService(deps: ServiceDeps) {
  /**
   * The program's rows, best first, as a SELECT a reader can wrap: `address`, `volume_24h_global`
   * (text), `floor` (text: the lower of that marketplace's floor and ours), `points`, `rank`
   * (1-based). null when the program is off. Both the resolver (below) and the read engine
   * (src/read-engine/listing-reward-reads.ts) read these rows, so the rule is written once.
   */
  function rewardRowsSql(add: AddParam, at: AddClockParam): string | null {
    const { enabled, points, maxAgeSeconds } = deps.config.listingRewards;
    if (!enabled) return null;
    const nowSeconds = at(unixSeconds, '::bigint');
    const since = at((now) => new Date(now.getTime() - maxAgeSeconds * 1000).toISOString(), '::timestamptz');
    const standard = add(deps.network.strategies.standardSale, '::text[]');
    const pointsByRank = add(points, '::int[]');
    return `SELECT r.address, r.volume_24h_global::text AS volume_24h_global,
         LEAST(r.our_floor, r.floor_global)::text AS floor, (${pointsByRank})[r.rank] AS points, r.rank
       FROM (SELECT g.collection_address AS address, g.volume_24h_global, g.floor_global,
               (SELECT MIN(o.price) FROM orders o
                 WHERE o.collection_address = g.collection_address AND o.is_order_ask AND o.status = 'VALID'
                   AND o.end_time >= ${nowSeconds} AND o.start_time <= ${nowSeconds} AND o.strategy = ANY(${standard})) AS our_floor,
               row_number() OVER (ORDER BY g.volume_24h_global DESC, g.collection_address ASC)::int AS rank
             FROM global_market_data g JOIN collections c ON c.address = g.collection_address
            WHERE c.is_verified AND g.observed_at >= ${since}
            ORDER BY g.volume_24h_global DESC, g.collection_address ASC
            LIMIT ${points.length}) r`;
  }

  /** null when the program is switched off; otherwise up to 5 entries, best first. */
  /** `runner`: a request's statement batch (the statement is JSON-safe: amounts cast to text). */
  async function topListingRewards(runner: StatementBatch = readDb(deps).sql): Promise<ListingRewardEntry[] | null> {
    const values: unknown[] = [];
    const add: AddParam = (v, cast = '') => `$${values.push(v)}${cast}`;
    const rowsSql = rewardRowsSql(add, clockParams(add, deps.now()));
    if (rowsSql === null) return null;
    const rows = await runner.query<{ address: string; volume_24h_global: string; floor: string; points: number }>(`${rowsSql} ORDER BY r.rank`, values);
    return rows.map((r) => ({ collectionAddress: r.address, volume24hGlobal: r.volume_24h_global, floorGlobal: r.floor, points: r.points }));
  }

  return { topListingRewards, rewardRowsSql, upsertMarketData: createMarketDataService(deps).upsertMarketData };
}

export type ListingRewardsService = ReturnType<typeof createListingRewardsService>;
