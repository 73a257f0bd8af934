-- Sales pages are ordered by (timestamp DESC, id DESC): the id breaks ties between sales of one
-- block. With the indexes on (collection_address, timestamp) and (timestamp) PostgreSQL reads them
-- in timestamp order and sorts each run of equal timestamps again (Incremental Sort); a generic
-- plan of the collection's sales page (docs/read-engine.md "Generic plans") is a Sort over the
-- collection's sales, so that page was planned per run. With id in the index the rows come in the
-- page's order and the plan stops at the page. Each new index serves every read the old one did
-- (its leading columns), so the old ones go.
CREATE INDEX "sales_collection_address_timestamp_id_idx" ON "sales"("collection_address", "timestamp", "id");
DROP INDEX "sales_collection_address_timestamp_idx";
CREATE INDEX "sales_timestamp_id_idx" ON "sales"("timestamp", "id");
DROP INDEX "sales_timestamp_idx";
