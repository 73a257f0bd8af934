-- Order submissions in batches (issue 10: 800 verified orders/s). Concurrent submissions that
-- passed every check outside the database travel together: one call, one transaction, one commit
-- for many orders, instead of a round trip and a commit (a WAL flush) each. The rules and the
-- submission/indexing race fix (issue 11 §1) are those of submit_order, which this replaces:
--   * a SHARED advisory lock on (72707372, database) for the whole transaction; the indexer's batch
--     script takes the same key EXCLUSIVE as its first statement, so a batch of inserts and an
--     indexer batch's status writes never interleave (src/chain/indexer/unsettled-orders.ts);
--   * an exclusive advisory lock per (signer, nonce), taken in ascending key order (ties in input
--     order), so two batches in flight at once can never deadlock, and orders on one nonce are
--     decided in the order they were submitted;
--   * then dead nonce, minimum nonce, duplicate, the 20-orders cap, and the collection type the
--     caller's rules assumed (an operator may change a collection's type: the caller then
--     re-assesses), each statement seeing what committed before it and what this call inserted;
--   * the discovered collection (if the chain found one) and the order.
-- Returns one row per input: its 1-based position, code 'OK' with the new row's id and timestamps,
-- or the problem code. An unexpected error fails the whole call (nothing is written); the caller
-- then submits the orders one by one, so one bad order cannot take the others down.
DROP FUNCTION IF EXISTS submit_order(TEXT, TEXT, NUMERIC, BOOLEAN, TEXT, TEXT, TEXT, NUMERIC, NUMERIC, NUMERIC, BIGINT, BIGINT,
  INTEGER, TEXT, JSONB, TEXT, INTEGER, TEXT, TEXT, BIGINT, INTEGER, TEXT, TEXT, TEXT, TEXT, TIMESTAMPTZ, TEXT[]);

CREATE FUNCTION submit_orders(
  p_hash TEXT[], p_collection TEXT[], p_token_id NUMERIC[], p_is_order_ask BOOLEAN[], p_signer TEXT[], p_strategy TEXT[],
  p_currency TEXT[], p_amount NUMERIC[], p_price NUMERIC[], p_nonce NUMERIC[], p_start_time BIGINT[], p_end_time BIGINT[],
  p_min_percentage_to_ask INTEGER[], p_params TEXT[], p_params_list JSONB[], p_signature TEXT[], p_v INTEGER[], p_r TEXT[], p_s TEXT[],
  p_chain_checked_block BIGINT[], p_collection_type TEXT[],
  p_discovered_owner TEXT[], p_discovered_name TEXT[], p_discovered_symbol TEXT[], p_discovered BOOLEAN[],
  p_max_per_nonce INTEGER
) RETURNS TABLE (ord INTEGER, code TEXT, id BIGINT, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  o RECORD;
  v_type TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(72707372, hashtext(current_database()));
  -- unnest once: subscripting the array parameters inside each statement would pass every array
  -- to every statement, a cost that grows with the square of the batch
  FOR o IN
    SELECT u.*, hashtextextended(u.signer || ':' || u.nonce::text, 0) AS lock_key
    FROM unnest(p_hash, p_collection, p_token_id, p_is_order_ask, p_signer, p_strategy, p_currency, p_amount, p_price, p_nonce,
                p_start_time, p_end_time, p_min_percentage_to_ask, p_params, p_params_list, p_signature, p_v, p_r, p_s,
                p_chain_checked_block, p_collection_type, p_discovered_owner, p_discovered_name, p_discovered_symbol, p_discovered)
         WITH ORDINALITY AS u(hash, collection, token_id, is_order_ask, signer, strategy, currency, amount, price, nonce,
                              start_time, end_time, min_percentage_to_ask, params, params_list, signature, v, r, s,
                              chain_checked_block, collection_type, discovered_owner, discovered_name, discovered_symbol, discovered, ord)
    ORDER BY lock_key, u.ord
  LOOP
    PERFORM pg_advisory_xact_lock(o.lock_key);
    ord := o.ord;
    id := NULL; created_at := NULL; updated_at := NULL;

    IF EXISTS (SELECT 1 FROM dead_nonces d WHERE d.signer = o.signer AND d.nonce = o.nonce)
       OR EXISTS (SELECT 1 FROM orders x WHERE x.signer = o.signer AND x.nonce = o.nonce AND x.status = 'EXECUTED') THEN
      code := 'NONCE_USED'; RETURN NEXT; CONTINUE;
    END IF;
    IF EXISTS (SELECT 1 FROM signer_nonce_state m WHERE m.signer = o.signer AND m.min_nonce > o.nonce) THEN
      code := 'NONCE_TOO_LOW'; RETURN NEXT; CONTINUE;
    END IF;
    IF EXISTS (SELECT 1 FROM orders x WHERE x.hash = o.hash::char(66)) THEN  -- bpchar: a text comparison could not use the index
      code := 'DUPLICATE_ORDER'; RETURN NEXT; CONTINUE;
    END IF;
    IF (SELECT count(*) FROM orders x WHERE x.signer = o.signer AND x.nonce = o.nonce) >= p_max_per_nonce THEN
      code := 'NONCE_CAP_REACHED'; RETURN NEXT; CONTINUE;
    END IF;

    IF o.discovered THEN
      INSERT INTO collections (address, type, owner, name, symbol)
      VALUES (o.collection, o.collection_type::"CollectionType", o.discovered_owner, o.discovered_name, o.discovered_symbol)
      ON CONFLICT (address) DO NOTHING;
    END IF;
    SELECT c.type::text INTO v_type FROM collections c WHERE c.address = o.collection;
    IF v_type IS DISTINCT FROM o.collection_type THEN
      code := 'COLLECTION_CHANGED'; RETURN NEXT; CONTINUE;
    END IF;

    INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce,
                        start_time, end_time, min_percentage_to_ask, params, params_list, status, signature, v, r, s, chain_checked_block)
    VALUES (o.hash, o.collection, o.token_id, o.is_order_ask, o.signer, o.strategy, o.currency, o.amount, o.price, o.nonce,
            o.start_time, o.end_time, o.min_percentage_to_ask, o.params, o.params_list, 'VALID', o.signature, o.v, o.r, o.s,
            o.chain_checked_block)
    RETURNING orders.id, orders.created_at, orders.updated_at INTO id, created_at, updated_at;
    code := 'OK';
    RETURN NEXT;
  END LOOP;
END
$$;
