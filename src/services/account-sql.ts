// An account's side of the market as SQL shared by the read engine (src/read-engine/account-reads.ts)
// and the resolver path (./accounts.ts): which offers it could fill, which tokens it holds and
// what they are worth. Ownership is the indexed token_balances; the book is token-sql.ts's rules.
import { bidBranchSql, live, liveAskSql, type BookParams } from './token-sql.js';

/** A page's share of offersReceivedSql: how many rows it reads, in which direction, past which bounds. */
export interface OfferPageScan {
  /** rows the page reads (its size plus one, to know whether more follow) */
  rows: number;
  /** the scan of a page counted from the end (lowest price first) */
  reversed: boolean;
  /** the keyset conditions of its cursors over any orders alias (offersKeysetSql) */
  bounds: (x: string) => string[];
}

/**
 * The live bids the account could fill, over the orders alias `o`: token offers (fixed-price
 * strategies) on a token it holds and collection offers on a collection where it holds a token,
 * in each case at least the offer's amount (an order fills whole), never its own orders.
 * The candidates are found from its holdings (of `collection` only, when given) along the token
 * offers' and the collection offers' indexes (per token held, per collection held), not by reading
 * the book of every collection. With `page`, each held token and collection gives only its first
 * `rows` offers in the page's order past its bounds (and the rows tied with the last on price): a
 * page of the best offers is among them, and a collection with thousands of collection offers is
 * not read whole for a page of ten (4,510 candidates and 22 ms for a wallet of 50 tokens at 10M
 * orders). The candidates then pass the outer conditions already, so only the page's first
 * `rows` of them, in the page's order by the price and id the probes read, are looked up again
 * by id (599 candidates and 2.8 ms of a 7.3 ms statement at 10M orders when each was).
 * Without `page` (the count), every offer.
 */
export function offersReceivedSql(o: string, b: BookParams, account: string, page?: OfferPageScan, collection?: string): string {
  const bid = (x: string) => `NOT ${x}.is_order_ask AND ${x}.status = 'VALID'`;
  const first = (x: string) =>
    page ? ` AND ${live(x, b)} AND ${x}.signer <> ${account}${page.bounds(x).map((c) => ` AND ${c}`).join('')} ORDER BY ${x}.price ${page.reversed ? 'ASC' : 'DESC'} FETCH FIRST ${page.rows} ROWS WITH TIES` : '';
  const tokenOffers = (x: string) =>
    `SELECT ${x}.id, ${x}.price FROM orders ${x} WHERE ${x}.collection_address = hb.collection_address AND ${x}.token_id = hb.token_id AND ${bid(x)} ` +
    `AND ${x}.strategy = ANY(${b.standardSale()}) AND ${x}.amount <= hb.balance${first(x)}`;
  const collectionOffers = (x: string) =>
    `SELECT ${x}.id, ${x}.price FROM orders ${x} WHERE ${x}.collection_address = hc.collection_address AND ${x}.token_id IS NULL AND NOT ${x}.is_order_ask AND ${x}.status = 'VALID' ` +
    `AND ${x}.strategy = ANY(${b.collectionOffer()}) AND ${x}.amount <= hc.most${first(x)}`;
  const held = (h: string) => `${h}.owner = ${account} AND ${h}.balance > 0${collection ? ` AND ${h}.collection_address = ${collection}` : ''}`;
  const candidates =
    `SELECT x.id, x.price FROM token_balances hb CROSS JOIN LATERAL (${tokenOffers('xt')}) x WHERE ${held('hb')} ` +
    `UNION ALL SELECT x.id, x.price FROM (SELECT hc.collection_address, max(hc.balance) AS most FROM token_balances hc WHERE ${held('hc')} GROUP BY hc.collection_address) hc ` +
    `CROSS JOIN LATERAL (${collectionOffers('xc')}) x`;
  const ids = page ? `SELECT c.id FROM (${candidates}) c ORDER BY ${offersReceivedOrderSql('c', page.reversed)} LIMIT ${page.rows}` : `SELECT c.id FROM (${candidates}) c`;
  return `NOT ${o}.is_order_ask AND ${live(o, b)} AND ${o}.signer <> ${account} AND ${o}.id IN (${ids})`;
}

/** Best first: the highest price, then the oldest order (`reversed`: the scan of a page counted from the end). */
export const offersReceivedOrderSql = (o: string, reversed = false) => (reversed ? `${o}.price ASC, ${o}.id DESC` : `${o}.price DESC, ${o}.id ASC`);

/** The offers after (or before) the one with hash `hash` in that order. */
export const offersKeysetSql = (o: string, side: 'after' | 'before', hash: string) =>
  `(${o}.price, -${o}.id) ${side === 'after' ? '<' : '>'} (SELECT k.price, -k.id FROM orders k WHERE k.hash = ${hash})`;

/** The account's holdings (balance > 0): `collection_address`, `token_id`, `balance`; one collection when given. */
export function holdingRowsSql(account: string, collection?: string): string {
  return (
    `SELECT h.collection_address, h.token_id, h.balance FROM token_balances h WHERE h.owner = ${account} AND h.balance > 0` +
    (collection ? ` AND h.collection_address = ${collection}` : '')
  );
}

/** Holdings by collection address (code-unit order, as in JavaScript), then token id (`reversed`: the scan of a page counted from the end). */
export const holdingOrderSql = (r: string, reversed = false) => {
  const dir = reversed ? 'DESC' : 'ASC';
  return `${r}.collection_address COLLATE "C" ${dir}, ${r}.token_id ${dir}`;
};

/** A holding's cursor: `<collection>:<token id>`. */
export const holdingCursorSql = (r: string) => `${r}.collection_address || ':' || ${r}.token_id::text`;

const HOLDING_CURSOR = /^(0x[0-9a-fA-F]{40}):(0|[1-9][0-9]{0,77})$/;
export function parseHoldingCursor(cursor: string): { collection: string; tokenId: string } | null {
  const m = HOLDING_CURSOR.exec(cursor);
  return m && BigInt(m[2]!) < 1n << 256n ? { collection: m[1]!, tokenId: m[2]! } : null;
}

/** The holdings after (or before) the cursor in holdingOrderSql; `collection` a text parameter, `tokenId` a numeric one. */
export const holdingKeysetSql = (r: string, side: 'after' | 'before', collection: string, tokenId: string) => {
  const cmp = side === 'after' ? '>' : '<';
  return `(${r}.collection_address COLLATE "C" ${cmp} ${collection} COLLATE "C" OR (${r}.collection_address = ${collection} AND ${r}.token_id ${cmp} ${tokenId}))`;
};

/** The collection's floor: its cheapest live fixed-price listing (src/db/floor-sql.ts's rule, now). */
export const floorPriceSql = (b: BookParams, collection: string) => `(SELECT min(f.price) FROM orders f WHERE ${liveAskSql('f', b, collection)})`;

/** The highest live bid price of one branch of a token's bids: its token offers, or (tokenId null) its collection's offers. */
function bestOfBranchSql(b: BookParams, collection: string, tokenId: string | null): string {
  // ORDER BY ... LIMIT 1 rather than max(): the planner then walks the index backwards and stops
  // at the first live row instead of reading every bid of the collection (845 rows, 1.4 ms a token)
  return `(SELECT x.price FROM orders x WHERE ${bidBranchSql('x', b, collection, tokenId)} ORDER BY x.price DESC LIMIT 1)`;
}

/**
 * The token's best bid price (Token.bestBid's price): the higher of its best token offer and the
 * collection's best collection offer, each the first live row of an index read backwards.
 */
export const bestBidPriceSql = (b: BookParams, collection: string, tokenId: string) => `greatest(${bestOfBranchSql(b, collection, tokenId)}, ${bestOfBranchSql(b, collection, null)})`;

/**
 * The totals over every holding of the rows (not the page): the value at the floor and at the
 * best bid, each a price times the balance; a holding without a floor or a bid adds nothing.
 * The floor and the best collection offer are read once per collection held.
 */
export function holdingTotalsSql(b: BookParams, rows: string): { atFloor: string; atBestBid: string } {
  const atFloor = `(SELECT COALESCE(sum(${floorPriceSql(b, 'c.collection_address')} * c.n), 0) FROM (SELECT r.collection_address, sum(r.balance) AS n FROM (${rows}) r GROUP BY r.collection_address) c)`;
  // A join, not a MATERIALIZED CTE: PostgreSQL may read a collection's best offer once per token
  // joined to it rather than once per collection (a few more index probes), but the CTE inside
  // this correlated sub-select made the wallet page's statement cost 50 % more (pgbench, prepared,
  // custom plans: 290-300 against 455-460 statements/s on the 100k bench market).
  const atBestBid =
    `(SELECT COALESCE(sum(greatest(${bestOfBranchSql(b, 'r.collection_address', 'r.token_id')}, c.best) * r.balance), 0) FROM (${rows}) r ` +
    `JOIN (SELECT d.collection_address, ${bestOfBranchSql(b, 'd.collection_address', null)} AS best FROM (SELECT DISTINCT r.collection_address FROM (${rows}) r) d) c ON c.collection_address = r.collection_address)`;
  return { atFloor, atBestBid };
}
