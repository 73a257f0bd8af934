-- The floor of a collection (src/db/floor-sql.ts floorAtSql: the cheapest VALID standard listing
-- live at an instant) is the first row of this index that is live: read index-only, without a
-- heap visit per row. A ranking by floor reads it once per collection (5,000 at 10M orders: 75 ms
-- through orders_collection_address_is_order_ask_status_price_id_idx and the heap, 38-42 ms
-- index-only, EXPLAIN ANALYZE on a warm cache); the floor writes and the stats read it too.
CREATE INDEX "orders_valid_ask_floor_idx" ON "orders" ("collection_address", "price") INCLUDE ("start_time", "end_time", "strategy") WHERE "is_order_ask" AND "status" = 'VALID';
