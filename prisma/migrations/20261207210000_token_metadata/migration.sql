-- Token metadata (docs/metadata.md): what a token's URI says it is, its traits, their counts per
-- collection and OpenRarity's ranks.
--
-- token_metadata is also the metadata queue: a row is due for a read while due_at is set and past,
-- and a worker leases it (lease_owner, lease_expires_at) with FOR UPDATE SKIP LOCKED, as the
-- webhook sender leases endpoints, so several instances never read one token at once and a dead
-- instance's lease runs out. One row per token: a second request for a read while one is due
-- only moves due_at, it never queues the token twice.
CREATE TYPE "MetadataStatus" AS ENUM ('PENDING', 'OK', 'ERROR');
CREATE TYPE "AttributeKind" AS ENUM ('STRING', 'NUMBER', 'DATE');

CREATE TABLE "token_metadata" (
    "collection_address" VARCHAR(42) NOT NULL,
    "token_id" DECIMAL(78,0) NOT NULL,
    "status" "MetadataStatus" NOT NULL DEFAULT 'PENDING',
    "error_code" VARCHAR(32),
    "error_message" TEXT,
    "token_uri" TEXT,
    "fetched_at" TIMESTAMPTZ(3),
    -- when a mutable (http) document is read again without being asked; null: on an event or a refresh only
    "next_fetch_at" TIMESTAMPTZ(3),
    -- the document as read (valid JSON, at most the fetcher's cap) and the SHA-256 of its bytes
    "document" TEXT,
    "document_sha256" CHAR(64),
    "name" TEXT,
    "description" TEXT,
    "image" TEXT,
    "animation_url" TEXT,
    "external_url" TEXT,
    "rarity_score" DOUBLE PRECISION,
    "rarity_rank" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "due_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    -- the last refresh a client asked for (its cooldown)
    "refresh_requested_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "token_metadata_pkey" PRIMARY KEY ("collection_address", "token_id")
);
CREATE INDEX "token_metadata_due_idx" ON "token_metadata" ("due_at") WHERE "due_at" IS NOT NULL;
-- leases a dead worker left behind (their due_at was cleared by the claim)
CREATE INDEX "token_metadata_lease_idx" ON "token_metadata" ("lease_expires_at") WHERE "lease_owner" IS NOT NULL;
CREATE INDEX "token_metadata_rarity_idx" ON "token_metadata" ("collection_address", "rarity_rank", "token_id") WHERE "rarity_rank" IS NOT NULL;

-- A token's traits as its current document states them, replaced as a whole with it. One row per
-- (trait type, value): a document naming a pair twice counts once.
CREATE TABLE "token_attributes" (
    "collection_address" VARCHAR(42) NOT NULL,
    "token_id" DECIMAL(78,0) NOT NULL,
    "trait_type" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "display_type" TEXT,
    "kind" "AttributeKind" NOT NULL,
    "number_value" DOUBLE PRECISION,
    -- its place in the document, so a token shows its traits in the order its creator wrote them
    "position" INTEGER NOT NULL,
    CONSTRAINT "token_attributes_pkey" PRIMARY KEY ("collection_address", "token_id", "trait_type", "value")
);
-- the tokens of one trait value (filters, trait floors)
CREATE INDEX "token_attributes_value_idx" ON "token_attributes" ("collection_address", "trait_type", "value", "token_id");

-- How many of a collection's tokens carry each trait value: changed by the same statement that
-- replaces a token's traits (src/db/token-metadata-sql.ts), so it is exact at every commit.
CREATE TABLE "trait_values" (
    "collection_address" VARCHAR(42) NOT NULL,
    "trait_type" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "kind" "AttributeKind" NOT NULL,
    "number_value" DOUBLE PRECISION,
    "token_count" INTEGER NOT NULL,
    CONSTRAINT "trait_values_pkey" PRIMARY KEY ("collection_address", "trait_type", "value")
);

-- Per collection: OpenRarity's last run and what is owed (rarity_due_at), the refresh cooldown.
CREATE TABLE "collection_metadata" (
    "collection_address" VARCHAR(42) NOT NULL,
    "rarity_due_at" TIMESTAMPTZ(3),
    "rarity_computed_at" TIMESTAMPTZ(3),
    "rarity_tokens_scored" INTEGER,
    "rarity_max_rank" INTEGER,
    "rarity_method" TEXT,
    "rarity_version" TEXT,
    "refresh_requested_at" TIMESTAMPTZ(3),
    CONSTRAINT "collection_metadata_pkey" PRIMARY KEY ("collection_address")
);
CREATE INDEX "collection_metadata_rarity_due_idx" ON "collection_metadata" ("rarity_due_at") WHERE "rarity_due_at" IS NOT NULL;

-- Where the metadata discoverer stands in the market event log (tokens first seen in a listing,
-- an offer, a transfer, a mint or a sale get a row of token_metadata): one row.
CREATE TABLE "metadata_discovery_cursor" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "tx_id" xid8 NOT NULL DEFAULT '0'::xid8,
    "event_id" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "metadata_discovery_cursor_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "metadata_discovery_cursor_one_row" CHECK ("id" = 1)
);
INSERT INTO "metadata_discovery_cursor" ("id") VALUES (1);

-- The metadata updates the indexer applied, by block, kept like token_transfers while their block
-- can still be reorganised away: a reorg queues the tokens they named again (the token URI the
-- replaced branch set may be gone, and the document read from it with it).
CREATE TABLE "metadata_update_journal" (
    "id" BIGSERIAL NOT NULL,
    "block_number" BIGINT NOT NULL,
    "collection_address" VARCHAR(42) NOT NULL,
    "from_token_id" DECIMAL(78,0) NOT NULL,
    "to_token_id" DECIMAL(78,0) NOT NULL,
    CONSTRAINT "metadata_update_journal_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "metadata_update_journal_block_number_idx" ON "metadata_update_journal" ("block_number");

-- A token whose shown document changed (a reveal, an update: not its first read) is a market event,
-- so streams and webhooks carry it. Not used in this transaction (PostgreSQL allows adding it here).
ALTER TYPE "MarketEventType" ADD VALUE 'METADATA_UPDATE';
