// The market an order meets (src/domain/order-warnings.ts decides what to warn about): the
// collection's floor (its cheapest live fixed-price listing, per unit), the best listing a bid could take, the best offer that could fill a listing
// and the recent sales' median, per unit, in one statement with the book's own rules of what is
// live (./token-sql.ts).
import { orderWarnings, type OrderWarning, type WarnedOrder } from '../domain/order-warnings.js';
import type { Order } from '../generated/prisma/client.js';
import { readDb, type ServiceDeps } from './deps.js';
import { Params } from './order-page-sql.js';
import { liveAskSql, liveBidSql } from './token-sql.js';
import { bookParams } from './tokens.js';

/** Recent sales: the last 100 of the last 30 days. */
const RECENT_SALES = 100;
const RECENT_DAYS = 30;

export function createOrderWarningsService(deps: ServiceDeps) {
  /**
   * The warnings of an order against the market now (reads the replica when there is one);
   * `storedHash`: the order is in the book already, and is not compared with itself.
   */
  async function warningsFor(order: WarnedOrder & { collection: string; tokenId: bigint | null }, storedHash?: string): Promise<OrderWarning[]> {
    const now = deps.now();
    const nowSeconds = BigInt(Math.floor(now.getTime() / 1000));
    const p = new Params();
    let nowParam: string | undefined;
    const b = bookParams((v, cast) => p.add(v, cast), () => (nowParam ??= p.add(nowSeconds.toString(), '::bigint')), deps.network.strategies);
    const collection = p.add(order.collection);
    const tokenId = order.tokenId === null ? undefined : p.add(order.tokenId.toString(), '::numeric');
    const perUnit = (t: string) => `div(${t}.price, greatest(${t}.amount, 1))`;
    const others = storedHash === undefined ? '' : ` AND x.hash <> ${p.add(storedHash)}`;
    const notSelf = (t: string) => others.replace('x.', `${t}.`);
    const since = p.add(new Date(now.getTime() - RECENT_DAYS * 86_400_000).toISOString(), '::timestamptz');
    const [row] = await readDb(deps).sql.query<{ floor: string | null; best_ask: string | null; best_bid: string | null; median: string | null; n: number }>(
      `SELECT (SELECT MIN(${perUnit('f')}) FROM orders f WHERE ${liveAskSql('f', b, collection)}${notSelf('f')})::text AS floor,
              (SELECT MIN(${perUnit('a')}) FROM orders a WHERE ${liveAskSql('a', b, collection, tokenId)}${notSelf('a')})::text AS best_ask,
              (SELECT MAX(${perUnit('o')}) FROM orders o WHERE ${liveBidSql('o', b, collection, tokenId)}${notSelf('o')})::text AS best_bid,
              (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY div(s.price, greatest(s.amount, 1))) FROM
                 (SELECT s.price, s.amount FROM sales s WHERE s.collection_address = ${collection} AND s.timestamp > ${since}
                   ORDER BY s.timestamp DESC LIMIT ${RECENT_SALES}) s)::text AS median,
              (SELECT count(*) FROM (SELECT 1 FROM sales s WHERE s.collection_address = ${collection} AND s.timestamp > ${since} LIMIT ${RECENT_SALES}) s)::int AS n`,
      p.values,
    );
    const big = (v: string | null) => (v === null ? null : BigInt(v));
    return orderWarnings(
      order,
      { floor: big(row!.floor), bestAsk: big(row!.best_ask), bestBid: big(row!.best_bid), salesMedian: big(row!.median), salesCount: Number(row!.n) },
      nowSeconds,
    );
  }

  /** A stored order's warnings against the book without itself (CreateOrderSuccess.warnings). */
  function warningsForStored(o: Order): Promise<OrderWarning[]> {
    const big = (d: { toFixed(): string }) => BigInt(d.toFixed());
    return warningsFor(
      { collection: o.collectionAddress, tokenId: o.tokenId === null ? null : big(o.tokenId), isOrderAsk: o.isOrderAsk, price: big(o.price), amount: big(o.amount), startTime: o.startTime, endTime: o.endTime },
      o.hash,
    );
  }

  return { warningsFor, warningsForStored };
}

export type OrderWarningsService = ReturnType<typeof createOrderWarningsService>;
