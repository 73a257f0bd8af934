// The order book's read path as one SQL statement: the filter, the read-time EXPIRED rule, the
// keyset cursors (forward and backward) and the collection join, reading only the columns the
// request needs (the PostGraphile/Grafast model: plan from the selection, let PostgreSQL do the
// rest). Same rules as ./order-where.ts, which the Prisma reference path keeps using; the two
// are held equal by test/services/order-read-paths.test.ts.
import { LIVE_STATUSES, type OrderStatusName } from '../domain/order-status.js';
import type { OrderFilter, OrderQuery, OrderSort } from '../domain/order-query.js';
import { traitConditionsSql } from './trait-conditions-sql.js';

/** An order column the API can read: its SQL expression and the key it has in a row. */
export interface ColumnSpec {
  /** SQL expression over `o` (orders) or `c` (collections) */
  sql: string;
  key: string;
}

/** What to read: order columns, and the collection's (null: no join); `count`: also the total. */
export interface OrderReadPlan {
  orderColumns: readonly ColumnSpec[];
  collectionColumns: readonly ColumnSpec[] | null;
  /** the connection's totalCount is selected: one COUNT over the same filter, sent with the page */
  count?: boolean;
}

// NUMERIC and BIGINT travel as text: exact on both drivers (pg and PGlite parse them differently).
const col = (sql: string, key: string): ColumnSpec => ({ sql, key });
export const ORDER_COLUMNS = {
  hash: col('o.hash', 'hash'),
  collectionAddress: col('o.collection_address', 'collectionAddress'),
  tokenId: col('o.token_id::text', 'tokenId'),
  isOrderAsk: col('o.is_order_ask', 'isOrderAsk'),
  signer: col('o.signer', 'signer'),
  strategy: col('o.strategy', 'strategy'),
  currencyAddress: col('o.currency_address', 'currencyAddress'),
  amount: col('o.amount::text', 'amount'),
  price: col('o.price::text', 'price'),
  nonce: col('o.nonce::text', 'nonce'),
  startTime: col('o.start_time::text', 'startTime'),
  endTime: col('o.end_time::text', 'endTime'),
  minPercentageToAsk: col('o.min_percentage_to_ask', 'minPercentageToAsk'),
  params: col('o.params', 'params'),
  paramsList: col('o.params_list', 'paramsList'),
  status: col('o.status::text', 'status'),
  signature: col('o.signature', 'signature'),
  v: col('o.v', 'v'),
  r: col('o.r', 'r'),
  s: col('o.s', 's'),
  createdAt: col('o.created_at', 'createdAt'),
  updatedAt: col('o.updated_at', 'updatedAt'),
} as const;
export type OrderColumn = keyof typeof ORDER_COLUMNS;

export const COLLECTION_COLUMNS = {
  address: col('c.address', 'address'),
  owner: col('c.owner', 'owner'),
  setter: col('c.setter', 'setter'),
  admin: col('c.admin', 'admin'),
  name: col('c.name', 'name'),
  description: col('c.description', 'description'),
  symbol: col('c.symbol', 'symbol'),
  type: col('c.type::text', 'type'),
  websiteLink: col('c.website_link', 'websiteLink'),
  alphaLink: col('c.alpha_link', 'alphaLink'),
  bravoLink: col('c.bravo_link', 'bravoLink'),
  charlieLink: col('c.charlie_link', 'charlieLink'),
  deltaLink: col('c.delta_link', 'deltaLink'),
  echoLink: col('c.echo_link', 'echoLink'),
  foxtrotLink: col('c.foxtrot_link', 'foxtrotLink'),
  isVerified: col('c.is_verified', 'isVerified'),
  isExplicit: col('c.is_explicit', 'isExplicit'),
  logoURI: col('c.logo_uri', 'logoURI'),
  bannerURI: col('c.banner_uri', 'bannerURI'),
  createdAt: col('c.created_at', 'createdAt'),
  updatedAt: col('c.updated_at', 'updatedAt'),
} as const;
export type CollectionColumn = keyof typeof COLLECTION_COLUMNS;

export const ALL_ORDER_COLUMNS: readonly ColumnSpec[] = Object.values(ORDER_COLUMNS);
export const ALL_COLLECTION_COLUMNS: readonly ColumnSpec[] = Object.values(COLLECTION_COLUMNS);

/** Sort keys in list order; every sort ends on `id` so ties have one stable order (as orderByFor). */
export const SORT_KEYS: Record<OrderSort, { keys: string[]; desc: boolean }> = {
  NEWEST: { keys: ['id'], desc: true },
  EXPIRING_SOON: { keys: ['end_time', 'id'], desc: false },
  PRICE_ASC: { keys: ['price', 'id'], desc: false },
  PRICE_DESC: { keys: ['price', 'id'], desc: true },
};

/** The $n parameters of one statement, numbered in the order they are added. */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown, cast = ''): string {
    this.values.push(v);
    return `$${this.values.length}${cast}`;
  }
}

// Statuses are a closed, validated set, written as literals so the planner sees them.
const lit = (s: OrderStatusName) => `'${s}'`;
const LIVE_LIST = LIVE_STATUSES.map(lit).join(', ');

/** SQL twin of whereEffectiveStatus (./order-where.ts): spec 3, EXPIRED derived from endTime. */
function effectiveStatusSql(status: OrderStatusName, now: () => string, o: string): string {
  if (status === 'EXPIRED') return `(${o}.status = 'EXPIRED' OR (${o}.status IN (${LIVE_LIST}) AND ${o}.end_time < ${now()}))`;
  if (LIVE_STATUSES.includes(status)) return `(${o}.status = ${lit(status)} AND ${o}.end_time >= ${now()})`;
  return `${o}.status = ${lit(status)}`;
}

/** SQL twin of whereFilter (./order-where.ts), over the orders row `o` (an alias). */
/** `now`: adds the clock (unix seconds) as a parameter and returns its placeholder; called only if a status needs it. */
export function filterSql(f: OrderFilter, now: () => string, p: Params, o = 'o'): string[] {
  const and: string[] = [];
  if (f.hash) and.push(`${o}.hash = ${p.add(f.hash)}`);
  if (f.isOrderAsk !== undefined) and.push(`${o}.is_order_ask = ${f.isOrderAsk ? 'true' : 'false'}`);
  if (f.collection) and.push(`${o}.collection_address = ${p.add(f.collection)}`);
  if (f.tokenId !== undefined) and.push(`${o}.token_id = ${p.add(f.tokenId.toString(), '::numeric')}`);
  if (f.signer) and.push(`${o}.signer = ${p.add(f.signer)}`);
  if (f.strategy) and.push(`${o}.strategy = ${p.add(f.strategy)}`);
  if (f.currency) and.push(`${o}.currency_address = ${p.add(f.currency)}`);
  if (f.nonce !== undefined) and.push(`${o}.nonce = ${p.add(f.nonce.toString(), '::numeric')}`);
  if (f.priceMin !== undefined) and.push(`${o}.price >= ${p.add(f.priceMin.toString(), '::numeric')}`);
  if (f.priceMax !== undefined) and.push(`${o}.price <= ${p.add(f.priceMax.toString(), '::numeric')}`);
  if (f.startTime !== undefined) and.push(`${o}.start_time >= ${p.add(f.startTime.toString(), '::bigint')}`);
  if (f.endTime !== undefined) and.push(`${o}.end_time <= ${p.add(f.endTime.toString(), '::bigint')}`);
  // the order's own collection: the filter needs a collection or a signer, never scans the book
  if (f.attributes) and.push(...traitConditionsSql(f.attributes, `${o}.collection_address`, `${o}.token_id`, (v, cast) => p.add(v, cast)));
  if (f.statuses?.length) {
    // one parameter, added only if a status needs it (an unused parameter has no type: an error)
    let param: string | undefined;
    const once = () => (param ??= now());
    const parts = f.statuses.map((s) => effectiveStatusSql(s, once, o));
    and.push(parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`);
  }
  return and;
}

/**
 * Rows strictly after (`after`) or before the cursor order in the sort: one row comparison, which
 * PostgreSQL answers from the (…, price, id) / (…, end_time, id) indexes. The cursor row is a
 * sub-select, so a page is one statement; an unknown cursor yields no rows (the caller checks).
 */
export function keysetSql(sort: OrderSort, side: 'after' | 'before', hash: string, p: Params, o = 'o'): string {
  const { keys, desc } = SORT_KEYS[sort];
  const greater = (side === 'after') !== desc;
  const tuple = (alias: string) => (keys.length === 1 ? `${alias}.${keys[0]}` : `(${keys.map((k) => `${alias}.${k}`).join(', ')})`);
  return `${tuple(o)} ${greater ? '>' : '<'} (SELECT ${keys.map((k) => `k.${k}`).join(', ')} FROM orders k WHERE k.hash = ${p.add(hash)})`;
}

export interface OrderPageStatement {
  text: string;
  values: unknown[];
  /** rows come in reverse list order (backward paging): reverse after reading */
  reversed: boolean;
}

/** One statement for one page: LIMIT page size + 1 (the extra row says whether more exist). */
export function orderPageStatement(q: OrderQuery, plan: OrderReadPlan, nowSeconds: bigint): OrderPageStatement {
  const p = new Params();
  const where = filterSql(q.filter, () => p.add(nowSeconds.toString(), '::bigint'), p);
  if (q.cursor) where.push(keysetSql(q.sort, 'after', q.cursor, p));
  if (q.before) where.push(keysetSql(q.sort, 'before', q.before, p));
  const { keys, desc } = SORT_KEYS[q.sort];
  const reversed = q.fromEnd === true;
  const dir = desc !== reversed ? 'DESC' : 'ASC';
  const select = plan.orderColumns.map((c) => `${c.sql} AS "${c.key}"`);
  let from = 'orders o';
  if (plan.collectionColumns) {
    for (const c of plan.collectionColumns) select.push(`${c.sql} AS "c.${c.key}"`);
    from += ' JOIN collections c ON c.address = o.collection_address';
  }
  const text =
    `SELECT ${select.join(', ')} FROM ${from}` +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY ${keys.map((k) => `o.${k} ${dir}`).join(', ')} LIMIT ${q.first + 1}`;
  return { text, values: p.values, reversed };
}

/**
 * The number of orders the filter matches, whatever the cursors and page size (Relay's
 * totalCount): the page's own WHERE without the keyset conditions, so the count and the pages
 * can never disagree on what matches. Text, so it can travel in a statement batch.
 */
export function orderCountStatement(q: OrderQuery, nowSeconds: bigint): { text: string; values: unknown[] } {
  const p = new Params();
  const where = filterSql(q.filter, () => p.add(nowSeconds.toString(), '::bigint'), p);
  return { text: `SELECT COUNT(*)::text AS n FROM orders o${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, values: p.values };
}
