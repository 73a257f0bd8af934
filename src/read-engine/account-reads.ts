// The read engine's declarations and root planner for accounts (the resolvers they stand for:
// src/schema/account.ts). An account row is its address alone (`address`); a holding row is a row
// of holdingRowsSql (src/services/account-sql.ts): collection_address, token_id, balance.
// Written against ./read-type.ts only: the declarations (./read-types.ts) and the planner import it.
import type { FieldNode } from 'graphql';
import { isOrderHashCursor, parseAccountPage } from '../domain/account-query.js';
import type { PageArgs } from '../domain/page-args.js';
import {
  bestBidPriceSql,
  floorPriceSql,
  holdingCursorSql,
  holdingKeysetSql,
  holdingOrderSql,
  holdingRowsSql,
  holdingTotalsSql,
  offersKeysetSql,
  offersReceivedOrderSql,
  offersReceivedSql,
  parseHoldingCursor,
} from '../services/account-sql.js';
import { tokenRowsSql } from '../services/token-sql.js';
import { jsonGlobalId, jsonNullableString, jsonString, orUnrenderable } from './json-sql.js';
import type { FieldRead, Planner, ReadType } from './read-type.js';

type Planned = Extract<FieldRead<string>, { kind: 'planned' }>['plan'];
const planned = (plan: Planned): FieldRead<string> => ({ kind: 'planned', columns: [], plan });
const leaf = (json: (t: string) => string): FieldRead<string> => ({ kind: 'leaf', columns: [], json });

/** The page's size, direction and cursors as the resolver parses them; anything it refuses is left to it. */
function accountPage(p: Planner, args: Record<string, unknown>, isCursor: (c: string) => boolean) {
  const parsed = parseAccountPage(args as PageArgs, isCursor);
  return parsed.ok ? parsed.value : p.unrenderable('account page arguments');
}

const offersReceived: Planned = (p, nodes, args, t) => {
  const q = accountPage(p, args, isOrderHashCursor);
  const o = p.alias('o');
  const collection = args.collection ? p.params.add(args.collection) : undefined;
  const only = collection ? [`${o}.collection_address = ${collection}`] : [];
  const guards: string[] = [];
  const bounds: ((x: string) => string)[] = [];
  for (const side of ['after', 'before'] as const) {
    if (q[side] === undefined) continue;
    const hash = p.params.add(q[side]);
    bounds.push((x) => offersKeysetSql(x, side, hash));
    guards.push(`EXISTS (SELECT 1 FROM orders WHERE hash = ${hash})`);
  }
  const page = { rows: q.first + 1, reversed: q.fromEnd, bounds: (x: string) => bounds.map((b) => b(x)) };
  return p.connection(nodes, {
    type: 'Order',
    table: 'orders',
    o,
    // the page reads each holding's first offers past its cursors; the count, every offer
    where: [offersReceivedSql(o, p.book, `${t}.address`, page, collection), ...only, ...page.bounds(o)],
    counted: [offersReceivedSql(o, p.book, `${t}.address`, undefined, collection), ...only],
    order: offersReceivedOrderSql(o, q.fromEnd),
    listOrder: offersReceivedOrderSql(o),
    first: q.first,
    fromEnd: q.fromEnd,
    hasPrevious: q.after !== undefined,
    hasNext: q.before !== undefined,
    cursor: `${o}.hash`,
    guards,
  });
};

const holdings: Planned = (p, nodes, args, t) => {
  const q = accountPage(p, args, (c) => parseHoldingCursor(c) !== null);
  const r = p.alias('r');
  const rows = holdingRowsSql(`${t}.address`, args.collection ? p.params.add(args.collection) : undefined);
  const totals = holdingTotalsSql(p.book, rows);
  const where = (['after', 'before'] as const).flatMap((side) => {
    const cursor = q[side] === undefined ? null : parseHoldingCursor(q[side])!;
    return cursor ? [holdingKeysetSql(r, side, p.params.add(cursor.collection), p.params.add(cursor.tokenId, '::numeric'))] : [];
  });
  return p.connection(nodes, {
    type: 'AccountHolding',
    table: `(${rows})`,
    o: r,
    where,
    counted: [],
    order: holdingOrderSql(r, q.fromEnd),
    listOrder: holdingOrderSql(r),
    first: q.first,
    fromEnd: q.fromEnd,
    hasPrevious: q.after !== undefined,
    hasNext: q.before !== undefined,
    cursor: holdingCursorSql(r),
    guards: [],
    extra: { valueAtFloor: jsonString(`${totals.atFloor}::text`), valueAtBestBid: jsonString(`${totals.atBestBid}::text`) },
  });
};

export const ACCOUNT_TYPE: ReadType = {
  // rows come from planAccount: the address alone
  table: 'token_balances',
  fields: {
    id: leaf((t) => jsonGlobalId('Account', `${t}.address`)),
    address: leaf((t) => jsonString(`${t}.address`)),
    orders: { kind: 'orders', columns: [], pin: (t, o) => `${o}.signer = ${t}.address`, pins: 'signer' },
    offersReceived: planned(offersReceived),
    holdings: planned(holdings),
    activity: planned((p, nodes, args, t) => p.activityConnection(nodes, args, (m) => `(${m}.from_address = ${t}.address OR ${m}.to_address = ${t}.address)`)),
  },
};

/** A price times the holding's balance, or null without a price. */
const times = (price: string, t: string) => jsonNullableString(`(${price} * ${t}.balance)::text`);

export const ACCOUNT_HOLDING_TYPE: ReadType = {
  table: 'token_balances',
  fields: {
    // the token's row as Query.token reads it: its best ask found once (src/services/token-sql.ts),
    // and only when the selection shows it (a wallet page listing token ids reads no listing)
    token: planned((p, nodes, _args, t) => {
      const a = p.alias('t');
      if (!p.columnsRead('Token', nodes).has('ask_id')) {
        return `(SELECT ${p.object('Token', nodes, a)} FROM (SELECT ${t}.collection_address, ${t}.token_id, NULL::bigint AS ask_id, NULL::numeric AS ask_price, NULL::bigint AS listed_at) ${a})`;
      }
      const ask = p.alias('l');
      const asks = tokenRowsSql(p.book, `${t}.collection_address`, { listed: true, tokenId: `${t}.token_id` });
      return (
        `(SELECT ${p.object('Token', nodes, a)} FROM (SELECT ${t}.collection_address, ${t}.token_id, ${ask}.ask_id, ${ask}.ask_price, ${ask}.listed_at ` +
        `FROM (SELECT 1) ${a}_ LEFT JOIN (${asks}) ${ask} ON true) ${a})`
      );
    }),
    balance: leaf((t) => jsonString(`${t}.balance::text`)),
    floorPrice: planned((p, _n, _a, t) => jsonNullableString(`${floorPriceSql(p.book, `${t}.collection_address`)}::text`)),
    valueAtFloor: planned((p, _n, _a, t) => times(floorPriceSql(p.book, `${t}.collection_address`), t)),
    bestBidPrice: planned((p, _n, _a, t) => jsonNullableString(`${bestBidPriceSql(p.book, `${t}.collection_address`, `${t}.token_id`)}::text`)),
    valueAtBestBid: planned((p, _n, _a, t) => times(bestBidPriceSql(p.book, `${t}.collection_address`, `${t}.token_id`), t)),
  },
};

/** Query.account: every address has one; its row is the address. */
export function planAccount(p: Planner, nodes: readonly FieldNode[], args: Record<string, unknown>): string {
  const t = p.alias('a');
  return `(SELECT ${orUnrenderable(p.object('Account', nodes, t))} FROM (SELECT ${p.params.add(args.address)}::varchar AS address) ${t})`;
}
