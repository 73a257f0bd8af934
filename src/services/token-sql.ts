// Which orders make a token's market and a book's depth, as SQL shared by the read engine
// (src/read-engine/token-reads.ts) and the resolver path (./tokens.ts), so the two cannot
// disagree on the rule; test/read-engine/ holds their answers equal, test/services/tokens.test.ts
// holds the rule to hand-computed books.
//
// Live means what the floor and Collection.topBid mean: status VALID, started, not ended.
// Asks count only fixed-price listings (standard sale strategies): a private sale names its one
// buyer and a Dutch auction's signed price is its floor, not what a taker pays now, so neither is
// a price anyone can buy at (the floor excludes them the same way, src/db/floor-sql.ts).
// Bids count the offers that can fill the token: standard-sale token offers on it and the
// collection's collection offers (StrategyAnyItemFromCollectionForFixedPrice, any token id).

import { traitConditionsSql } from './trait-conditions-sql.js';
import { highestOldestSql } from '../db/highest-oldest-sql.js';
import { hasTraitFilter, type TokenTraitFilter } from '../domain/token-filter.js';

/** SQL of the request's clock and of the network's strategy lists, each a statement parameter. */
export interface BookParams {
  now: () => string;
  /** varchar[] of network.strategies.standardSale */
  standardSale: () => string;
  /** varchar[] of network.strategies.collectionOffer */
  collectionOffer: () => string;
}

export const BOOK_SIDES = ['ASK', 'BID'] as const;
export type BookSide = (typeof BOOK_SIDES)[number];

/** Live: VALID, started, not ended, over the orders alias `o`. */
export const live = (o: string, b: BookParams) => `${o}.status = 'VALID' AND ${o}.start_time <= ${b.now()} AND ${o}.end_time >= ${b.now()}`;

/** The live asks of a collection (or of one token), over the orders alias `o`. */
export function liveAskSql(o: string, b: BookParams, collection: string, tokenId?: string): string {
  return `${o}.collection_address = ${collection}${tokenId ? ` AND ${o}.token_id = ${tokenId}` : ''} AND ${o}.is_order_ask AND ${live(o, b)} AND ${o}.strategy = ANY(${b.standardSale()})`;
}

/**
 * The live bids of a collection, or those that can fill one token: its token offers and the
 * collection's offers.
 */
export function liveBidSql(o: string, b: BookParams, collection: string, tokenId?: string): string {
  const token = tokenId ? `${o}.token_id = ${tokenId}` : `${o}.token_id IS NOT NULL`;
  return (
    `${o}.collection_address = ${collection} AND NOT ${o}.is_order_ask AND ${live(o, b)} AND ` +
    `((${token} AND ${o}.strategy = ANY(${b.standardSale()})) OR (${o}.token_id IS NULL AND ${o}.strategy = ANY(${b.collectionOffer()})))`
  );
}

export const liveSideSql = (side: BookSide, o: string, b: BookParams, collection: string, tokenId?: string) =>
  side === 'ASK' ? liveAskSql(o, b, collection, tokenId) : liveBidSql(o, b, collection, tokenId);

/** When a listing was listed: when it went live here (stored, or its signed start if later). */
export const listedAtSql = (o: string) => `greatest(floor(extract(epoch FROM ${o}.created_at))::bigint, ${o}.start_time)`;

/**
 * One branch of the bids that can fill a token, over the orders alias `x`: its live token offers
 * (fixed-price strategies), or (`tokenId` null) its collection's live collection offers.
 */
export function bidBranchSql(x: string, b: BookParams, collection: string, tokenId: string | null): string {
  const token = tokenId === null ? `${x}.token_id IS NULL` : `${x}.token_id = ${tokenId}`;
  const strategies = tokenId === null ? b.collectionOffer() : b.standardSale();
  return `${x}.collection_address = ${collection} AND ${token} AND NOT ${x}.is_order_ask AND ${live(x, b)} AND ${x}.strategy = ANY(${strategies})`;
}

/**
 * The id of a token's best bid: the higher of its best token offer (the first live row of one
 * forward probe of orders_token_bid_best_idx, kept in price DESC, id ASC order) and the
 * collection's best offer (two probes of orders_collection_offer_price_idx:
 * src/db/highest-oldest-sql.ts); ties go to the oldest order.
 */
export function bestBidIdSql(b: BookParams, collection: string, tokenId: string): string {
  const tokenOffer = `(SELECT x.id, x.price FROM orders x WHERE ${bidBranchSql('x', b, collection, tokenId)} ORDER BY x.price DESC, x.id ASC LIMIT 1)`;
  const collectionOffer = `(SELECT x.id, x.price FROM orders x ${highestOldestSql('x', (x) => bidBranchSql(x, b, collection, null))})`;
  return `(SELECT y.id FROM (${tokenOffer} UNION ALL ${collectionOffer}) y ORDER BY y.price DESC, y.id ASC LIMIT 1)`;
}

/**
 * One row per token of a collection: `collection_address`, `token_id`, and its best live ask
 * (`ask_id`, `ask_price`, `listed_at`; null when unlisted). `listed`: true = listed tokens only
 * (read from the live asks alone), false = unlisted ones, null = every known token (ever held,
 * per token_balances, or named by an order). `tokenId`: that token only.
 */
export function tokenRowsSql(b: BookParams, collection: string, opts: { listed: boolean | null; tokenId?: string }): string {
  if (opts.tokenId !== undefined) return oneTokenRowSql(b, collection, opts.tokenId, opts.listed);
  const asks =
    `SELECT DISTINCT ON (a.token_id) a.collection_address, a.token_id, a.id AS ask_id, a.price AS ask_price, ${listedAtSql('a')} AS listed_at ` +
    `FROM orders a WHERE ${liveAskSql('a', b, collection)} ORDER BY a.token_id, a.price, a.id`;
  if (opts.listed === true) return asks;
  // each side deduplicated before the union: the union then sorts tokens, not every order (3.5x
  // faster at 200k orders of one collection)
  const known =
    `(SELECT DISTINCT k.collection_address, k.token_id FROM token_balances k WHERE k.collection_address = ${collection} AND k.balance > 0) ` +
    `UNION (SELECT DISTINCT k.collection_address, k.token_id FROM orders k WHERE k.collection_address = ${collection} AND k.token_id IS NOT NULL)`;
  return (
    `SELECT n.collection_address, n.token_id, l.ask_id, l.ask_price, l.listed_at FROM (${known}) n ` +
    `LEFT JOIN (${asks}) l ON l.token_id = n.token_id${opts.listed === false ? ' WHERE l.ask_id IS NULL' : ''}`
  );
}

/**
 * tokenRowsSql for one token: its row when it is known (a first row of either source, not every
 * order naming it) and its cheapest live ask as the first row of orders_token_side_price_idx (not
 * every live ask of the token sorted: 2,469 of them, 14 ms, for the busiest token at 10M orders).
 */
function oneTokenRowSql(b: BookParams, collection: string, tokenId: string, listed: boolean | null): string {
  const ask =
    `SELECT a.collection_address, a.token_id, a.id AS ask_id, a.price AS ask_price, ${listedAtSql('a')} AS listed_at ` +
    `FROM orders a WHERE ${liveAskSql('a', b, collection, tokenId)} ORDER BY a.price, a.id LIMIT 1`;
  if (listed === true) return ask;
  const known =
    `SELECT u.collection_address, u.token_id FROM (` +
    `(SELECT k.collection_address, k.token_id FROM token_balances k WHERE k.collection_address = ${collection} AND k.token_id = ${tokenId} AND k.balance > 0 LIMIT 1) ` +
    `UNION ALL (SELECT k.collection_address, k.token_id FROM orders k WHERE k.collection_address = ${collection} AND k.token_id = ${tokenId} LIMIT 1)) u LIMIT 1`;
  return (
    `SELECT n.collection_address, n.token_id, l.ask_id, l.ask_price, l.listed_at FROM (${known}) n ` +
    `LEFT JOIN LATERAL (${ask}) l ON true${listed === false ? ' WHERE l.ask_id IS NULL' : ''}`
  );
}

export const TOKEN_SORTS = ['PRICE_ASC', 'PRICE_DESC', 'TOKEN_ID', 'RARITY'] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];

/**
 * A token page's rows: tokenRowsSql, narrowed by the trait filter (each condition one EXISTS over
 * token_attributes_value_idx or the token's metadata row) and, sorted by RARITY, with the token's
 * OpenRarity rank (`rarity_rank`, null when unranked). `add(value, cast)` makes a parameter.
 */
export function tokenPageRowsSql(
  b: BookParams,
  collection: string,
  opts: { listed: boolean | null; sort: TokenSort; filter: TokenTraitFilter },
  add: (value: unknown, cast: string) => string,
): string {
  if (!hasTraitFilter(opts.filter) && opts.sort !== 'RARITY') return tokenRowsSql(b, collection, { listed: opts.listed });
  const f = opts.filter;
  // Each trait condition is a probe of the token's own rows (token_attributes_pkey) that stops at
  // the first match: a scalar sub-select the planner cannot turn into a join over every token of
  // the value, so a page walks its candidates and stops when it is full.
  const probe = (t: string, where: string) => `COALESCE((SELECT true FROM token_attributes x WHERE x.collection_address = ${collection} AND x.token_id = ${t}.token_id AND ${where} LIMIT 1), false)`;
  const conds = (t: string) => [
    ...traitConditionsSql(f.attributes, collection, `${t}.token_id`, add, 'probe'),
    ...f.ranges.map((r) =>
      probe(
        t,
        `x.trait_type = ${add(r.traitType, '::text')} AND x.kind <> 'STRING'` +
          `${r.min === null ? '' : ` AND x.number_value >= ${add(r.min, '::float8')}`}${r.max === null ? '' : ` AND x.number_value <= ${add(r.max, '::float8')}`}`,
      ),
    ),
    // a LIKE pattern with its wildcards escaped: the text is matched as written, any letter case
    ...(f.name === null
      ? []
      : [`lower(rk.name) LIKE '%' || replace(replace(replace(lower(${add(f.name, '::text')}), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`]),
    ...(f.rarityRank ? [`rk.rarity_rank IS NOT NULL${f.rarityRank.min === null ? '' : ` AND rk.rarity_rank >= ${add(f.rarityRank.min, '::int')}`}${f.rarityRank.max === null ? '' : ` AND rk.rarity_rank <= ${add(f.rarityRank.max, '::int')}`}`] : []),
  ];
  const ranked = (t: string) => `LEFT JOIN token_metadata rk ON rk.collection_address = ${t}.collection_address AND rk.token_id = ${t}.token_id`;
  if (opts.listed === true) {
    // Listed tokens as their best asks: each live ask that no cheaper (then older) live ask of its
    // token beats, the same row DISTINCT ON picks in tokenRowsSql, but a plain filtered scan, so a
    // page by price walks the collection's asks in price order and stops when it is full.
    const better =
      `SELECT 1 FROM orders w WHERE ${liveAskSql('w', b, collection, 'a.token_id')} AND (w.price < a.price OR (w.price = a.price AND w.id < a.id))`;
    const where = [liveAskSql('a', b, collection), `NOT EXISTS (${better})`, ...conds('a')];
    return (
      `SELECT a.collection_address, a.token_id, a.id AS ask_id, a.price AS ask_price, ${listedAtSql('a')} AS listed_at, rk.rarity_rank FROM orders a ` +
      `${ranked('a')} WHERE ${where.join(' AND ')}`
    );
  }
  const all = conds('f');
  return (
    `SELECT f.collection_address, f.token_id, f.ask_id, f.ask_price, f.listed_at, rk.rarity_rank FROM (${tokenRowsSql(b, collection, { listed: opts.listed })}) f ` +
    `${ranked('f')}${all.length ? ` WHERE ${all.join(' AND ')}` : ''}`
  );
}

/** The column a sort pages by beside the token id: the best ask's price, or the rarity rank. */
const sortKey = (sort: TokenSort) => (sort === 'RARITY' ? 'rarity_rank' : 'ask_price');

/**
 * ORDER BY of a token page over the rows alias `r`; unlisted tokens last in the price sorts
 * (`reversed`: the scan of a page counted from the end).
 */
export function tokenOrderSql(sort: TokenSort, r: string, reversed = false, listedOnly = false): string {
  const [asc, desc] = reversed ? ['DESC', 'ASC'] : ['ASC', 'DESC'];
  if (sort === 'TOKEN_ID') return `${r}.token_id ${asc}`;
  const k = `${r}.${sortKey(sort)}`;
  // listed rows all have an ask: without the null key the order can come from a price index
  if (listedOnly && sort !== 'RARITY') return `${k} ${sort === 'PRICE_DESC' ? desc : asc}, ${r}.token_id ${asc}`;
  return `(${k} IS NULL) ${asc}, ${k} ${sort === 'PRICE_DESC' ? desc : asc}, ${r}.token_id ${asc}`;
}

/** A token cursor: the row's sort key as it was on the page (`<ask price or rank>:<token id>`, `-` for none). */
export interface TokenCursor {
  price: string | null;
  tokenId: string;
}
const UINT = '(?:0|[1-9][0-9]{0,77})';
const CURSOR = new RegExp(`^(${UINT}|-):(${UINT})$`);
export const tokenCursorSql = (r: string, sort: TokenSort = 'PRICE_ASC') => `COALESCE(${r}.${sortKey(sort)}::text, '-') || ':' || ${r}.token_id::text`;
export function parseTokenCursor(cursor: string): TokenCursor | null {
  const m = CURSOR.exec(cursor);
  if (!m || BigInt(m[2]!) >= 1n << 256n || (m[1] !== '-' && BigInt(m[1]!) >= 1n << 256n)) return null;
  return { price: m[1] === '-' ? null : m[1]!, tokenId: m[2]! };
}

/** The rows after (or before) the cursor in the sort, over the rows alias `r`; `add` makes a NUMERIC parameter. */
export function tokenKeysetSql(sort: TokenSort, side: 'after' | 'before', c: TokenCursor, r: string, add: (v: string) => string): string {
  const after = side === 'after';
  const id = add(c.tokenId);
  if (sort === 'TOKEN_ID') return `${r}.token_id ${after ? '>' : '<'} ${id}`;
  const k = `${r}.${sortKey(sort)}`;
  // unlisted (unranked) rows come after every listed (ranked) one
  if (c.price === null) return after ? `(${k} IS NULL AND ${r}.token_id > ${id})` : `(${k} IS NOT NULL OR ${r}.token_id < ${id})`;
  const p = add(c.price);
  const past = (sort !== 'PRICE_DESC') === after ? '>' : '<';
  return after
    ? `(${k} IS NULL OR ${k} ${past} ${p} OR (${k} = ${p} AND ${r}.token_id > ${id}))`
    : `(${k} ${past} ${p} OR (${k} = ${p} AND ${r}.token_id < ${id}))`;
}
