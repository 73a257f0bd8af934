-- Order submission in one round trip (issue 10) without the submission/indexing race (issue 11 §1).
--
-- chain_checked_block: the block the submission's chain checks (ownership, approval, WETH balance
-- and allowance) read at, kept until an indexer batch has settled the order: evaluated it against
-- the chain at or after every block after that one. NULL when settled, or when no chain is
-- configured (no checks, no indexer).
ALTER TABLE "orders" ADD COLUMN "chain_checked_block" BIGINT;
CREATE INDEX "orders_chain_checked_block_idx" ON "orders" ("chain_checked_block") WHERE "chain_checked_block" IS NOT NULL;

-- Re-checks, under locks, what the assessment read before the chain checks ran, then inserts:
--   * a SHARED advisory lock on (72707372, database) for the whole transaction; the indexer's batch
--     script takes the same key EXCLUSIVE as its first statement, so the insert and a batch's
--     status writes never interleave: a row committed first is seen by the batch's statements
--     (nonce cancels, min nonces, fills), a row inserted after sees the batch's dead nonces here;
--   * an exclusive advisory lock per (signer, nonce): the 20-orders cap holds under concurrency;
--   * then dead nonce, minimum nonce, duplicate, cap (each statement of a VOLATILE function sees
--     what committed before it ran, so the re-checks see everything committed before the locks);
--   * the discovered collection (if the chain found one), the order, and for a live standard-sale
--     ask the floor history point (same definition as StatsService.recordFloor).
-- Returns one row: code 'OK' with the new row's id and timestamps, or the problem code.
CREATE FUNCTION submit_order(
  p_hash TEXT, p_collection TEXT, p_token_id NUMERIC, p_is_order_ask BOOLEAN, p_signer TEXT, p_strategy TEXT,
  p_currency TEXT, p_amount NUMERIC, p_price NUMERIC, p_nonce NUMERIC, p_start_time BIGINT, p_end_time BIGINT,
  p_min_percentage_to_ask INTEGER, p_params TEXT, p_params_list JSONB, p_signature TEXT, p_v INTEGER, p_r TEXT, p_s TEXT,
  p_chain_checked_block BIGINT, p_max_per_nonce INTEGER,
  p_discovered_type TEXT, p_discovered_owner TEXT, p_discovered_name TEXT, p_discovered_symbol TEXT,
  p_now TIMESTAMPTZ, p_floor_strategies TEXT[]
) RETURNS TABLE (code TEXT, id BIGINT, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_id BIGINT;
  v_created TIMESTAMPTZ;
  v_updated TIMESTAMPTZ;
  v_now_sec BIGINT := floor(extract(epoch FROM p_now))::bigint;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(72707372, hashtext(current_database()));
  PERFORM pg_advisory_xact_lock(hashtextextended(p_signer || ':' || p_nonce::text, 0));

  IF EXISTS (SELECT 1 FROM dead_nonces d WHERE d.signer = p_signer AND d.nonce = p_nonce)
     OR EXISTS (SELECT 1 FROM orders o WHERE o.signer = p_signer AND o.nonce = p_nonce AND o.status = 'EXECUTED') THEN
    RETURN QUERY SELECT 'NONCE_USED'::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM signer_nonce_state m WHERE m.signer = p_signer AND m.min_nonce > p_nonce) THEN
    RETURN QUERY SELECT 'NONCE_TOO_LOW'::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM orders o WHERE o.hash = p_hash) THEN
    RETURN QUERY SELECT 'DUPLICATE_ORDER'::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;
  IF (SELECT count(*) FROM orders o WHERE o.signer = p_signer AND o.nonce = p_nonce) >= p_max_per_nonce THEN
    RETURN QUERY SELECT 'NONCE_CAP_REACHED'::text, NULL::bigint, NULL::timestamptz, NULL::timestamptz;
    RETURN;
  END IF;

  IF p_discovered_type IS NOT NULL THEN
    INSERT INTO collections (address, type, owner, name, symbol)
    VALUES (p_collection, p_discovered_type::"CollectionType", p_discovered_owner, p_discovered_name, p_discovered_symbol)
    ON CONFLICT (address) DO NOTHING;
  END IF;

  INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce,
                      start_time, end_time, min_percentage_to_ask, params, params_list, status, signature, v, r, s, chain_checked_block)
  VALUES (p_hash, p_collection, p_token_id, p_is_order_ask, p_signer, p_strategy, p_currency, p_amount, p_price, p_nonce,
          p_start_time, p_end_time, p_min_percentage_to_ask, p_params, p_params_list, 'VALID', p_signature, p_v, p_r, p_s, p_chain_checked_block)
  RETURNING orders.id, orders.created_at, orders.updated_at INTO v_id, v_created, v_updated;

  IF p_is_order_ask AND p_strategy = ANY(p_floor_strategies) THEN
    INSERT INTO floor_history (collection_address, floor_price, at)
    SELECT p_collection, cur.floor, p_now
    FROM (SELECT MIN(o.price) AS floor FROM orders o
          WHERE o.collection_address = p_collection AND o.is_order_ask AND o.status = 'VALID'
            AND o.end_time >= v_now_sec AND o.start_time <= v_now_sec AND o.strategy = ANY(p_floor_strategies)) cur
    WHERE NOT EXISTS (SELECT 1 FROM floor_history f WHERE f.collection_address = p_collection)
       OR (SELECT f.floor_price FROM floor_history f WHERE f.collection_address = p_collection ORDER BY f.at DESC, f.id DESC LIMIT 1)
          IS DISTINCT FROM cur.floor;
  END IF;

  RETURN QUERY SELECT 'OK'::text, v_id, v_created, v_updated;
END
$$;
