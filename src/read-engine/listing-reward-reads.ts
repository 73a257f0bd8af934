// The read engine's declaration and root planner for listing rewards (the resolver they stand
// for: src/schema/listing-rewards.ts). A row is one row of rewardRowsSql
// (src/services/listing-rewards.ts), so the ranking, the points and the floor rule are written
// once; the collection page asks for them beside the collection, in the same statement.
// Written against ./read-type.ts only: the declarations (./read-types.ts) and the planner import it.
import type { FieldNode } from 'graphql';
import type { Context } from '../context.js';
import { jsonInt, jsonString, orUnrenderable } from './json-sql.js';
import type { Planner, ReadType } from './read-type.js';

export const LISTING_REWARD_TYPE: ReadType = {
  // rows come from rewardRowsSql (planListingRewards below), over the operator's market data
  table: 'global_market_data',
  fields: {
    collection: { kind: 'object', type: 'Collection', columns: [], from: (t, a) => `FROM collections ${a} WHERE ${a}.address = ${t}.address`, nullable: false },
    volume24hGlobal: { kind: 'leaf', columns: [], json: (t) => jsonString(`${t}.volume_24h_global`) },
    points: { kind: 'leaf', columns: [], json: (t) => jsonInt(`${t}.points`) },
    floorGlobal: { kind: 'leaf', columns: [], json: (t) => jsonString(`${t}.floor`) },
  },
};

/** Query.listingRewards: the ranked entries as a JSON array, or null when the program is off. */
export function planListingRewards(p: Planner, nodes: readonly FieldNode[], _args: Record<string, unknown>, ctx: Context): string {
  const rows = ctx.services.listingRewards.rewardRowsSql((v, cast) => p.params.add(v, cast), p.params.at);
  if (rows === null) return `'null'`;
  const r = p.alias('r');
  const item = p.object('ListingRewardCollection', nodes, r);
  return `(SELECT '[' || COALESCE(string_agg(${orUnrenderable(item)}, ',' ORDER BY ${r}.rank), '') || ']' FROM (${rows}) ${r})`;
}
