// "A token carrying these traits" as SQL, one rule for every page that filters by traits: the
// token page (./token-sql.ts), the order book (./order-page-sql.ts) and the activity
// (./activity-sql.ts), in the read engine and on the resolver path alike. OR within a trait
// type's values, AND across trait types; a row without a token (a collection offer, a
// collection's floor move) never matches.
import type { TraitCondition } from '../domain/token-filter.js';

type Add = (value: unknown, cast: string) => string;

/**
 * One predicate per condition over the token (`collection`, `tokenId`: SQL over the row). `probe`:
 * a scalar sub-select that stops at the token's first matching row, which the planner cannot turn
 * into a join over every token of the value, so a page sorted by another key walks its candidates
 * and stops when it is full (the token page); `exists`: a plain EXISTS the planner may run as a
 * semi-join when the value is rare (orders and events, whose pages mix tokens).
 */
export function traitConditionsSql(conditions: readonly TraitCondition[], collection: string, tokenId: string, add: Add, form: 'probe' | 'exists' = 'exists'): string[] {
  return conditions.map((c) => {
    const rows =
      `FROM token_attributes x WHERE x.collection_address = ${collection} AND x.token_id = ${tokenId} ` +
      `AND x.trait_type = ${add(c.traitType, '::text')} AND x.value = ANY(${add(c.values, '::text[]')})`;
    return form === 'probe' ? `COALESCE((SELECT true ${rows} LIMIT 1), false)` : `EXISTS (SELECT 1 ${rows})`;
  });
}
