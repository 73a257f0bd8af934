// The one home of sale recording: the statement that writes a sale with its hourly
// and daily bucket, used by SalesService.recordSale (bind parameters) and by the indexer's batch
// script (checked literals, inside the batch transaction). Idempotent per log (tx hash + log index).
import { sqlBool, sqlHex, sqlInt, sqlTime } from './sql-literals.js';

// Buckets are UTC hours and days. The origin is a whole number of days after the unix epoch, so
// a bucket starts where flooring epoch milliseconds to the hour/day says (src/services/stats.ts
// relies on that).
export const HOUR_BUCKET_SQL = (column: string) => `date_bin('1 hour', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
export const DAY_BUCKET_SQL = (column: string) => `date_bin('1 day', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;

export interface SaleRecord {
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

const COLUMNS = [
  'collection_address',
  'token_id',
  'amount',
  'price',
  'currency_address',
  'buyer',
  'seller',
  'order_hash',
  'strategy',
  'is_taker_ask',
  'block_number',
  'tx_hash',
  'log_index',
  'timestamp',
] as const;

/** SQL expressions for the 14 columns above, in order. Returns one row: inserted (0 or 1). */
function recordSaleStatement(values: readonly string[]): string {
  return `WITH ins AS (
  INSERT INTO sales (${COLUMNS.join(', ')})
  VALUES (${values.join(', ')})
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
SELECT (SELECT COUNT(*) FROM ins)::int AS inserted`;
}

/** The statement with bind parameters $1..$14 and their values (saleParams). */
export const RECORD_SALE_SQL = recordSaleStatement(COLUMNS.map((_, i) => `$${i + 1}`));

export function saleParams(s: SaleRecord): unknown[] {
  return [
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
  ];
}

/** The same statement with the values spelled as checked literals (multi-statement scripts). */
export function recordSaleLiteralSql(s: SaleRecord): string {
  const hexOrNull = (v: string | null) => (v === null ? 'NULL' : sqlHex(v));
  return recordSaleStatement([
    sqlHex(s.collection),
    sqlInt(s.tokenId),
    sqlInt(s.amount),
    sqlInt(s.price),
    sqlHex(s.currency),
    sqlHex(s.buyer),
    sqlHex(s.seller),
    hexOrNull(s.orderHash),
    hexOrNull(s.strategy),
    sqlBool(s.isTakerAsk),
    sqlInt(s.blockNumber),
    sqlHex(s.txHash),
    sqlInt(s.logIndex),
    sqlTime(s.timestamp),
  ]);
}
