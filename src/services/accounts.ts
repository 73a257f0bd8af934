// An account's side of the market as the resolvers read it (the read engine renders the same
// answers in the request's one statement: src/read-engine/account-reads.ts): the offers it could
// fill and the tokens it holds with their values. The rules are ./account-sql.ts.
import { ServiceError } from '../domain/errors.js';
import { pageOfScan, type PageQuery } from '../domain/page-args.js';
import type { Order } from '../generated/prisma/client.js';
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
} from './account-sql.js';
import { nowSeconds, type ServiceDeps } from './deps.js';
import { Params } from './order-page-sql.js';
import { bookParams } from './tokens.js';

export interface OffersPage {
  orders: Order[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/** One token held: the balance (decimal text) and the prices it is valued at (null: none). */
export interface Holding {
  collectionAddress: string;
  tokenId: string;
  balance: string;
  floorPrice: string | null;
  bestBidPrice: string | null;
  cursor: string;
}

export interface HoldingsPage {
  holdings: Holding[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
  valueAtFloor: string;
  valueAtBestBid: string;
}

interface Queryable {
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
}

/** A price times a balance, or null without a price. */
export const valueOf = (price: string | null, balance: string): string | null => (price === null ? null : (BigInt(price) * BigInt(balance)).toString());

export function createAccountService(deps: ServiceDeps) {
  const params = () => {
    const p = new Params();
    const b = bookParams((v, cast) => p.add(v, cast), () => p.add(nowSeconds(deps).toString(), '::bigint'), deps.network.strategies);
    return { p, b };
  };

  /** The live bids the account could fill, best first; cursors = order hashes (after: the previous page's last, before: the next page's first). */
  async function offersReceived(account: string, q: PageQuery & { collection?: string | null }, sql: Queryable = deps.db.sql): Promise<OffersPage> {
    await Promise.all(
      (['after', 'before'] as const).map(async (field) => {
        const hash = q[field];
        if (hash === undefined) return;
        const known = await sql.query<{ n: number }>('SELECT 1 AS n FROM orders WHERE hash = $1', [hash]);
        if (!known.length) throw new ServiceError('INVALID_CURSOR', `${field}: ${JSON.stringify(hash)} is not an order hash this service knows`);
      }),
    );
    const { p, b } = params();
    const counted = [offersReceivedSql('o', b, p.add(account))];
    if (q.collection) counted.push(`o.collection_address = ${p.add(q.collection)}`);
    const countValues = [...p.values];
    const where = [...counted];
    if (q.after !== undefined) where.push(offersKeysetSql('o', 'after', p.add(q.after)));
    if (q.before !== undefined) where.push(offersKeysetSql('o', 'before', p.add(q.before)));
    const [ids, count] = await Promise.all([
      sql.query<{ id: string }>(`SELECT o.id::text AS id FROM orders o WHERE ${where.join(' AND ')} ORDER BY ${offersReceivedOrderSql('o', q.fromEnd)} LIMIT ${q.first + 1}`, p.values),
      sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM orders o WHERE ${counted.join(' AND ')}`, countValues),
    ]);
    const { rows: page, hasNextPage, hasPreviousPage } = pageOfScan(ids.map((r) => BigInt(r.id)), q);
    const rows = page.length ? await deps.db.prisma.order.findMany({ where: { id: { in: page } } }) : [];
    const byId = new Map(rows.map((o) => [o.id, o]));
    return { orders: page.map((id) => byId.get(id)!), hasNextPage, hasPreviousPage, totalCount: Number(count[0]!.n) };
  }

  /** The tokens the account holds, by collection then token id, each with its floor and best bid; totals over every holding. */
  async function holdings(account: string, q: PageQuery & { collection?: string | null }, sql: Queryable = deps.db.sql): Promise<HoldingsPage> {
    // two statements, each with its own parameters
    const over = () => {
      const { p, b } = params();
      return { p, b, rows: holdingRowsSql(p.add(account), q.collection ? p.add(q.collection) : undefined) };
    };
    const sum = over();
    const totals = holdingTotalsSql(sum.b, sum.rows);
    const { p, b, rows } = over();
    const bounds = (['after', 'before'] as const).flatMap((side) => {
      const cursor = q[side] === undefined ? null : parseHoldingCursor(q[side])!;
      return cursor ? [holdingKeysetSql('r', side, p.add(cursor.collection), p.add(cursor.tokenId, '::numeric'))] : [];
    });
    const where = bounds.length ? `WHERE ${bounds.join(' AND ')}` : '';
    const [page, [sums]] = await Promise.all([
      sql.query<{ collection_address: string; token_id: string; balance: string; floor: string | null; bid: string | null; cursor: string }>(
        `SELECT r.collection_address, r.token_id::text AS token_id, r.balance::text AS balance, ${floorPriceSql(b, 'r.collection_address')}::text AS floor, ` +
          `${bestBidPriceSql(b, 'r.collection_address', 'r.token_id')}::text AS bid, ${holdingCursorSql('r')} AS cursor ` +
          `FROM (${rows}) r ${where} ORDER BY ${holdingOrderSql('r', q.fromEnd)} LIMIT ${q.first + 1}`,
        p.values,
      ),
      sql.query<{ n: string; floor: string; bid: string }>(`SELECT (SELECT count(*) FROM (${sum.rows}) r)::text AS n, ${totals.atFloor}::text AS floor, ${totals.atBestBid}::text AS bid`, sum.p.values),
    ]);
    const { rows: shown, hasNextPage, hasPreviousPage } = pageOfScan(page, q);
    return {
      holdings: shown.map((r) => ({ collectionAddress: r.collection_address, tokenId: r.token_id, balance: r.balance, floorPrice: r.floor, bestBidPrice: r.bid, cursor: r.cursor })),
      hasNextPage,
      hasPreviousPage,
      totalCount: Number(sums!.n),
      valueAtFloor: sums!.floor,
      valueAtBestBid: sums!.bid,
    };
  }

  return { offersReceived, holdings };
}

export type AccountService = ReturnType<typeof createAccountService>;
const byDeps = new WeakMap<ServiceDeps, AccountService>();
/** The account service of these dependencies, built on first use. */
export function accountService(deps: ServiceDeps): AccountService {
  let s = byDeps.get(deps);
  if (!s) byDeps.set(deps, (s = createAccountService(deps)));
  return s;
}
