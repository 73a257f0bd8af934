// The read engine's declarations and root planners for tokens and book depth (the resolvers they
// stand for: src/schema/token.ts, src/schema/depth.ts). A token row is one row of tokenRowsSql
// (src/services/token-sql.ts): collection_address, token_id and its best ask, found once where
// the page is sorted by it; the other fields are sub-selects over that row.
// Written against ./read-type.ts only: the declarations (./read-types.ts) and the planner import it.
import type { FieldNode } from 'graphql';
import { parsePageArgs, type PageArgs } from '../domain/page-args.js';
import { parseTokenTraitFilter, type TokenTraitFilter } from '../domain/token-filter.js';
import { BOOK_SIDES, bestBidIdSql, liveSideSql, parseTokenCursor, TOKEN_SORTS, tokenCursorSql, tokenKeysetSql, tokenOrderSql, tokenPageRowsSql, tokenRowsSql, type BookSide, type TokenSort } from '../services/token-sql.js';
import { MAX_DEPTH_LEVELS, TOKEN_PAGE_RULES } from '../services/tokens.js';
import { jsonEther, jsonGlobalId, jsonInt, jsonLiteral, jsonNullableString, jsonObjectSql, jsonString, jsonUnixTime, orUnrenderable } from './json-sql.js';
import type { FieldRead, Planner, ReadType } from './read-type.js';
import { objectFieldsSql } from './object-fields.js';
import { TOKEN_METADATA_FIELDS, TOKEN_METADATA_ROW } from './metadata-reads.js';
import { collectFields, subSelections } from './selection.js';

type Planned = Extract<FieldRead<string>, { kind: 'planned' }>['plan'];
const planned = (plan: Planned): FieldRead<string> => ({ kind: 'planned', columns: [], plan });
const leaf = (json: (t: string) => string): FieldRead<string> => ({ kind: 'leaf', columns: [], json });

/** Owners by balance, then by address in code-unit order (the resolver sorts them in JavaScript). */
const owners: Planned = (p, nodes, _args, t) => {
  const w = p.alias('w');
  const item = objectFieldsSql(p, nodes, 'TokenOwner', { owner: jsonString(`${w}.owner`), balance: jsonString(`${w}.balance::text`) });
  return (
    `(SELECT '[' || COALESCE(string_agg(${item}, ',' ORDER BY ${w}.balance DESC, ${w}.owner COLLATE "C" ASC), '') || ']' ` +
    `FROM token_balances ${w} WHERE ${w}.collection_address = ${t}.collection_address AND ${w}.token_id = ${t}.token_id AND ${w}.balance > 0)`
  );
};

const orderById = (p: Planner, nodes: readonly FieldNode[], idSql: (a: string) => string) => {
  const a = p.alias('o');
  return `COALESCE((SELECT ${orUnrenderable(p.object('Order', nodes, a))} FROM orders ${a} WHERE ${a}.id = ${idSql(a)}), 'null')`;
};

/** One side of the live book over the orders matching `where(alias)` (the resolver: tokenService.depth). */
function depthSql(p: Planner, nodes: readonly FieldNode[], args: Record<string, unknown>, where: (o: string, side: BookSide) => string): string {
  const side = args.side as BookSide;
  const first = (args.first as number | null | undefined) ?? 20;
  if (!BOOK_SIDES.includes(side) || !Number.isInteger(first) || first < 1 || first > MAX_DEPTH_LEVELS) return p.unrenderable('depth arguments');
  const dir = side === 'ASK' ? 'ASC' : 'DESC';
  const s = p.alias('s');
  const l = p.alias('l');
  const render: Record<string, string> = {
    side: jsonLiteral(side),
    levelCount: jsonInt(`${s}.levels`),
    orderCount: jsonInt(`${s}.orders`),
    totalAmount: jsonString(`COALESCE(${s}.amount, 0)::text`),
    minPrice: jsonNullableString(`${s}.lo::text`),
    maxPrice: jsonNullableString(`${s}.hi::text`),
  };
  for (const [key, f] of collectFields(subSelections(nodes), 'BookDepth', p.scope)) {
    if (f[0]!.name.value !== 'levels' || render[`levels:${key}`]) continue;
    const item = objectFieldsSql(p, f, 'DepthLevel', {
      price: jsonString(`${l}.price::text`),
      priceEth: jsonEther(`${l}.price`),
      orderCount: jsonInt(`${l}.n`),
      amount: jsonString(`${l}.amount::text`),
      cumulativeAmount: jsonString(`${l}.cumulative::text`),
    });
    const e = p.alias('e');
    render[`levels:${key}`] =
      `(SELECT '[' || COALESCE(string_agg(${item}, ',' ORDER BY ${l}.price ${dir}), '') || ']' FROM ` +
      `(SELECT ${e}.price, count(*) AS n, sum(${e}.amount) AS amount, sum(sum(${e}.amount)) OVER (ORDER BY ${e}.price ${dir}) AS cumulative ` +
      `FROM orders ${e} WHERE ${where(e, side)} GROUP BY ${e}.price ORDER BY ${e}.price ${dir} LIMIT ${first}) ${l})`;
  }
  const parts: { key: string; sql: string }[] = [];
  let summary = false;
  for (const [key, f] of collectFields(subSelections(nodes), 'BookDepth', p.scope)) {
    const name = f[0]!.name.value;
    const sql = name === '__typename' ? jsonLiteral('BookDepth') : name === 'levels' ? render[`levels:${key}`] : render[name];
    if (sql === undefined) return p.unrenderable(`BookDepth.${name}`);
    summary ||= name !== '__typename' && name !== 'levels' && name !== 'side';
    parts.push({ key, sql });
  }
  // the totals read every live order of the side; the levels stop after `first` prices
  if (!summary) return `(SELECT ${jsonObjectSql(parts)})`;
  const d = p.alias('d');
  return (
    `(SELECT ${jsonObjectSql(parts)} FROM (SELECT count(*) AS orders, count(DISTINCT ${d}.price) AS levels, sum(${d}.amount) AS amount, ` +
    `min(${d}.price) AS lo, max(${d}.price) AS hi FROM orders ${d} WHERE ${where(d, side)}) ${s})`
  );
}

/** Collection.depth, over the collections alias `t`. */
export const COLLECTION_DEPTH: FieldRead<'address'> = {
  kind: 'planned',
  columns: ['address'],
  plan: (p, nodes, args, t) => depthSql(p, nodes, args, (o, side) => liveSideSql(side, o, p.book, `${t}.address`)),
};

export const TOKEN_TYPE: ReadType = {
  // rows come from tokenRowsSql (the root planners below), over ownership and orders
  table: 'token_balances',
  rows: { metadata: TOKEN_METADATA_ROW },
  fields: {
    id: leaf((t) => jsonGlobalId('Token', `${t}.collection_address || ':' || ${t}.token_id::text`)),
    collectionAddress: leaf((t) => jsonString(`${t}.collection_address`)),
    collection: { kind: 'object', type: 'Collection', columns: [], from: (t, a) => `FROM collections ${a} WHERE ${a}.address = ${t}.collection_address`, nullable: false },
    tokenId: leaf((t) => jsonString(`${t}.token_id::text`)),
    owners: planned(owners),
    // the row's best ask (tokenRowsSql): declared, so that a holding's token joins it only when shown
    bestAsk: { kind: 'planned', columns: ['ask_id'], plan: (p, nodes, _args, t) => orderById(p, nodes, () => `${t}.ask_id`) },
    bestBid: planned((p, nodes, _args, t) => orderById(p, nodes, () => bestBidIdSql(p.book, `${t}.collection_address`, `${t}.token_id`))),
    lastSale: {
      kind: 'object',
      type: 'Sale',
      columns: [],
      from: (t, a) => `FROM sales ${a} WHERE ${a}.collection_address = ${t}.collection_address AND ${a}.token_id = ${t}.token_id ORDER BY ${a}.timestamp DESC, ${a}.id DESC LIMIT 1`,
      nullable: true,
    },
    listedAt: { kind: 'leaf', columns: ['ask_id', 'listed_at'], json: (t) => `CASE WHEN ${t}.ask_id IS NULL THEN 'null' ELSE ${jsonUnixTime(`${t}.listed_at`)} END` },
    ...TOKEN_METADATA_FIELDS,
    depth: planned((p, nodes, args, t) => depthSql(p, nodes, args, (o, side) => liveSideSql(side, o, p.book, `${t}.collection_address`, `${t}.token_id`))),
    activity: planned((p, nodes, args, t) => p.activityConnection(nodes, args, (m) => `${m}.collection_address = ${t}.collection_address AND ${m}.token_id = ${t}.token_id`)),
  },
};

/** Query.token: the token's row, or null when the index does not know it. */
export function planToken(p: Planner, nodes: readonly FieldNode[], args: Record<string, unknown>): string {
  const t = p.alias('t');
  const rows = tokenRowsSql(p.book, p.params.add(args.collection), { listed: null, tokenId: p.params.add(String(args.tokenId), '::numeric') });
  return `COALESCE((SELECT ${orUnrenderable(p.object('Token', nodes, t))} FROM (${rows}) ${t}), 'null')`;
}

/** Query.tokens: a keyset page over the collection's token rows (the resolver: tokenService.listTokens). */
export function planTokens(p: Planner, nodes: readonly FieldNode[], args: Record<string, unknown>): string {
  const parsed = parsePageArgs(args as PageArgs, TOKEN_PAGE_RULES);
  if (!parsed.ok) return p.unrenderable('page arguments');
  const q = parsed.value;
  const sort = (args.sort ?? 'PRICE_ASC') as TokenSort;
  if (!TOKEN_SORTS.includes(sort)) return p.unrenderable('sort');
  const r = p.alias('r');
  const listed = ((args.filter ?? {}) as { listed?: boolean | null }).listed ?? null;
  let filter: TokenTraitFilter;
  try {
    filter = parseTokenTraitFilter(args.filter as Parameters<typeof parseTokenTraitFilter>[0]);
  } catch {
    // the resolvers answer the refusal
    return p.unrenderable('token filter');
  }
  const table = `(${tokenPageRowsSql(p.book, p.params.add(args.collection), { listed, sort, filter }, (v, cast) => p.params.add(v, cast))})`;
  const where = (['after', 'before'] as const).flatMap((side) => {
    const cursor = q[side] === undefined ? null : parseTokenCursor(q[side]);
    return cursor ? [tokenKeysetSql(sort, side, cursor, r, (v) => p.params.add(v, '::numeric'))] : [];
  });
  return p.connection(nodes, {
    type: 'Token',
    table,
    o: r,
    where,
    counted: [],
    order: tokenOrderSql(sort, r, q.fromEnd, listed === true),
    listOrder: tokenOrderSql(sort, r, false, listed === true),
    first: q.first,
    fromEnd: q.fromEnd,
    hasPrevious: q.after !== undefined,
    hasNext: q.before !== undefined,
    cursor: tokenCursorSql(r, sort),
    guards: [],
  });
}
