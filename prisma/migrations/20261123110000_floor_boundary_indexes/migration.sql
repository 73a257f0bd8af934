-- The floor's time catch-up (src/db/floor-sql.ts) looks for live asks whose startTime or
-- endTime + 1 falls in the last few seconds. It runs before every floor write, including the one a
-- new listing makes, so it must not scan the order book: these partial indexes hold only the
-- VALID asks, the only orders a floor can come from.
CREATE INDEX "orders_valid_ask_start_time_idx" ON "orders" ("start_time") WHERE "is_order_ask" AND "status" = 'VALID';
CREATE INDEX "orders_valid_ask_end_time_idx" ON "orders" ("end_time") WHERE "is_order_ask" AND "status" = 'VALID';
