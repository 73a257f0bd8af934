-- Issue 11: the market clock, the indexer's position for clients, time-driven floors and
-- collection backfills.

-- The timestamp of the cursor block (unix seconds): the market clock is the later of the wall
-- clock and this (src/services/market-clock.ts). The last block that carried an event the indexer
-- consumed, with its timestamp, for indexerStatus.
ALTER TABLE "indexer_cursor" ADD COLUMN "block_timestamp" BIGINT;
ALTER TABLE "indexer_cursor" ADD COLUMN "last_event_block" BIGINT;
ALTER TABLE "indexer_cursor" ADD COLUMN "last_event_timestamp" BIGINT;

-- The first block the live indexer followed a collection from (set by the first batch that read it
-- as known). Everything before it is the business of a backfill.
ALTER TABLE "collections" ADD COLUMN "indexed_from_block" BIGINT;

-- CreateTable
-- Floor history is also written when a listing reaches its startTime or passes its endTime; this
-- row says up to which unix second those time-driven changes are recorded.
CREATE TABLE "floor_time_cursor" (
    "id" SMALLINT NOT NULL,
    "processed_until" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "floor_time_cursor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
-- A collection whose transfers and sales before the live indexer followed it are still to be read:
-- from_block up to to_block (indexed_from_block - 1, fixed when the backfill starts); next_block is
-- the first block not yet applied, committed with each chunk so a restart resumes.
CREATE TABLE "collection_backfills" (
    "collection_address" VARCHAR(42) NOT NULL,
    "from_block" BIGINT NOT NULL,
    "to_block" BIGINT,
    "next_block" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "collection_backfills_pkey" PRIMARY KEY ("collection_address")
);

-- AddForeignKey
ALTER TABLE "collection_backfills" ADD CONSTRAINT "collection_backfills_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
