// The SQL floor of the peer bench: for each shape one hand-written statement that returns the
// exact response body this service sends (GraphQL `{"data":...}` or the REST envelope), built as
// JSON text inside PostgreSQL (to_json(...)::text pieces joined with ||, lists with string_agg) so
// the bytes match JSON.stringify's: no spaces (json_build_object would add them), fields in
// selection order. It reads the same indexes a careful hand-written server would, and uses the
// sales rollups where this service does. Written from the rules (spec 3 status, spec 2.7 stats,
// spec 2.8 listing rewards), not from src/: the bench's precheck compares it with this service.
import { DEFAULT_COLLECTION_NAME } from '../src/domain/collection-input.js';
import { CHAIN_FINAL_STATUSES } from '../src/domain/order-status.js';

/**
 * The settings of the floor server's connections: the session settings the service under test
 * plans with (src/db/database.ts), so the floor is the best a hand-written server does on the same
 * server: JIT off (these statements run in about a millisecond; compiling them would cost more),
 * no parallel workers, and random pages costed at 1.1 (the pages these reads touch are in memory;
 * at the default 4 a generic plan, planned for a collection of average size, bitmap-scans and
 * sorts the busiest collection's asks instead of reading its index in order:
 * bench/peer-generic-plans.ts prints both). The plan cache is PostgreSQL's default (`auto`), so a
 * named statement may run on a generic plan from its sixth execution; it is not forced either way.
 */
export const FLOOR_SETTINGS: Readonly<Record<string, string>> = { jit: 'off', max_parallel_workers_per_gather: '0', random_page_cost: '1.1' };
/** FLOOR_SETTINGS as a connection's startup options */
export const FLOOR_CONNECTION_OPTIONS = Object.entries(FLOOR_SETTINGS)
  .map(([k, v]) => `-c ${k}=${v}`)
  .join(' ');

/** What the floor statements need besides the request's variables (from the app's configuration). */
export interface FloorContext {
  /** standard-sale strategies: the floor price counts only these listings */
  standard: string[];
  /** collection-offer strategies: a collection offer can fill any token of its collection */
  collectionOffer: string[];
  rewards: { enabled: boolean; points: number[]; maxAgeSeconds: number };
}

/** The floor's context from the app's configuration (src/config.ts loadConfig). */
export function floorContext(config: { network: { strategies: { standardSale: string[]; collectionOffer: string[] } }; listingRewards: FloorContext['rewards'] }): FloorContext {
  return { standard: config.network.strategies.standardSale, collectionOffer: config.network.strategies.collectionOffer, rewards: config.listingRewards };
}

/** The instant of one request: unix seconds (order liveness) and ISO with milliseconds (sales windows). */
export interface Now {
  sec: number;
  iso: string;
}

/** A request's GraphQL variables (strings, and the trait conditions' lists of values). */
export type Vars = Record<string, string | string[]>;

export interface FloorStatement {
  text: string;
  params(v: Vars, now: Now, ctx: FloorContext): unknown[];
}

// ---------------------------------------------------------------------------------------------
// JSON text in SQL

const str = (e: string) => `to_json(${e})::text`;
const nstr = (e: string) => `COALESCE(to_json(${e})::text, 'null')`;
const num = (e: string) => `(${e})::text`;
const bool = (e: string) => `CASE WHEN ${e} THEN 'true' ELSE 'false' END`;
/** `{"k":v,...}`; keys are GraphQL names (nothing to escape). */
export const obj = (fields: readonly (readonly [string, string])[]) => fields.map(([k, v], i) => `'${i ? ',' : '{'}"${k}":' || ${v}`).join(' || ') + ` || '}'`;
/** a JSON array of `elem` over the rows of the FROM, in `order`; [] for none */
const arr = (elem: string, order: string) => `COALESCE('[' || string_agg(${elem}, ',' ORDER BY ${order}) || ']', '[]')`;
const edge = (node: string) => `'{"node":' || ${node} || '}'`;

const DEFAULT_NAME = `'${DEFAULT_COLLECTION_NAME.replace(/'/g, "''")}'`;
const FINAL = CHAIN_FINAL_STATUSES.map((s) => `'${s}'`).join(', ');

/** Order fields over alias `o`; `now` is the SQL of the request's unix seconds. */
export function orderFieldSql(field: string, now: string): string {
  const m: Record<string, string> = {
    hash: str('o.hash'),
    collectionAddress: str('o.collection_address'),
    tokenId: nstr('o.token_id::text'),
    isOrderAsk: bool('o.is_order_ask'),
    signer: str('o.signer'),
    strategy: str('o.strategy'),
    currencyAddress: str('o.currency_address'),
    amount: str('o.amount::text'),
    price: str('o.price::text'),
    nonce: str('o.nonce::text'),
    startTime: num('o.start_time'),
    endTime: num('o.end_time'),
    minPercentageToAsk: num('o.min_percentage_to_ask'),
    params: str(`CASE WHEN o.params = '0x' THEN '' ELSE o.params END`),
    // spec 3: chain-final stays; a live order past endTime reads EXPIRED
    status: str(`CASE WHEN o.status IN (${FINAL}) THEN o.status::text WHEN o.status = 'EXPIRED' OR o.end_time < ${now} THEN 'EXPIRED' ELSE o.status::text END`),
    signature: str('o.signature'),
    v: num('o.v'),
    r: str('o.r'),
    s: str('o.s'),
  };
  const sql = m[field];
  if (!sql) throw new Error(`floor: no SQL for Order.${field}`);
  return sql;
}

/** Collection fields over alias `c`. */
export function collectionFieldSql(field: string): string {
  const m: Record<string, string> = {
    address: str('c.address'),
    name: str(`COALESCE(c.name, ${DEFAULT_NAME})`),
    symbol: nstr('c.symbol'),
    type: str('c.type::text'),
    isVerified: bool('c.is_verified'),
    logoURI: nstr('c.logo_uri'),
  };
  const sql = m[field];
  if (!sql) throw new Error(`floor: no SQL for Collection.${field}`);
  return sql;
}

/** Sale fields over alias `s`. */
export function saleFieldSql(field: string): string {
  const m: Record<string, string> = {
    txHash: str('s.tx_hash'),
    logIndex: num('s.log_index'),
    tokenId: str('s.token_id::text'),
    amount: str('s.amount::text'),
    price: str('s.price::text'),
    buyer: str('s.buyer'),
    seller: str('s.seller'),
    isTakerAsk: bool('s.is_taker_ask'),
    timestamp: num('floor(extract(epoch FROM s.timestamp))::bigint'),
    orderHash: nstr('s.order_hash'),
    currencyAddress: str('s.currency_address'),
    blockNumber: str('s.block_number::text'),
  };
  const sql = m[field];
  if (!sql) throw new Error(`floor: no SQL for Sale.${field}`);
  return sql;
}

/** An order node: its fields, and `collection { ... }` joined as alias c when asked. */
export interface OrderSelection {
  fields: readonly string[];
  collection?: readonly string[];
}

const orderNode = (sel: OrderSelection, now: string) =>
  obj([
    ...sel.fields.map((f) => [f, orderFieldSql(f, now)] as const),
    ...(sel.collection ? [['collection', obj(sel.collection.map((f) => [f, collectionFieldSql(f)] as const))] as const] : []),
  ]);

/** The service's sorts (ties on the creation order, id) over alias o: the page's order and its JSON's. */
const SORTS = {
  PRICE_ASC: 'o.price, o.id',
  PRICE_DESC: 'o.price DESC, o.id DESC',
  NEWEST: 'o.id DESC',
} as const;

/** The live VALID rule (this service's status: [VALID]) over alias o. */
const live = (now: string) => `o.status = 'VALID' AND o.end_time >= ${now}`;

/** A JSON array of orders (as edges, or bare nodes for REST): the page of `where` in `sort`, `limit` rows, as one scalar subquery. */
function orderList(where: string, sort: keyof typeof SORTS, limit: number, sel: OrderSelection, now: string, asEdges = true, pin?: string): string {
  // a page pinned to one collection joins that one row (one primary-key read, not a hash of every collection)
  const join = sel.collection ? ` JOIN collections c ON c.address = ${pin ?? 'o.collection_address'}` : '';
  const node = orderNode(sel, now);
  return `(SELECT ${arr(asEdges ? edge(node) : node, SORTS[sort])}
   FROM (SELECT o.* FROM orders o WHERE ${where} ORDER BY ${SORTS[sort]} LIMIT ${limit}) o${join})`;
}

/** The floor price of collection expression `c` (spec 2.7): the cheapest live VALID standard listing. */
const floorPrice = (c: string, sec: string, standard: string) => `(SELECT MIN(fo.price) FROM orders fo
   WHERE fo.collection_address = ${c} AND fo.is_order_ask AND fo.status = 'VALID'
     AND fo.end_time >= ${sec} AND fo.start_time <= ${sec} AND fo.strategy = ANY(${standard}))`;

/** The percent change of spec 2.7 (two decimals, half away from zero; "0.00" or null without a baseline). */
function percentChange(cur: string, prev: string): string {
  const h = `(sign(${cur} - ${prev}) * div(abs(${cur} - ${prev}) * 20000 + ${prev}, NULLIF(${prev}, 0) * 2))`;
  const text = `CASE WHEN ${h} < 0 THEN '-' ELSE '' END || div(abs(${h}), 100)::text || '.' || lpad(mod(abs(${h}), 100)::text, 2, '0')`;
  return `CASE WHEN ${prev} = 0 THEN CASE WHEN ${cur} = 0 THEN '"0.00"' ELSE 'null' END ELSE to_json(${text})::text END`;
}

const ago = (p: string, seconds: number) => `(${p}::timestamptz - interval '${seconds} seconds')`;
const DAY = 86_400;

// ---------------------------------------------------------------------------------------------
// The statements

/**
 * GraphQL body `{"data":{"<field>":{"edges":[...]}}}` of one order connection. $1 is the request's
 * unix seconds; `where` names the shape's own values $2, $3, ... in the order `params` gives them.
 */
export function orderPageFloor(
  field: string,
  where: string,
  sort: keyof typeof SORTS,
  limit: number,
  sel: OrderSelection,
  params: (v: Vars) => unknown[],
  /** the SQL of the collection address when `where` pins one (o.collection_address = it) */
  pin?: string,
): FloorStatement {
  return {
    text: `SELECT '{"data":{"${field}":{"edges":' || ${orderList(where, sort, limit, sel, '$1', true, pin)} || '}}}' AS body`,
    params: (v, now) => [now.sec, ...params(v)],
  };
}

/** The live VALID rule (this service's `status: [VALID]`) over alias o, now = $1. */
export const LIVE = live('$1');

/** Token page: the token's live asks (cheapest first) and live bids (best first), aliased. */
export function tokenPageFloor(limit: number, asks: OrderSelection, bids: OrderSelection): FloorStatement {
  const where = (ask: boolean) => `o.collection_address = $2 AND o.token_id = $3::numeric AND ${ask ? '' : 'NOT '}o.is_order_ask AND ${LIVE}`;
  return {
    text: `SELECT '{"data":{"asks":{"edges":' || ${orderList(where(true), 'PRICE_ASC', limit, asks, '$1')}
      || '},"bids":{"edges":' || ${orderList(where(false), 'PRICE_DESC', limit, bids, '$1')} || '}}}' AS body`,
    params: (v, now) => [now.sec, v.collection, v.tokenId],
  };
}

/** One order by hash with its collection's fields; `null` when unknown. */
export function orderByHashFloor(sel: OrderSelection): FloorStatement {
  return {
    text: `SELECT '{"data":{"order":' || COALESCE((SELECT ${orderNode(sel, '$1')} FROM orders o JOIN collections c ON c.address = o.collection_address WHERE o.hash = $2), 'null') || '}}' AS body`,
    params: (v, now) => [now.sec, v.hash],
  };
}

/** GET /api/v1/orders?collection&isOrderAsk=true&status[]=VALID&sort=PRICE_ASC: the v1 envelope around the page. */
export function restOrdersFloor(limit: number, sel: OrderSelection): FloorStatement {
  return {
    text: `SELECT '{"success":true,"message":null,"data":' || ${orderList(`o.collection_address = $2 AND o.is_order_ask AND ${LIVE}`, 'PRICE_ASC', limit, sel, '$1', false)} || '}' AS body`,
    params: (v, now) => [now.sec, v.collection],
  };
}

/** A collection's sales, newest first (ties: newest id). */
export function salesFloor(limit: number, fields: readonly string[]): FloorStatement {
  const node = obj(fields.map((f) => [f, saleFieldSql(f)] as const));
  return {
    text: `SELECT '{"data":{"sales":{"edges":' || ${arr(edge(node), 's.timestamp DESC, s.id DESC')} || '}}}' AS body
      FROM (SELECT * FROM sales WHERE collection_address = $1 ORDER BY timestamp DESC, id DESC LIMIT ${limit}) s`,
    params: (v) => [v.collection],
  };
}

/** A market event's fields as the activity connection renders them (src/read-engine/read-types.ts MARKET_EVENT_TYPE). */
export function eventFieldSql(field: string): string {
  const m: Record<string, string> = {
    eventId: str('e.id::text'),
    type: str('e.type::text'),
    from: nstr('e.from_address'),
    to: nstr('e.to_address'),
    price: nstr('e.price::text'),
    tokenId: nstr('e.token_id::text'),
    txHash: nstr('e.tx_hash'),
    createdAt: num('floor(extract(epoch FROM e.created_at))::bigint'),
  };
  if (!m[field]) throw new Error(`no floor SQL for MarketEvent.${field}`);
  return m[field]!;
}

/** The activity page: a collection's newest events, what a reorg undid left out. $1 address. */
export function activityFloor(limit: number, fields: readonly string[]): FloorStatement {
  const node = obj(fields.map((f) => [f, eventFieldSql(f)] as const));
  return {
    text: `SELECT '{"data":{"activity":{"edges":' || ${arr(edge(node), 'e.id DESC')} || '}}}' AS body
      FROM (SELECT * FROM market_events m WHERE m.collection_address = $1 AND m.type <> 'RETRACTED'
              AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = m.id) ORDER BY m.id DESC LIMIT ${limit}) e`,
    params: (v) => [v.collection],
  };
}

/**
 * The collection page (bench/peer-queries.ts PAGE_QUERY): collection fields, the stats it selects,
 * 20 live asks with pageInfo, and listing rewards. Windows are (now - D, now]; countAll is every
 * sale up to now, read from the daily and hourly rollups plus the raw sales of the current hour.
 * $1 address, $2 now ISO, $3 now seconds, $4 standard strategies, $5 reward points, $6 rewards max age (s).
 */
export function collectionPageFloor(collectionFields: readonly string[], orderFields: readonly string[], first: number): FloorStatement {
  const day0 = `date_bin('1 day', $2::timestamptz, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
  const hour0 = `date_bin('1 hour', $2::timestamptz, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
  const stats = obj([
    ['floorPrice', nstr('st.floor::text')],
    ['marketCap', nstr('(st.floor * COALESCE(cs.total_supply, 0))::text')],
    ['countOwners', str('COALESCE(cs.count_owners, 0)::text')],
    ['totalSupply', str('COALESCE(cs.total_supply, 0)::text')],
    ['volume24h', str('w.v24::text')],
    ['change24h', percentChange('w.v24', 'w.p24')],
    ['volume7d', str('w.v7::text')],
    ['count7d', str('w.c7::text')],
    ['countAll', str('a.n::text')],
  ]);
  const orders = `(SELECT '{"edges":' || ${arr(`CASE WHEN rn <= ${first} THEN ${edge(obj(orderFields.map((f) => [f, orderFieldSql(f, '$3')] as const)))} END`, 'rn')}
      || ',"pageInfo":{"hasNextPage":' || ${bool(`count(*) > ${first}`)} || ',"endCursor":' || ${nstr(`(array_agg(o.hash ORDER BY rn DESC) FILTER (WHERE rn <= ${first}))[1]`)} || '}}'
     FROM (SELECT o.*, row_number() OVER (ORDER BY o.price, o.id) AS rn
             FROM (SELECT o.* FROM orders o WHERE o.collection_address = c.address AND o.is_order_ask AND ${live('$3')} ORDER BY o.price, o.id LIMIT ${first + 1}) o) o)`;
  const rewardNode = obj([
    ['points', num('($5::int[])[r.rank]')],
    ['volume24hGlobal', str('r.volume_24h_global::text')],
    ['floorGlobal', str('LEAST(r.our_floor, r.floor_global)::text')],
    ['collection', obj([['address', str('r.address')], ['name', str(`COALESCE(r.name, ${DEFAULT_NAME})`)]])],
  ]);
  const rewards = `(SELECT CASE WHEN cardinality($5::int[]) = 0 THEN 'null' ELSE ${arr(rewardNode, 'r.rank')} END
     FROM (SELECT g.collection_address AS address, rc.name, g.volume_24h_global, g.floor_global, ${floorPrice('g.collection_address', '$3', '$4::text[]')} AS our_floor,
                  row_number() OVER (ORDER BY g.volume_24h_global DESC, g.collection_address) AS rank
             FROM global_market_data g JOIN collections rc ON rc.address = g.collection_address
            WHERE rc.is_verified AND g.observed_at >= $2::timestamptz - make_interval(secs => $6)
            ORDER BY g.volume_24h_global DESC, g.collection_address LIMIT cardinality($5::int[])) r)`;
  const collection = obj([...collectionFields.map((f) => [f, collectionFieldSql(f)] as const), ['stats', stats], ['orders', orders]]);
  return {
    text: `SELECT '{"data":{"collection":' || COALESCE((
  SELECT ${collection}
    FROM collections c
    LEFT JOIN collection_supply cs ON cs.collection_address = c.address
    CROSS JOIN LATERAL (SELECT ${floorPrice('c.address', '$3', '$4::text[]')} AS floor) st
    CROSS JOIN LATERAL (SELECT COALESCE(SUM(s.price) FILTER (WHERE s.timestamp > ${ago('$2', DAY)}), 0) AS v24,
                               COALESCE(SUM(s.price) FILTER (WHERE s.timestamp <= ${ago('$2', DAY)} AND s.timestamp > ${ago('$2', 2 * DAY)}), 0) AS p24,
                               COALESCE(SUM(s.price), 0) AS v7, COUNT(*) AS c7
                          FROM sales s WHERE s.collection_address = c.address AND s.timestamp > ${ago('$2', 7 * DAY)} AND s.timestamp <= $2::timestamptz) w
    CROSS JOIN LATERAL (SELECT (SELECT COALESCE(SUM(d.count), 0) FROM sale_day_buckets d WHERE d.collection_address = c.address AND d.day_start < ${day0})
                             + (SELECT COALESCE(SUM(h.count), 0) FROM sale_buckets h WHERE h.collection_address = c.address AND h.bucket_start >= ${day0} AND h.bucket_start < ${hour0})
                             + (SELECT COUNT(*) FROM sales s WHERE s.collection_address = c.address AND s.timestamp >= ${hour0} AND s.timestamp <= $2::timestamptz) AS n) a
   WHERE c.address = $1), 'null') || ',"listingRewards":' || ${rewards} || '}}' AS body`,
    params: (v, now, ctx) => [v.collection, now.iso, now.sec, ctx.standard, ctx.rewards.enabled ? ctx.rewards.points : [], ctx.rewards.maxAgeSeconds],
  };
}

/**
 * Collection cards: the first `first` collections ranked by 24h volume (highest first) or by floor
 * (lowest first, none last), ties on the address (byte order), each with its floor, 24h volume and
 * three cheapest live asks. The ranking reads the kept keys (below); a floor it cannot take from
 * them probes the collection's (collection, price) index of VALID asks for its cheapest live one.
 * $1 now ISO, $2 now seconds, $3 standard strategies.
 */
export function collectionCardsFloor(orderBy: 'VOLUME_24H' | 'FLOOR', first: number, asks: number): FloorStatement {
  const volume = (c: string) => `(SELECT COALESCE(SUM(s.price), 0) FROM sales s WHERE s.collection_address = ${c} AND s.timestamp > ${ago('$1', DAY)} AND s.timestamp <= $1::timestamptz)`;
  // Rank on the one key, read from the kept keys as a hand-written statement on this schema would
  // (migration 20261206090000_kept_ranking_keys): a kept floor inside its interval, else the probe;
  // the kept 24 h volume at the anchor, moved to the clock by the schema's ranking_volume_moved.
  // Then the other statistic for the page's collections only.
  const keptFloor = `CASE WHEN fk.valid_from <= $2 AND $2 < fk.valid_to THEN fk.floor_price ELSE ${floorPrice('c.address', '$2', '$3::text[]')} END`;
  const moved = `SELECT d.collection_address AS c, d.delta AS v FROM volume_mark_anchor a, ranking_volume_moved(interval '${DAY} seconds', a.at, $1::timestamptz) d WHERE a.id = 1`;
  const ranked =
    orderBy === 'VOLUME_24H'
      ? `SELECT r.address, r.name, r.v, ${floorPrice('r.address', '$2', '$3::text[]')} AS floor
           FROM (SELECT c.address, c.name, COALESCE(vm.volume_24h, 0) + COALESCE(mv.v, 0) AS v
                   FROM collections c LEFT JOIN collection_volume_marks vm ON vm.collection_address = c.address
                   LEFT JOIN (${moved}) mv ON mv.c = c.address
                  ORDER BY 3 DESC, c.address COLLATE "C" LIMIT ${first}) r`
      : `SELECT r.address, r.name, ${volume('r.address')} AS v, r.floor
           FROM (SELECT c.address, c.name, ${keptFloor} AS floor FROM collections c LEFT JOIN collection_floor_keys fk ON fk.collection_address = c.address
                  ORDER BY 3 ASC NULLS LAST, c.address COLLATE "C" LIMIT ${first}) r`;
  const order = orderBy === 'VOLUME_24H' ? 't.v DESC, t.address COLLATE "C"' : 't.floor ASC NULLS LAST, t.address COLLATE "C"';
  const node = obj([
    ['address', str('t.address')],
    ['name', str(`COALESCE(t.name, ${DEFAULT_NAME})`)],
    ['stats', obj([['floorPrice', nstr('t.floor::text')], ['volume24h', str('t.v::text')]])],
    ['orders', `'{"edges":' || ob.edges || '}'`],
  ]);
  return {
    text: `SELECT '{"data":{"collections":{"edges":' || ${arr(edge(node), order)} || '}}}' AS body
  FROM (${ranked}) t
  CROSS JOIN LATERAL (SELECT ${arr(edge(obj([['hash', str('o.hash')], ['price', str('o.price::text')], ['tokenId', nstr('o.token_id::text')]])), 'o.price, o.id')} AS edges
                        FROM (SELECT o.hash, o.price, o.token_id, o.id FROM orders o
                               WHERE o.collection_address = t.address AND o.is_order_ask AND ${live('$2')} ORDER BY o.price, o.id LIMIT ${asks}) o) ob`,
    params: (_v, now, ctx) => [now.iso, now.sec, ctx.standard],
  };
}

/** The live rule of a token's market (Token.bestAsk, bestBid): VALID, started, not ended; now = $1. */
const started = (o: string) => `${o}.status = 'VALID' AND ${o}.start_time <= $1 AND ${o}.end_time >= $1`;

/**
 * The token page: the token (known when held or named by an order), its collection, owners
 * (largest balance first, then address), best ask (cheapest live fixed-price listing, oldest on a
 * tie) and when it went live, best bid (the higher of its best token offer and the collection's
 * best collection offer, oldest on a tie), last sale and its 20 newest events (what a reorg undid
 * and the book's floor and best-bid events left out). $1 now seconds, $2 collection, $3 token id,
 * $4 standard strategies, $5 collection-offer strategies.
 */
export function tokenDetailFloor(sel: { collection: readonly string[]; ask: readonly string[]; bid: readonly string[]; sale: readonly string[]; event: readonly string[]; events: number }): FloorStatement {
  const order = (fields: readonly string[]) => obj(fields.map((f) => [f, orderFieldSql(f, '$1')] as const));
  const event = obj(sel.event.map((f) => [f, eventFieldSql(f)] as const));
  const token = obj([
    ['tokenId', str('$3::numeric::text')],
    ['collection', `(SELECT ${obj(sel.collection.map((f) => [f, collectionFieldSql(f)] as const))} FROM collections c WHERE c.address = $2)`],
    [
      'owners',
      `(SELECT '[' || COALESCE(string_agg(${obj([['owner', str('w.owner')], ['balance', str('w.balance::text')]])}, ',' ORDER BY w.balance DESC, w.owner COLLATE "C"), '') || ']'
         FROM token_balances w WHERE w.collection_address = $2 AND w.token_id = $3::numeric AND w.balance > 0)`,
    ],
    ['bestAsk', `COALESCE((SELECT ${order(sel.ask)} FROM ask o), 'null')`],
    ['bestBid', `COALESCE((SELECT ${order(sel.bid)} FROM bid o), 'null')`],
    ['listedAt', `COALESCE((SELECT greatest(floor(extract(epoch FROM a.created_at))::bigint, a.start_time)::text FROM ask a), 'null')`],
    [
      'lastSale',
      `COALESCE((SELECT ${obj(sel.sale.map((f) => [f, saleFieldSql(f)] as const))} FROM (SELECT * FROM sales WHERE collection_address = $2 AND token_id = $3::numeric ORDER BY timestamp DESC, id DESC LIMIT 1) s), 'null')`,
    ],
    [
      'activity',
      `(SELECT '{"edges":' || ${arr(edge(event), 'e.id DESC')} || '}'
         FROM (SELECT * FROM market_events m WHERE m.collection_address = $2 AND m.token_id = $3::numeric
                  AND m.type NOT IN ('RETRACTED', 'FLOOR_CHANGE', 'BEST_BID_CHANGE')
                  AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = m.id) ORDER BY m.id DESC LIMIT ${sel.events}) e)`,
    ],
  ]);
  const bidOf = (token: string, strategies: string) =>
    `(SELECT x.* FROM orders x WHERE x.collection_address = $2 AND ${token} AND NOT x.is_order_ask AND ${started('x')} AND x.strategy = ANY(${strategies}) ORDER BY x.price DESC, x.id LIMIT 1)`;
  return {
    text: `WITH ask AS (SELECT a.* FROM orders a WHERE a.collection_address = $2 AND a.token_id = $3::numeric AND a.is_order_ask AND ${started('a')} AND a.strategy = ANY($4::text[]) ORDER BY a.price, a.id LIMIT 1),
  bid AS (SELECT y.* FROM (${bidOf('x.token_id = $3::numeric', '$4::text[]')} UNION ALL ${bidOf('x.token_id IS NULL', '$5::text[]')}) y ORDER BY y.price DESC, y.id LIMIT 1)
SELECT '{"data":{"token":' || CASE WHEN EXISTS (SELECT 1 FROM token_balances k WHERE k.collection_address = $2 AND k.token_id = $3::numeric AND k.balance > 0)
                                     OR EXISTS (SELECT 1 FROM orders k WHERE k.collection_address = $2 AND k.token_id = $3::numeric)
                                   THEN ${token} ELSE 'null' END || '}}' AS body`,
    params: (v, now, ctx) => [now.sec, v.collection, v.tokenId, ctx.standard, ctx.collectionOffer],
  };
}

/**
 * The wallet page: the account's address; its holdings (by collection in byte order, then token
 * id; the first `holdings`) with their count and their value at the floor and at the best bid over
 * every holding, each holding's balance, its collection's floor, the token's best bid and the
 * token; the offers it can fill (token offers on tokens it holds and collection offers on
 * collections it holds, each at most the balance, not its own; best first, the first `offers`,
 * found among the first `offers` of each token and collection held);
 * its newest live orders (the first `orders`). $1 now seconds, $2 address, $3 standard
 * strategies, $4 collection-offer strategies.
 */
export function accountPageFloor(sel: { holdings: number; offers: number; orders: number; offer: readonly string[]; order: readonly string[] }): FloorStatement {
  const floorOf = (c: string) => `(SELECT min(f.price) FROM orders f WHERE f.collection_address = ${c} AND f.is_order_ask AND ${started('f')} AND f.strategy = ANY($3::text[]))`;
  const bestOf = (c: string, token: string | null) =>
    `(SELECT x.price FROM orders x WHERE x.collection_address = ${c} AND ${token === null ? 'x.token_id IS NULL' : `x.token_id = ${token}`} AND NOT x.is_order_ask AND ${started('x')}
        AND x.strategy = ANY(${token === null ? '$4' : '$3'}::text[]) ORDER BY x.price DESC LIMIT 1)`;
  const bestBid = (c: string, token: string) => `greatest(${bestOf(c, token)}, ${bestOf(c, null)})`;
  const holding = obj([
    ['balance', str('h.balance::text')],
    ['floorPrice', nstr(`${floorOf('h.collection_address')}::text`)],
    ['bestBidPrice', nstr(`${bestBid('h.collection_address', 'h.token_id')}::text`)],
    ['token', obj([['tokenId', str('h.token_id::text')], ['collectionAddress', str('h.collection_address')]])],
  ]);
  const held = `token_balances WHERE owner = $2 AND balance > 0`;
  const holdings = `(SELECT '{"totalCount":' || (SELECT count(*) FROM ${held})::text
      || ',"valueAtFloor":' || to_json((SELECT COALESCE(sum(${floorOf('g.collection_address')} * g.n), 0) FROM (SELECT collection_address, sum(balance) AS n FROM ${held} GROUP BY 1) g)::text)::text
      || ',"valueAtBestBid":' || to_json((SELECT COALESCE(sum(greatest(${bestOf('b.collection_address', 'b.token_id')}, cb.best) * b.balance), 0)
                                            FROM (SELECT * FROM ${held}) b
                                            JOIN (SELECT d.collection_address, ${bestOf('d.collection_address', null)} AS best FROM (SELECT DISTINCT collection_address FROM ${held}) d) cb
                                              ON cb.collection_address = b.collection_address)::text)::text
      || ',"edges":' || ${arr(edge(holding), 'h.collection_address COLLATE "C", h.token_id')} || '}'
     FROM (SELECT * FROM ${held} ORDER BY collection_address COLLATE "C", token_id LIMIT ${sel.holdings}) h)`;
  const offers = `(SELECT '{"edges":' || ${arr(edge(obj(sel.offer.map((f) => [f, orderFieldSql(f, '$1')] as const))), 'o.price DESC, o.id')} || '}'
     FROM (SELECT o.* FROM orders o
            WHERE o.id IN (
                  SELECT x.id FROM token_balances hb CROSS JOIN LATERAL (
                    SELECT x.id FROM orders x WHERE x.collection_address = hb.collection_address AND x.token_id = hb.token_id AND NOT x.is_order_ask AND ${started('x')}
                       AND x.signer <> $2 AND x.strategy = ANY($3::text[]) AND x.amount <= hb.balance ORDER BY x.price DESC FETCH FIRST ${sel.offers} ROWS WITH TIES) x
                   WHERE hb.owner = $2 AND hb.balance > 0
                  UNION ALL
                  SELECT x.id FROM (SELECT collection_address, max(balance) AS most FROM ${held} GROUP BY 1) hc CROSS JOIN LATERAL (
                    SELECT x.id FROM orders x WHERE x.collection_address = hc.collection_address AND x.token_id IS NULL AND NOT x.is_order_ask AND ${started('x')}
                       AND x.signer <> $2 AND x.strategy = ANY($4::text[]) AND x.amount <= hc.most ORDER BY x.price DESC FETCH FIRST ${sel.offers} ROWS WITH TIES) x)
            ORDER BY o.price DESC, o.id LIMIT ${sel.offers}) o)`;
  const orders = `'{"edges":' || ${orderList(`o.signer = $2 AND ${LIVE}`, 'NEWEST', sel.orders, { fields: sel.order }, '$1')} || '}'`;
  return {
    text: `SELECT '{"data":{"account":' || ${obj([['address', str('$2::text')], ['holdings', holdings], ['offersReceived', offers], ['orders', orders]])} || '}}' AS body`,
    params: (v, now, ctx) => [now.sec, v.address, ctx.standard, ctx.collectionOffer],
  };
}

// ---------------------------------------------------------------------------------------------
// Token metadata (docs/metadata.md)

/** The token's metadata row `m` (LEFT JOINed: null when the token never had one) and its collection's `k`: Token.rarity, null when unranked. */
const rarityJson = (fields: readonly ('rank' | 'score')[]) =>
  `CASE WHEN m.rarity_rank IS NOT NULL AND k.rarity_method IS NOT NULL THEN ${obj(fields.map((f) => [f, f === 'rank' ? num('m.rarity_rank') : nstr('m.rarity_score')] as const))} ELSE 'null' END`;
const metaJoin = (t: string) =>
  `LEFT JOIN token_metadata m ON m.collection_address = ${t}.collection_address AND m.token_id = ${t}.token_id LEFT JOIN collection_metadata k ON k.collection_address = m.collection_address`;

/**
 * A token grid: the `first` listed tokens of a collection that meet two trait conditions (a value
 * of $4 among $5, and of $6 among $7), cheapest best ask first (ties: token id), each with its
 * name, image, rarity rank and best ask (the cheapest live fixed-price listing, oldest on a tie).
 * The live fixed-price asks are walked in price order on the collection's index of VALID asks;
 * an ask is a row when both trait probes find its token and no cheaper (or equal and older) live
 * ask of the token exists, so the walk stops at the page's last token instead of grouping every
 * live ask of the collection by token. $1 now seconds, $2 collection, $3 standard strategies.
 */
export function tokenGridFloor(first: number, order: readonly string[]): FloorStatement {
  const liveAsk = (o: string) => `${o}.collection_address = $2 AND ${o}.is_order_ask AND ${started(o)} AND ${o}.strategy = ANY($3::text[])`;
  // a probe per candidate (a scalar sub-select, not an EXISTS the planner would turn into a join of every token of the value)
  const trait = (type: string, values: string) =>
    `(SELECT true FROM token_attributes x WHERE x.collection_address = $2 AND x.token_id = a.token_id AND x.trait_type = ${type} AND x.value = ANY(${values}::text[]) LIMIT 1)`;
  const node = obj([
    ['tokenId', str('o.token_id::text')],
    ['name', nstr('m.name')],
    ['image', nstr('m.image')],
    ['rarity', rarityJson(['rank'])],
    ['bestAsk', obj(order.map((f) => [f, orderFieldSql(f, '$1')] as const))],
  ]);
  return {
    text: `SELECT '{"data":{"tokens":{"edges":' || ${arr(edge(node), 'o.price, o.token_id')} || '}}}' AS body
  FROM (SELECT a.* FROM orders a
         WHERE ${liveAsk('a')} AND ${trait('$4', '$5')} AND ${trait('$6', '$7')}
           AND NOT EXISTS (SELECT 1 FROM orders b WHERE b.collection_address = $2 AND b.token_id = a.token_id AND b.is_order_ask AND ${started('b')}
                              AND b.strategy = ANY($3::text[]) AND (b.price, b.id) < (a.price, a.id))
         ORDER BY a.price, a.token_id LIMIT ${first}) o
  ${metaJoin('o')}`,
    params: (v, now, ctx) => [now.sec, v.collection, ctx.standard, v.traitA, v.valuesA, v.traitB, v.valuesB],
  };
}

/**
 * A collection's trait panel: its trait types (code-unit order), each with its kind (the greatest
 * of its values' kinds by name: STRING when any value is), value count and values (most
 * tokens first, then value): token count, share of the tokens showing a document (4 places),
 * listed tokens, floor (cheapest live fixed-price listing among them) and best bid (the higher of
 * the best live token offer on one of them and the collection's best collection offer). The
 * live asks and token offers (one scan of the collection's live fixed-price orders) are reduced to
 * one ask and one bid per token before they meet the traits.
 * $1 now seconds, $2 collection, $3 standard strategies, $4 collection-offer strategies.
 */
export function traitPanelFloor(): FloorStatement {
  const live = (o: string) => `${o}.collection_address = $2 AND ${started(o)}`;
  const value = obj([
    ['value', str('v.value')],
    ['tokenCount', num('v.token_count')],
    ['sharePercent', nstr('round(v.token_count * 100.0 / greatest(n.n, 1), 4)::float8')],
    ['listedCount', num('COALESCE(f.listed, 0)')],
    ['floorPrice', nstr('f.floor::text')],
    ['bestBidPrice', nstr('greatest(f.bid, cb.price)::text')],
  ]);
  const type = obj([
    ['traitType', str('t.trait_type')],
    ['kind', str('t.kind')],
    ['valueCount', num('t.n')],
    ['values', `t.values`],
  ]);
  return {
    text: `WITH f AS (SELECT x.trait_type, x.value, count(t.ask) AS listed, min(t.ask) AS floor, max(t.bid) AS bid
          FROM (SELECT o.token_id, min(o.price) FILTER (WHERE o.is_order_ask) AS ask, max(o.price) FILTER (WHERE NOT o.is_order_ask) AS bid
                  FROM orders o WHERE ${live('o')} AND o.token_id IS NOT NULL AND o.strategy = ANY($3::text[]) GROUP BY o.token_id) t
          JOIN token_attributes x ON x.collection_address = $2 AND x.token_id = t.token_id
         GROUP BY x.trait_type, x.value)
SELECT '{"data":{"collection":' || CASE WHEN EXISTS (SELECT 1 FROM collections c WHERE c.address = $2) THEN (
  SELECT '{"attributes":' || ${arr(type, 't.trait_type COLLATE "C"')} || '}'
    FROM (SELECT v.trait_type, max(v.kind::text) AS kind, count(*) AS n,
                 '[' || string_agg(${value}, ',' ORDER BY v.token_count DESC, v.value COLLATE "C") || ']' AS values
            FROM trait_values v LEFT JOIN f ON f.trait_type = v.trait_type AND f.value = v.value
           CROSS JOIN (SELECT count(*) AS n FROM token_metadata d WHERE d.collection_address = $2 AND d.document_sha256 IS NOT NULL) n
           CROSS JOIN (SELECT max(o.price) AS price FROM orders o WHERE ${live('o')} AND o.token_id IS NULL AND NOT o.is_order_ask AND o.strategy = ANY($4::text[])) cb
           WHERE v.collection_address = $2 AND v.token_count > 0
           GROUP BY v.trait_type) t) ELSE 'null' END || '}}' AS body`,
    params: (v, now, ctx) => [now.sec, v.collection, ctx.standard, ctx.collectionOffer],
  };
}

/**
 * A token page with its metadata: the token (known when held or named by an order), its name,
 * image, traits in document order with the collection's count of each (null while it shows no
 * document), rarity, metadata status and best ask. $1 now seconds, $2 collection, $3 token id,
 * $4 standard strategies.
 */
export function tokenTraitsFloor(order: readonly string[]): FloorStatement {
  const attribute = obj([
    ['traitType', str('a.trait_type')],
    ['value', str('a.value')],
    ['tokenCount', num('COALESCE(v.token_count, 0)')],
  ]);
  const token = obj([
    ['tokenId', str('$3::numeric::text')],
    ['name', nstr('m.name')],
    ['image', nstr('m.image')],
    [
      'attributes',
      `CASE WHEN m.document_sha256 IS NULL THEN 'null' ELSE (SELECT '[' || COALESCE(string_agg(${attribute}, ',' ORDER BY a.position, a.trait_type COLLATE "C", a.value COLLATE "C"), '') || ']'
         FROM token_attributes a LEFT JOIN trait_values v ON v.collection_address = a.collection_address AND v.trait_type = a.trait_type AND v.value = a.value
        WHERE a.collection_address = $2 AND a.token_id = $3::numeric) END`,
    ],
    ['rarity', rarityJson(['rank', 'score'])],
    ['metadata', `CASE WHEN m.token_id IS NULL THEN 'null' ELSE ${obj([['status', str('m.status::text')]])} END`],
    ['bestAsk', `COALESCE((SELECT ${obj(order.map((f) => [f, orderFieldSql(f, '$1')] as const))} FROM orders o
        WHERE o.collection_address = $2 AND o.token_id = $3::numeric AND o.is_order_ask AND ${started('o')} AND o.strategy = ANY($4::text[]) ORDER BY o.price, o.id LIMIT 1), 'null')`],
  ]);
  return {
    text: `SELECT '{"data":{"token":' || CASE WHEN EXISTS (SELECT 1 FROM token_balances h WHERE h.collection_address = $2 AND h.token_id = $3::numeric AND h.balance > 0)
                                     OR EXISTS (SELECT 1 FROM orders h WHERE h.collection_address = $2 AND h.token_id = $3::numeric)
                                   THEN (SELECT ${token} FROM (SELECT $2::text AS collection_address, $3::numeric AS token_id) g ${metaJoin('g')}) ELSE 'null' END || '}}' AS body`,
    params: (v, now, ctx) => [now.sec, v.collection, v.tokenId, ctx.standard],
  };
}
