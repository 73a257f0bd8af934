-- A token page reads one side of one token (its live asks, or its live bids) by price. Without
-- the side in the index the scan steps over every order of the token's other side: at 10M orders
-- 1,600-2,700 rows read and dropped per page. The (collection, token) prefix still serves the
-- reads that want both sides.
DROP INDEX IF EXISTS "orders_collection_address_token_id_status_price_id_idx";
CREATE INDEX "orders_token_side_price_idx" ON "orders"("collection_address", "token_id", "is_order_ask", "status", "price", "id");
