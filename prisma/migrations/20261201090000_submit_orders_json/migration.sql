-- submit_orders takes the batch as one JSON array now. Its source lives in one file,
-- src/db/sql/submit_orders.sql, applied after the dated migrations and again whenever it changes
-- (src/db/migrate.ts). The form with one array per column goes.
DROP FUNCTION IF EXISTS submit_orders(TEXT[], TEXT[], NUMERIC[], BOOLEAN[], TEXT[], TEXT[], TEXT[], NUMERIC[], NUMERIC[], NUMERIC[],
  BIGINT[], BIGINT[], INTEGER[], TEXT[], JSONB[], TEXT[], INTEGER[], TEXT[], TEXT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], BOOLEAN[],
  INTEGER);
