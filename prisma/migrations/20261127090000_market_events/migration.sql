-- The market event log: one append-only row per thing that happened (an order listed or offered,
-- cancelled, its status changed with the cause, a sale, a transfer, a mint), numbered by one
-- monotonic id that activity pages, the v1 events route and replaying clients share.
--
-- Rows are written by triggers on the tables that record the facts, in the same transaction as
-- the fact, whatever code path wrote it (REST, GraphQL, submit_orders, the indexer, a backfill).
-- A reorg does not delete events: the indexer's rollback appends a RETRACTED row naming each
-- event above the fork (src/db/market-events-sql.ts), so a reader following the ids sees the undo.

CREATE TYPE "MarketEventType" AS ENUM (
  'LIST', 'OFFER', 'COLLECTION_OFFER', 'CANCEL_LIST', 'CANCEL_OFFER', 'SALE', 'TRANSFER', 'MINT', 'STATUS_CHANGE', 'RETRACTED'
);

-- Why an order's status changed. A move back to VALID names what was repaired (..._RESTORED);
-- any other move names the new status's reason.
CREATE TYPE "MarketEventCause" AS ENUM (
  'EXECUTED', 'NONCE_USED', 'NONCE_CANCELLED', 'MIN_NONCE_RAISED',
  'APPROVAL_REVOKED', 'APPROVAL_RESTORED',
  'ERC20_BALANCE_LOW', 'ERC20_BALANCE_RESTORED',
  'ERC20_ALLOWANCE_REVOKED', 'ERC20_ALLOWANCE_RESTORED',
  'OWNER_CHANGED', 'OWNER_RESTORED',
  'EXPIRED'
);

-- The chain event behind a journaled status change (a fill, a cancel), when there is one;
-- statuses re-derived from chain state at a batch's end have none.
ALTER TABLE "order_status_changes" ADD COLUMN "tx_hash" CHAR(66), ADD COLUMN "log_index" INTEGER;

CREATE TABLE "market_events" (
    "id"                 BIGSERIAL NOT NULL,
    "type"               "MarketEventType" NOT NULL,
    "cause"              "MarketEventCause",
    "collection_address" VARCHAR(42) NOT NULL,
    -- null for a collection offer
    "token_id"           DECIMAL(78,0),
    "order_hash"         CHAR(66),
    "from_address"       VARCHAR(42),
    "to_address"         VARCHAR(42),
    "price"              DECIMAL(78,0),
    "amount"             DECIMAL(78,0),
    "old_status"         "OrderStatus",
    "new_status"         "OrderStatus",
    -- null for off-chain events (a new order): their time is created_at
    "block_number"       BIGINT,
    "tx_hash"            CHAR(66),
    "log_index"          INTEGER,
    -- RETRACTED only: the event a reorg undid
    "retracts_id"        BIGINT REFERENCES "market_events"("id"),
    -- the writing transaction: ids are taken before commit, so a reader that must never skip a
    -- later-committing lower id reads only below the oldest transaction still running
    "tx_id"              XID8 NOT NULL DEFAULT pg_current_xact_id(),
    -- when it happened as far as the service knows: the block time for a sale, else the time of
    -- the writing transaction
    "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "market_events_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "market_events_collection_address_id_idx" ON "market_events"("collection_address", "id");
CREATE INDEX "market_events_collection_address_type_id_idx" ON "market_events"("collection_address", "type", "id");
CREATE INDEX "market_events_collection_address_token_id_id_idx" ON "market_events"("collection_address", "token_id", "id");
CREATE INDEX "market_events_from_address_id_idx" ON "market_events"("from_address", "id");
CREATE INDEX "market_events_to_address_id_idx" ON "market_events"("to_address", "id");
CREATE INDEX "market_events_order_hash_idx" ON "market_events"("order_hash") WHERE "order_hash" IS NOT NULL;
CREATE INDEX "market_events_block_number_idx" ON "market_events"("block_number") WHERE "block_number" IS NOT NULL;
CREATE UNIQUE INDEX "market_events_retracts_id_key" ON "market_events"("retracts_id") WHERE "retracts_id" IS NOT NULL;

-- The cause of a status change; nonce_kind is the nonce_events kind of the chain event behind it.
CREATE FUNCTION market_event_cause(old_status "OrderStatus", new_status "OrderStatus", nonce_kind "NonceEventKind")
RETURNS "MarketEventCause" LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN new_status = 'VALID' THEN CASE old_status
      WHEN 'ERC_APPROVAL' THEN 'APPROVAL_RESTORED'
      WHEN 'ERC20_BALANCE' THEN 'ERC20_BALANCE_RESTORED'
      WHEN 'ERC20_APPROVAL' THEN 'ERC20_ALLOWANCE_RESTORED'
      WHEN 'INVALID_OWNER' THEN 'OWNER_RESTORED'
    END
    WHEN new_status = 'EXECUTED' THEN 'EXECUTED'
    WHEN new_status = 'CANCELLED' THEN CASE nonce_kind
      WHEN 'EXECUTED' THEN 'NONCE_USED'
      WHEN 'MIN_NONCE' THEN 'MIN_NONCE_RAISED'
      ELSE 'NONCE_CANCELLED'
    END
    WHEN new_status = 'ERC_APPROVAL' THEN 'APPROVAL_REVOKED'
    WHEN new_status = 'ERC20_BALANCE' THEN 'ERC20_BALANCE_LOW'
    WHEN new_status = 'ERC20_APPROVAL' THEN 'ERC20_ALLOWANCE_REVOKED'
    WHEN new_status = 'INVALID_OWNER' THEN 'OWNER_CHANGED'
    WHEN new_status = 'EXPIRED' THEN 'EXPIRED'
  END::"MarketEventCause"
$$;

-- Existing history, oldest first, so the ids follow time: orders at their creation, journaled
-- status changes at their time, sales at their block time, transfers at the time of a sale or
-- status change of their block (the journal holds only the recent, reorg-able blocks), and one
-- change for each order whose stored status no journal row explains any more.
INSERT INTO "market_events" ("type", "cause", "collection_address", "token_id", "order_hash", "from_address", "to_address", "price", "amount",
                             "old_status", "new_status", "block_number", "tx_hash", "log_index", "created_at")
SELECT type, cause, collection_address, token_id, order_hash, from_address, to_address, price, amount,
       old_status, new_status, block_number, tx_hash, log_index, at
FROM (
  SELECT (CASE WHEN o.is_order_ask THEN 'LIST' WHEN o.token_id IS NULL THEN 'COLLECTION_OFFER' ELSE 'OFFER' END)::"MarketEventType" AS type,
         NULL::"MarketEventCause" AS cause, o.collection_address, o.token_id, o.hash AS order_hash, o.signer AS from_address,
         NULL::varchar AS to_address, o.price, o.amount, NULL::"OrderStatus" AS old_status, NULL::"OrderStatus" AS new_status,
         NULL::bigint AS block_number, NULL::char(66) AS tx_hash, NULL::int AS log_index, o.created_at AS at, 0 AS rank, o.id AS seq
  FROM orders o
  UNION ALL
  SELECT (CASE WHEN j.new_status <> 'CANCELLED' THEN 'STATUS_CHANGE' WHEN o.is_order_ask THEN 'CANCEL_LIST' ELSE 'CANCEL_OFFER' END)::"MarketEventType",
         market_event_cause(j.old_status, j.new_status, NULL), o.collection_address, o.token_id, o.hash, o.signer, NULL, o.price, o.amount,
         j.old_status, j.new_status, j.block_number, NULL, NULL, j.created_at, 1, j.id
  FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
  UNION ALL
  SELECT (CASE WHEN o.status <> 'CANCELLED' THEN 'STATUS_CHANGE' WHEN o.is_order_ask THEN 'CANCEL_LIST' ELSE 'CANCEL_OFFER' END)::"MarketEventType",
         market_event_cause(NULL, o.status, NULL), o.collection_address, o.token_id, o.hash, o.signer, NULL, o.price, o.amount,
         NULL, o.status, NULL, NULL, NULL, o.updated_at, 2, o.id
  FROM orders o
  WHERE o.status <> 'VALID'
    AND o.status IS DISTINCT FROM (SELECT j.new_status FROM order_status_changes j WHERE j.order_hash = o.hash ORDER BY j.id DESC LIMIT 1)
  UNION ALL
  SELECT 'SALE', NULL, s.collection_address, s.token_id, s.order_hash, s.seller, s.buyer, s.price, s.amount,
         NULL, NULL, s.block_number, s.tx_hash, s.log_index, s.timestamp, 3, s.id
  FROM sales s
  UNION ALL
  SELECT (CASE WHEN t.from_address = '0x0000000000000000000000000000000000000000' THEN 'MINT' ELSE 'TRANSFER' END)::"MarketEventType",
         NULL, t.collection_address, t.token_id, NULL, t.from_address, t.to_address, NULL, t.amount,
         NULL, NULL, t.block_number, t.tx_hash, t.log_index,
         COALESCE((SELECT min(s.timestamp) FROM sales s WHERE s.block_number = t.block_number),
                  (SELECT min(j.created_at) FROM order_status_changes j WHERE j.block_number = t.block_number),
                  CURRENT_TIMESTAMP),
         4, t.batch_index
  FROM token_transfers t
) history
ORDER BY at, block_number NULLS FIRST, log_index NULLS LAST, rank, seq;

-- A new order: a listing, a token offer or a collection offer.
CREATE FUNCTION market_events_on_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO market_events (type, collection_address, token_id, order_hash, from_address, price, amount, created_at)
  VALUES (CASE WHEN NEW.is_order_ask THEN 'LIST' WHEN NEW.token_id IS NULL THEN 'COLLECTION_OFFER' ELSE 'OFFER' END::"MarketEventType",
          NEW.collection_address, NEW.token_id, NEW.hash, NEW.signer, NEW.price, NEW.amount, NEW.created_at);
  RETURN NULL;
END $$;
CREATE TRIGGER market_events_on_order AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION market_events_on_order();

-- A journaled status change: a cancel of a listing or an offer, or any other change with its cause.
CREATE FUNCTION market_events_on_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind "NonceEventKind";
BEGIN
  IF NEW.tx_hash IS NOT NULL THEN
    SELECT n.kind INTO kind FROM nonce_events n WHERE n.tx_hash = NEW.tx_hash AND n.log_index = NEW.log_index LIMIT 1;
  END IF;
  INSERT INTO market_events (type, cause, collection_address, token_id, order_hash, from_address, price, amount,
                             old_status, new_status, block_number, tx_hash, log_index)
  SELECT CASE WHEN NEW.new_status <> 'CANCELLED' THEN 'STATUS_CHANGE' WHEN o.is_order_ask THEN 'CANCEL_LIST' ELSE 'CANCEL_OFFER' END::"MarketEventType",
         market_event_cause(NEW.old_status, NEW.new_status, kind), o.collection_address, o.token_id, o.hash, o.signer, o.price, o.amount,
         NEW.old_status, NEW.new_status, NEW.block_number, NEW.tx_hash, NEW.log_index
  FROM orders o WHERE o.hash = NEW.order_hash;
  RETURN NULL;
END $$;
CREATE TRIGGER market_events_on_status_change AFTER INSERT ON order_status_changes FOR EACH ROW EXECUTE FUNCTION market_events_on_status_change();

-- A sale: from the seller to the buyer, at its block time.
CREATE FUNCTION market_events_on_sale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO market_events (type, collection_address, token_id, order_hash, from_address, to_address, price, amount,
                             block_number, tx_hash, log_index, created_at)
  VALUES ('SALE', NEW.collection_address, NEW.token_id, NEW.order_hash, NEW.seller, NEW.buyer, NEW.price, NEW.amount,
          NEW.block_number, NEW.tx_hash, NEW.log_index, NEW.timestamp);
  RETURN NULL;
END $$;
CREATE TRIGGER market_events_on_sale AFTER INSERT ON sales FOR EACH ROW EXECUTE FUNCTION market_events_on_sale();

-- An NFT transfer; from the zero address it is a mint.
CREATE FUNCTION market_events_on_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO market_events (type, collection_address, token_id, from_address, to_address, amount, block_number, tx_hash, log_index)
  VALUES (CASE WHEN NEW.from_address = '0x0000000000000000000000000000000000000000' THEN 'MINT' ELSE 'TRANSFER' END::"MarketEventType",
          NEW.collection_address, NEW.token_id, NEW.from_address, NEW.to_address, NEW.amount, NEW.block_number, NEW.tx_hash, NEW.log_index);
  RETURN NULL;
END $$;
CREATE TRIGGER market_events_on_transfer AFTER INSERT ON token_transfers FOR EACH ROW EXECUTE FUNCTION market_events_on_transfer();
