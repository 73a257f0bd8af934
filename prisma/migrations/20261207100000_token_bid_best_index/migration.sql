-- A token's best offer (Token.bestBid, the wallet's holdings: src/services/token-sql.ts) is its
-- live token offer with the highest price, the oldest on a tie. Found by two probes
-- (src/db/highest-oldest-sql.ts), the second one, "the oldest at the top price", was planned on
-- orders_collection_address_status_price_id_idx as often as on orders_token_side_price_idx (both
-- estimated at one row, the cheaper by a hair wins) and then read every VALID order of the
-- collection at that price, asks included, to find the token's: on a hot collection's round
-- prices, thousands of rows for one token page. This index holds the token offers in the order
-- the answer wants (price down, id up), so the best offer is the first live row of one forward
-- probe: no tie for the planner to break, and one read instead of two.
CREATE INDEX "orders_token_bid_best_idx" ON "orders" ("collection_address", "token_id", "status", "price" DESC, "id") WHERE "token_id" IS NOT NULL AND NOT "is_order_ask";
