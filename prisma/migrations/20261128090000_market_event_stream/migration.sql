-- The market event log as a stream that never skips (docs/activity.md, "Streaming and resuming").
--
-- Ids are taken before commit, so a lower id can become visible after a higher one. A stream
-- reads only rows whose writing transaction is older than the oldest one still running, in the
-- order (tx_id, id): every row of that prefix is final, and a row committed later sorts after it.
-- This index is that scan.
CREATE INDEX "market_events_tx_id_id_idx" ON "market_events"("tx_id", "id");

-- How far retention (EVENT_LOG_RETENTION_DAYS) has pruned the log: it deletes a prefix in the
-- stream's order, so a position at or below (through_tx_id, through_id) is gone and a client
-- resuming from it is told so (CURSOR_EXPIRED) instead of silently skipping. One row at most.
CREATE TABLE "market_event_retention" (
    "singleton"     BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK ("singleton"),
    -- the last position deleted, in stream order
    "through_tx_id" XID8 NOT NULL,
    "through_id"    BIGINT NOT NULL,
    -- the highest event id deleted (a cursor whose row is gone and is at most this has expired)
    "max_id"        BIGINT NOT NULL,
    "pruned_rows"   BIGINT NOT NULL DEFAULT 0,
    "pruned_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
