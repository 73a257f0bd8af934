// "The highest price, the oldest order on a tie" (a best bid: Collection.topBid, the collection
// offers of Token.bestBid, the kept best bid of best-bid-sql.ts) as two index probes. ORDER BY
// price DESC, id ASC has no index that reads these in order (the indexes end in price, id: read
// backwards they give price DESC, id DESC), so PostgreSQL sorted every matching row: 20,959 live
// collection offers of one collection at 10M orders, 93 ms for one best bid. Here a backward read
// of the index finds the highest price (it stops at the first row passing the filters), then a
// forward read at that price finds the oldest row. (A token's own offers have an index in that
// order, orders_token_bid_best_idx: one probe, src/services/token-sql.ts.)
/**
 * The conditions and ordering after `FROM orders <a>` that leave the one row matching `where`
 * with the highest price, the lowest id on a tie (none when nothing matches). `where(alias)` is
 * the condition over any alias of orders.
 */
export function highestOldestSql(a: string, where: (alias: string) => string): string {
  const m = `${a}_top`;
  return `WHERE ${where(a)} AND ${a}.price = (SELECT ${m}.price FROM orders ${m} WHERE ${where(m)} ORDER BY ${m}.price DESC LIMIT 1) ORDER BY ${a}.id ASC LIMIT 1`;
}
