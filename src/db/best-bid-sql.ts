// The collection's best bid, kept so that its moves are events (BEST_BID_CHANGE, written by a
// trigger on collection_best_bids in the same transaction). The rule is Collection.topBid's
// (src/services/collection-market.ts): the highest VALID bid, token or collection offer, started
// and not ended at `now`, ties to the oldest. It is recorded wherever the floor is
// (src/db/floor-sql.ts): after a submission, an indexer batch or a rollback for the collections
// they touched, and at every catch-up for the collections whose kept best bid ended or stopped
// being VALID. A bid signed to start later than it was submitted is seen at the next write that
// touches its collection.
import { highestOldestSql } from './highest-oldest-sql.js';
import { sqlInt, sqlTime } from './sql-literals.js';

const seconds = (now: Date) => sqlInt(Math.floor(now.getTime() / 1000));

/**
 * For every collection in `collections` (a query returning one column `c`), its best live bid at
 * `now` when it differs from the kept one; a collection that never had a bid gets a row only once
 * it has one.
 */
export function recordBestBidsSql(collections: string, now: Date): string {
  const t = seconds(now);
  return `WITH touched AS (SELECT DISTINCT c FROM (${collections}) x), cur AS (
  SELECT t.c, b.price, b.hash, k.collection_address IS NOT NULL AS kept, k.price AS kept_price, k.order_hash AS kept_hash
  FROM touched t
  LEFT JOIN LATERAL (
    SELECT o.price, o.hash FROM orders o
     ${highestOldestSql('o', (x) => `${x}.collection_address = t.c AND NOT ${x}.is_order_ask AND ${x}.status = 'VALID' AND ${x}.start_time <= ${t} AND ${x}.end_time >= ${t}`)}
  ) b ON true
  LEFT JOIN collection_best_bids k ON k.collection_address = t.c
)
INSERT INTO collection_best_bids (collection_address, price, order_hash, at)
SELECT c, price, hash, ${sqlTime(now)} FROM cur
WHERE CASE WHEN kept THEN (kept_price, kept_hash) IS DISTINCT FROM (price, hash) ELSE price IS NOT NULL END
ON CONFLICT (collection_address) DO UPDATE SET price = EXCLUDED.price, order_hash = EXCLUDED.order_hash, at = EXCLUDED.at`;
}

/** The collections whose kept best bid is no longer live at `now` (it ended, or is no longer VALID). */
export function endedBestBidsSql(now: Date): string {
  return `SELECT k.collection_address AS c FROM collection_best_bids k JOIN orders o ON o.hash = k.order_hash
  WHERE o.status <> 'VALID' OR o.end_time < ${seconds(now)}`;
}
