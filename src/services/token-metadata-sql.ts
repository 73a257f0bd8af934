// Token metadata as SQL shared by the read engine (src/read-engine/token-reads.ts,
// src/read-engine/trait-reads.ts) and the resolver path (./token-metadata.ts), so the two cannot
// disagree on a rule: which traits a token shows and how many tokens share each, and a
// collection's trait panel with each value's floor and best bid, read from the live book at
// request time (exact at every moment: nothing is kept that a listing, a cancel, a fill, a
// transfer or the clock could leave behind).
import { bidBranchSql, live, type BookParams } from './token-sql.js';

/** The token_metadata row of the token row `t` (collection_address, token_id), as `FROM ... WHERE ...` over alias `m`. */
export const metadataRowSql = (t: string, m: string) =>
  `FROM token_metadata ${m} WHERE ${m}.collection_address = ${t}.collection_address AND ${m}.token_id = ${t}.token_id`;

/**
 * A token's traits with their collection counts, over alias `a` (token_attributes) and `v`
 * (trait_values), for the token_metadata row `m`; in document order.
 */
export const tokenAttributesFromSql = (m: string, a: string, v: string) =>
  `FROM token_attributes ${a} LEFT JOIN trait_values ${v} ON ${v}.collection_address = ${a}.collection_address AND ${v}.trait_type = ${a}.trait_type AND ${v}.value = ${a}.value ` +
  `WHERE ${a}.collection_address = ${m}.collection_address AND ${a}.token_id = ${m}.token_id`;
export const TOKEN_ATTRIBUTE_ORDER = (a: string) => `${a}.position, ${a}.trait_type COLLATE "C", ${a}.value COLLATE "C"`;

/** Tokens of the collection showing a document: the base of a trait value's share (and OpenRarity's N). */
export const documentedTokensSql = (collection: string) =>
  `(SELECT count(*) FROM token_metadata d WHERE d.collection_address = ${collection} AND d.document_sha256 IS NOT NULL)`;

/**
 * One row per trait value of a collection, in panel order (trait type, then most common value
 * first, then value): trait_type, kind, value, token_count, number_value, share_percent (of the
 * tokens showing a document, rounded to 4 places), listed_count (tokens with a live listing),
 * floor_price (the cheapest live fixed-price listing among them) and best_bid_price (the highest
 * live offer that can fill one of them: a token offer on one of them, or a collection offer).
 * Read from the live book in one pass over the collection's live fixed-price orders that name a
 * token (reduced to each token's cheapest ask and highest token offer), then one join to the
 * traits of those tokens; the collection offers are one probe.
 */
export function traitValueRowsSql(b: BookParams, collection: string): string {
  // the asks of liveAskSql and the token offers of bidBranchSql, both fixed-price and naming a token
  const perToken =
    `SELECT l.token_id, min(l.price) FILTER (WHERE l.is_order_ask) AS ask, max(l.price) FILTER (WHERE NOT l.is_order_ask) AS bid FROM orders l ` +
    `WHERE l.collection_address = ${collection} AND l.token_id IS NOT NULL AND ${live('l', b)} AND l.strategy = ANY(${b.standardSale()}) GROUP BY l.token_id`;
  const book =
    `SELECT fa.trait_type, fa.value, min(fl.ask) AS floor_price, count(fl.ask) AS listed, max(fl.bid) AS bid FROM (${perToken}) fl ` +
    `JOIN token_attributes fa ON fa.collection_address = ${collection} AND fa.token_id = fl.token_id GROUP BY fa.trait_type, fa.value`;
  const collectionBid = `(SELECT max(co.price) FROM orders co WHERE ${bidBranchSql('co', b, collection, null)})`;
  return (
    `SELECT v.trait_type, v.kind, v.value, v.token_count, v.number_value, ` +
    `round(v.token_count * 100.0 / greatest(${documentedTokensSql(collection)}, 1), 4)::float8 AS share_percent, ` +
    `COALESCE(f.listed, 0) AS listed_count, f.floor_price, ` +
    `CASE WHEN f.bid IS NULL THEN cb.price WHEN cb.price IS NULL THEN f.bid ELSE greatest(f.bid, cb.price) END AS best_bid_price ` +
    `FROM trait_values v CROSS JOIN (SELECT ${collectionBid} AS price) cb ` +
    `LEFT JOIN (${book}) f ON f.trait_type = v.trait_type AND f.value = v.value ` +
    `WHERE v.collection_address = ${collection} AND v.token_count > 0`
  );
}
export const TRAIT_VALUE_ORDER = (r: string) => `${r}.token_count DESC, ${r}.value COLLATE "C"`;
