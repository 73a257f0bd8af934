-- Daily sales rollup per collection (issue 5). The 1y window and the 1y before it span up to
-- 17,520 hourly buckets; with days, a stats read touches at most one row per day of history
-- plus the hours of the edge days (src/services/stats.ts). Maintained by recordSale together
-- with the hourly bucket; days are UTC, binned like the hours (origin 2000-01-01 00:00 UTC).

-- CreateTable
CREATE TABLE "sale_day_buckets" (
    "collection_address" VARCHAR(42) NOT NULL,
    "day_start" TIMESTAMPTZ(3) NOT NULL,
    "volume" DECIMAL(90,0) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "sale_day_buckets_pkey" PRIMARY KEY ("collection_address","day_start")
);

-- AddForeignKey
ALTER TABLE "sale_day_buckets" ADD CONSTRAINT "sale_day_buckets_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Backfill from the hourly buckets of an existing database.
INSERT INTO "sale_day_buckets" ("collection_address", "day_start", "volume", "count")
SELECT "collection_address", date_bin('1 day', "bucket_start", TIMESTAMPTZ '2000-01-01 00:00:00+00'), SUM("volume"), SUM("count")
FROM "sale_buckets"
GROUP BY 1, 2;
