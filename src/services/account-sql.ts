// An account's side of the market as SQL shared by the read engine (src/read-engine/account-reads.ts)
// and the resolver path (./accounts.ts): which offers it could fill, which tokens it holds and
// what they are worth. Ownership is the indexed token_balances; the book is token-sql.ts's rules.
import { bestBidIdSql, liveAskSql, type BookParams } from './token-sql.js';

/**
 * The live bids the account could fill, over the orders alias `o`: token offers (fixed-price
 * strategies) on a token it holds and collection offers on a collection where it holds a token,
 * in each case at least the offer's amount (an order fills whole), never its own orders.
 */
export function offersReceivedSql(o: string, b: BookParams, account: string): string {
  return (
    `NOT ${o}.is_order_ask AND ${o}.status = 'VALID' AND ${o}.start_time <= ${b.now()} AND ${o}.end_time >= ${b.now()} AND ${o}.signer <> ${account} ` +
    `AND ((${o}.token_id IS NOT NULL AND ${o}.strategy = ANY(${b.standardSale()})) OR (${o}.token_id IS NULL AND ${o}.strategy = ANY(${b.collectionOffer()}))) ` +
    // the collections first (token_balances_owner_idx), so the book is read per collection held
    `AND ${o}.collection_address IN (SELECT hc.collection_address FROM token_balances hc WHERE hc.owner = ${account} AND hc.balance > 0) ` +
    `AND EXISTS (SELECT 1 FROM token_balances hb WHERE hb.owner = ${account} AND hb.collection_address = ${o}.collection_address ` +
    `AND (${o}.token_id IS NULL OR hb.token_id = ${o}.token_id) AND hb.balance >= ${o}.amount)`
  );
}

/** Best first: the highest price, then the oldest order. */
export const offersReceivedOrderSql = (o: string) => `${o}.price DESC, ${o}.id ASC`;

/** The offers after the one with hash `hash` in that order. */
export const offersAfterSql = (o: string, hash: string) => `(${o}.price, -${o}.id) < (SELECT k.price, -k.id FROM orders k WHERE k.hash = ${hash})`;

/** The account's holdings (balance > 0): `collection_address`, `token_id`, `balance`; one collection when given. */
export function holdingRowsSql(account: string, collection?: string): string {
  return (
    `SELECT h.collection_address, h.token_id, h.balance FROM token_balances h WHERE h.owner = ${account} AND h.balance > 0` +
    (collection ? ` AND h.collection_address = ${collection}` : '')
  );
}

/** Holdings by collection address (code-unit order, as in JavaScript), then token id. */
export const holdingOrderSql = (r: string) => `${r}.collection_address COLLATE "C" ASC, ${r}.token_id ASC`;

/** A holding's cursor: `<collection>:<token id>`. */
export const holdingCursorSql = (r: string) => `${r}.collection_address || ':' || ${r}.token_id::text`;

const HOLDING_CURSOR = /^(0x[0-9a-fA-F]{40}):(0|[1-9][0-9]{0,77})$/;
export function parseHoldingCursor(cursor: string): { collection: string; tokenId: string } | null {
  const m = HOLDING_CURSOR.exec(cursor);
  return m && BigInt(m[2]!) < 1n << 256n ? { collection: m[1]!, tokenId: m[2]! } : null;
}

/** The holdings after the cursor in holdingOrderSql; `collection` a text parameter, `tokenId` a numeric one. */
export const holdingAfterSql = (r: string, collection: string, tokenId: string) =>
  `(${r}.collection_address COLLATE "C" > ${collection} COLLATE "C" OR (${r}.collection_address = ${collection} AND ${r}.token_id > ${tokenId}))`;

/** The collection's floor: its cheapest live fixed-price listing (src/db/floor-sql.ts's rule, now). */
export const floorPriceSql = (b: BookParams, collection: string) => `(SELECT min(f.price) FROM orders f WHERE ${liveAskSql('f', b, collection)})`;

/** The token's best bid price: the higher of its best token offer and the collection's best collection offer. */
export const bestBidPriceSql = (b: BookParams, collection: string, tokenId: string) => `(SELECT bb.price FROM orders bb WHERE bb.id = ${bestBidIdSql(b, collection, tokenId)})`;

/**
 * The totals over every holding of the rows (not the page): the value at the floor and at the
 * best bid, each a price times the balance; a holding without a floor or a bid adds nothing.
 */
export function holdingTotalsSql(b: BookParams, rows: string): { atFloor: string; atBestBid: string } {
  const sum = (price: string) => `(SELECT COALESCE(sum(${price} * r.balance), 0) FROM (${rows}) r)`;
  return { atFloor: sum(floorPriceSql(b, 'r.collection_address')), atBestBid: sum(bestBidPriceSql(b, 'r.collection_address', 'r.token_id')) };
}
