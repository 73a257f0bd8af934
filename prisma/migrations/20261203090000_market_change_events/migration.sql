-- Market changes in the event log: the collection floor and the collection's best bid, each an
-- event when it moves, written in the transaction that records the move (docs/activity.md).
ALTER TYPE "MarketEventType" ADD VALUE 'FLOOR_CHANGE';
ALTER TYPE "MarketEventType" ADD VALUE 'BEST_BID_CHANGE';

-- The best live bid of each collection as last recorded (Collection.topBid's rule: the highest
-- VALID token or collection offer, started and not ended, ties to the oldest). A row is written
-- wherever the floor is (src/db/floor-sql.ts), so a change is seen by the same writes.
CREATE TABLE "collection_best_bids" (
    "collection_address" VARCHAR(42) NOT NULL,
    "price" DECIMAL(78,0),
    "order_hash" CHAR(66),
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "collection_best_bids_pkey" PRIMARY KEY ("collection_address")
);
ALTER TABLE "collection_best_bids" ADD CONSTRAINT "collection_best_bids_collection_address_fkey"
  FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A floor recorded: the new floor (null: nothing listed any more).
CREATE FUNCTION market_events_on_floor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO market_events (type, collection_address, price) VALUES ('FLOOR_CHANGE', NEW.collection_address, NEW.floor_price);
  RETURN NULL;
END $$;
CREATE TRIGGER market_events_on_floor AFTER INSERT ON floor_history FOR EACH ROW EXECUTE FUNCTION market_events_on_floor();

-- A best bid recorded at another price: the new best bid and its order (null: no bid left).
CREATE FUNCTION market_events_on_best_bid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO market_events (type, collection_address, order_hash, price) VALUES ('BEST_BID_CHANGE', NEW.collection_address, NEW.order_hash, NEW.price);
  RETURN NULL;
END $$;
CREATE TRIGGER market_events_on_best_bid_insert AFTER INSERT ON collection_best_bids FOR EACH ROW EXECUTE FUNCTION market_events_on_best_bid();
CREATE TRIGGER market_events_on_best_bid_update AFTER UPDATE ON collection_best_bids FOR EACH ROW
  WHEN (OLD.price IS DISTINCT FROM NEW.price) EXECUTE FUNCTION market_events_on_best_bid();
