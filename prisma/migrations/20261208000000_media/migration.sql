-- Images served from our own origin (docs/media.md): logos, banners and token images, stored once
-- under the SHA-256 of their source bytes, with the variants we encoded from them.
--
-- The bytes live in these tables rather than in files beside the data or in a bucket: one
-- mechanism serves the embedded database (one box: PGlite's folder holds them) and PostgreSQL
-- shared by many instances (every instance reads the same rows), writes are transactional with
-- their bookkeeping (never a variant without its source row, never a row without its bytes), and
-- backups and copies of the database carry them. Serving does not read PostgreSQL per request:
-- a variant is immutable under its URL, so each instance keeps the hot ones in memory and a CDN
-- in front (MEDIA_BASE_URL) keeps them at the edge.
--
-- Only SQL reads and writes these tables (src/services/media/): they have no Prisma model.

-- A source image, as it was fetched or uploaded. Kept only to encode variants again (a token
-- image's larger sizes are encoded on their first request); never served.
CREATE TABLE "media" (
    "sha256" CHAR(64) NOT NULL,
    -- what the bytes are, sniffed from their content (src/domain/image-sniff.ts), never a header's word
    "mime_type" VARCHAR(32) NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    -- frames of an animation (1: a still image)
    "frames" INTEGER NOT NULL DEFAULT 1,
    "byte_size" INTEGER NOT NULL,
    "source" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- the last time a garbage collection pass (or a new reference) found it in use
    "last_referenced_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "media_pkey" PRIMARY KEY ("sha256")
);
-- already compressed image formats: no point in PostgreSQL trying again
ALTER TABLE "media" ALTER COLUMN "source" SET STORAGE EXTERNAL;

-- The bytes every media URL serves: one row per (source, variant), written once and never
-- changed (a variant name is a fixed recipe: a new recipe gets a new name, as URLs are cached
-- for a year).
CREATE TABLE "media_variants" (
    "sha256" CHAR(64) NOT NULL REFERENCES "media"("sha256") ON DELETE CASCADE,
    "variant" VARCHAR(16) NOT NULL,
    "content_type" VARCHAR(32) NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "byte_length" INTEGER NOT NULL,
    -- the strong entity tag, as sent (quoted): the SHA-256 of the bytes, shortened
    "etag" VARCHAR(72) NOT NULL,
    "bytes" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "media_variants_pkey" PRIMARY KEY ("sha256", "variant")
);
ALTER TABLE "media_variants" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;

-- Where images come from, and the queue that fetches them: one row per source URL (keyed by the
-- SHA-256 of its text, as a URL can be a data: URI of megabytes). A row is due while due_at is
-- set and past; a worker leases it (lease_owner, lease_expires_at) with FOR UPDATE SKIP LOCKED,
-- as the metadata queue leases tokens, so instances never fetch one URL at once and a dead
-- instance's lease runs out. The outcome is written only by the lease's owner.
CREATE TABLE "media_sources" (
    "url_sha256" CHAR(64) NOT NULL,
    "url" TEXT NOT NULL,
    -- the last fetch's outcome: PENDING (not fetched yet, or failing and retried), STORED or
    -- REFUSED (error_code says why; fetched again only when asked)
    "status" VARCHAR(8) NOT NULL DEFAULT 'PENDING',
    "error_code" VARCHAR(32),
    "error_message" TEXT,
    -- the media last stored from this URL: kept while the URL is fetched again (a refresh), so
    -- the image stays served until its replacement is stored
    "sha256" CHAR(64) REFERENCES "media"("sha256"),
    -- every variant encoded as soon as it is stored (logos, banners); otherwise the smallest only
    -- and the others on their first request (token images)
    "eager" BOOLEAN NOT NULL DEFAULT false,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "due_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "fetched_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- the last time something (a collection, a token's metadata, an enqueue) named this URL
    "last_referenced_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "media_sources_pkey" PRIMARY KEY ("url_sha256"),
    CONSTRAINT "media_sources_status" CHECK ("status" IN ('PENDING', 'STORED', 'REFUSED')),
    CONSTRAINT "media_sources_stored_has_media" CHECK ("status" <> 'STORED' OR "sha256" IS NOT NULL)
);
CREATE INDEX "media_sources_due_idx" ON "media_sources" ("due_at") WHERE "due_at" IS NOT NULL;
-- leases a dead worker left behind (their due_at was cleared by the claim)
CREATE INDEX "media_sources_lease_idx" ON "media_sources" ("lease_expires_at") WHERE "lease_owner" IS NOT NULL;
-- the sources of one media (garbage collection keeps media a source still names)
CREATE INDEX "media_sources_sha256_idx" ON "media_sources" ("sha256") WHERE "sha256" IS NOT NULL;
