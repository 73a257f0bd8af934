// Executed sales (the indexer's fills, the demo seed): each one lands in `sales`, in its hourly
// bucket and in its daily bucket in the same statement, so statistics never see one without the
// others and a replayed log (same tx hash + log index) changes nothing.
import type { ServiceDeps } from './deps.js';

export interface SaleInput {
  collection: string;
  tokenId: bigint;
  amount: bigint;
  price: bigint;
  currency: string;
  buyer: string;
  seller: string;
  orderHash: string | null;
  strategy: string | null;
  isTakerAsk: boolean;
  blockNumber: bigint;
  txHash: string;
  logIndex: number;
  timestamp: Date;
}

// Buckets are UTC hours and days. The origin is a whole number of days after the unix epoch, so
// a bucket starts where flooring epoch milliseconds to the hour/day says (src/services/stats.ts
// relies on that).
export const HOUR_BUCKET_SQL = (column: string) => `date_bin('1 hour', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
export const DAY_BUCKET_SQL = (column: string) => `date_bin('1 day', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;

export function createSalesService(deps: ServiceDeps) {
  const { sql } = deps.db;

  /** Records one sale; returns false when it was already recorded. */
  async function recordSale(s: SaleInput): Promise<boolean> {
    const rows = await sql.query<{ inserted: number }>(
      `WITH ins AS (
         INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash,
                            strategy, is_taker_ask, block_number, tx_hash, log_index, timestamp)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (tx_hash, log_index) DO NOTHING
         RETURNING collection_address, timestamp, price
       ), bucket AS (
         INSERT INTO sale_buckets (collection_address, bucket_start, volume, count)
         SELECT collection_address, ${HOUR_BUCKET_SQL('timestamp')}, price, 1 FROM ins
         ON CONFLICT (collection_address, bucket_start)
         DO UPDATE SET volume = sale_buckets.volume + EXCLUDED.volume, count = sale_buckets.count + EXCLUDED.count
         RETURNING 1
       ), day AS (
         INSERT INTO sale_day_buckets (collection_address, day_start, volume, count)
         SELECT collection_address, ${DAY_BUCKET_SQL('timestamp')}, price, 1 FROM ins
         ON CONFLICT (collection_address, day_start)
         DO UPDATE SET volume = sale_day_buckets.volume + EXCLUDED.volume, count = sale_day_buckets.count + EXCLUDED.count
         RETURNING 1
       )
       SELECT (SELECT COUNT(*) FROM ins)::int AS inserted`,
      [
        s.collection,
        s.tokenId.toString(),
        s.amount.toString(),
        s.price.toString(),
        s.currency,
        s.buyer,
        s.seller,
        s.orderHash,
        s.strategy,
        s.isTakerAsk,
        s.blockNumber.toString(),
        s.txHash,
        s.logIndex,
        s.timestamp.toISOString(),
      ],
    );
    return (rows[0]?.inserted ?? 0) > 0;
  }

  /** Recomputes every hourly and daily bucket from the sales table (after bulk loads). */
  async function rebuildSaleBuckets(): Promise<void> {
    await sql.exec(`BEGIN;
      DELETE FROM sale_buckets;
      DELETE FROM sale_day_buckets;
      INSERT INTO sale_buckets (collection_address, bucket_start, volume, count)
        SELECT collection_address, ${HOUR_BUCKET_SQL('timestamp')}, SUM(price), COUNT(*) FROM sales GROUP BY 1, 2;
      INSERT INTO sale_day_buckets (collection_address, day_start, volume, count)
        SELECT collection_address, ${DAY_BUCKET_SQL('bucket_start')}, SUM(volume), SUM(count) FROM sale_buckets GROUP BY 1, 2;
      COMMIT;`);
  }

  return { recordSale, rebuildSaleBuckets };
}

export type SalesService = ReturnType<typeof createSalesService>;
