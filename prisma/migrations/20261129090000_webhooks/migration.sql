-- Signed webhooks over the market event log (docs/webhooks.md). An endpoint keeps its own cursor
-- into the log, in the stream's reading order (tx_id, id): no row per event and endpoint, and the
-- order of delivery to one endpoint is the log's. A worker claims due endpoints with
-- FOR UPDATE SKIP LOCKED and a lease, so one instance at a time delivers to an endpoint and a dead
-- instance's lease simply expires. The same statements run on PostgreSQL and on PGlite.
CREATE TYPE "WebhookEndpointStatus" AS ENUM ('ACTIVE', 'PAUSED', 'DISABLED');

CREATE TABLE "webhook_endpoints" (
    "id"               BIGSERIAL PRIMARY KEY,
    -- SHA-256 (hex) of the X-Looks-Api-Key that created it: only that key sees or changes it
    "owner_key_hash"   CHAR(64) NOT NULL,
    "url"              TEXT NOT NULL,
    -- the subscription's filter object (src/domain/market-event-stream.ts), as parsed
    "filter"           JSONB NOT NULL DEFAULT '{}',
    -- whsec_<base64>, the Standard Webhooks form
    "secret"           TEXT NOT NULL,
    "status"           "WebhookEndpointStatus" NOT NULL DEFAULT 'ACTIVE',
    -- the last position delivered (or skipped as not matching): the next read starts after it
    "cursor_tx_id"     XID8 NOT NULL,
    "cursor_id"        BIGINT NOT NULL,
    -- consecutive failed attempts of the event at the cursor
    "failure_count"    INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- when a worker last claimed it (read the log for it): /readyz calls the outbox stuck when a
    -- due endpoint has not been claimed for far longer than the poll interval
    "checked_at"       TIMESTAMPTZ(3),
    -- the last HTTP attempt, and why it failed when it did
    "last_attempt_at"  TIMESTAMPTZ(3),
    "last_error"       TEXT,
    "lease_owner"      TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX "webhook_endpoints_owner_idx" ON "webhook_endpoints"("owner_key_hash", "id");
-- the worker's claim: active endpoints by due time
CREATE INDEX "webhook_endpoints_due_idx" ON "webhook_endpoints"("next_attempt_at") WHERE "status" = 'ACTIVE';

-- The recent attempts of each endpoint (the sender keeps the newest 100 per endpoint).
CREATE TABLE "webhook_deliveries" (
    "id"           BIGSERIAL PRIMARY KEY,
    "endpoint_id"  BIGINT NOT NULL REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE,
    "event_ids"    BIGINT[] NOT NULL,
    "attempt"      INTEGER NOT NULL,
    -- the receiver's HTTP status; null when no answer came (error says why)
    "status_code"  INTEGER,
    "error"        TEXT,
    "duration_ms"  INTEGER NOT NULL,
    "at"           TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries"("endpoint_id", "id");
