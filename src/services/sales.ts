// Executed sales (the indexer's fills, the demo seed): each one lands in `sales`, in its hourly
// bucket and in its daily bucket in the same statement, so statistics never see one without the
// others and a replayed log (same tx hash + log index) changes nothing. The statement itself is
// src/db/sale-sql.ts, shared with the indexer's batch script.
import { DAY_BUCKET_SQL, HOUR_BUCKET_SQL, RECORD_SALE_SQL, saleParams, type SaleRecord } from '../db/sale-sql.js';
import type { Sale } from '../generated/prisma/client.js';
import type { ServiceDeps } from './deps.js';

export { DAY_BUCKET_SQL, HOUR_BUCKET_SQL };

export type SaleInput = SaleRecord;

export function createSalesService(deps: ServiceDeps) {
  const { sql } = deps.db;

  /** Records one sale; returns false when it was already recorded. */
  async function recordSale(s: SaleInput): Promise<boolean> {
    const rows = await sql.query<{ inserted: number }>(RECORD_SALE_SQL, saleParams(s));
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

  /** The sales with these keys (Sale node ids), in no particular order; unknown keys are left out. */
  async function salesByKey(keys: readonly { txHash: string; logIndex: number }[]): Promise<Sale[]> {
    return deps.db.prisma.sale.findMany({ where: { OR: [...keys] } });
  }

  return { recordSale, rebuildSaleBuckets, salesByKey };
}

export type SalesService = ReturnType<typeof createSalesService>;
