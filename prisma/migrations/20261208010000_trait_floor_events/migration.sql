-- A trait value's floor moving is a market event (TRAIT_FLOOR_CHANGE), so streams and webhooks
-- carry it (docs/metadata.md "Trait floor events"). The event names its trait type and value in
-- two new columns, null on every other event (nullable columns without a default: adding them
-- rewrites nothing and the previous release, which never names them, keeps working).
ALTER TYPE "MarketEventType" ADD VALUE 'TRAIT_FLOOR_CHANGE';
ALTER TABLE "market_events" ADD COLUMN "trait_type" TEXT, ADD COLUMN "trait_value" TEXT;

-- The last floor each trait value's event announced, and the token whose ask it was: a pass
-- recomputes a value when a token carrying it, or the token that held its floor, is named by the
-- log or crosses a listing's start or end time (src/db/trait-floor-sql.ts).
CREATE TABLE "trait_floors" (
    "collection_address" VARCHAR(42) NOT NULL,
    "trait_type" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "floor_price" DECIMAL(78,0),
    "floor_token_id" DECIMAL(78,0),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trait_floors_pkey" PRIMARY KEY ("collection_address", "trait_type", "value")
);
CREATE INDEX "trait_floors_floor_token_idx" ON "trait_floors" ("collection_address", "floor_token_id") WHERE "floor_token_id" IS NOT NULL;

-- Where the trait floor pass stands: its position in the log's reading order (tx_id, id) and the
-- clock second up to which listing start and end times were looked at. It starts at the log's end:
-- the first event of a value after this migration states its floor.
CREATE TABLE "trait_floor_cursor" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "tx_id" xid8 NOT NULL DEFAULT '0'::xid8,
    "event_id" BIGINT NOT NULL DEFAULT 0,
    "checked_until" BIGINT,
    "last_events" INTEGER NOT NULL DEFAULT 0,
    "last_moves" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "trait_floor_cursor_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "trait_floor_cursor_one_row" CHECK ("id" = 1)
);
INSERT INTO "trait_floor_cursor" ("id", "tx_id", "event_id")
SELECT 1, COALESCE(l.tx_id, '0'::xid8), COALESCE(l.id, 0)
FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT e.tx_id, e.id FROM "market_events" e ORDER BY e.tx_id DESC, e.id DESC LIMIT 1) l ON true;
