-- A ranking by a rolling volume (src/services/ranking-keys.ts) sums the rollup rows of a time range
-- across every collection: at 10M orders and 1M sales, 2,870 rows for a 24-hour window, each read
-- from the heap after the time index (7.8 ms of the card page's 8.4). Carrying the collection and
-- the volume in the time indexes makes those reads index-only (2.5 ms). The price: a rollup
-- upsert (one per sale) changes an indexed column, so it is no longer a HOT update.
DROP INDEX "sale_buckets_bucket_start_idx";
CREATE INDEX "sale_buckets_bucket_start_idx" ON "sale_buckets" ("bucket_start") INCLUDE ("collection_address", "volume");
DROP INDEX "sale_day_buckets_day_start_idx";
CREATE INDEX "sale_day_buckets_day_start_idx" ON "sale_day_buckets" ("day_start") INCLUDE ("collection_address", "volume");
