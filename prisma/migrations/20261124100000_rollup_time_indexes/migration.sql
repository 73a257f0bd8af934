-- Ranking collections by a rolling volume (Query.collections orderBy VOLUME_24H, VOLUME_7D,
-- CHANGE_24H; src/services/ranking-keys.ts) reads the rollup rows of a time range across every
-- collection. The primary keys lead with the collection, so without these each such read scanned
-- the whole rollup tables (sales already has its timestamp index).
CREATE INDEX "sale_buckets_bucket_start_idx" ON "sale_buckets" ("bucket_start");
CREATE INDEX "sale_day_buckets_day_start_idx" ON "sale_day_buckets" ("day_start");
