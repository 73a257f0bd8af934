-- A token's last sale (Token.lastSale) is the newest sale of one (collection, token). Through
-- sales_collection_address_timestamp_idx it scans the collection's sales newest first until it
-- meets the token: ~40k rows and 2,000 buffers at 300k sales, the whole history for a token that
-- rarely trades. Read backwards, this index answers it in one row.
CREATE INDEX "sales_collection_address_token_id_timestamp_id_idx" ON "sales"("collection_address", "token_id", "timestamp", "id");
