-- submit_orders: the one call that stores accepted orders (src/db/submit-orders-sql.ts). Concurrent
-- submissions that passed every check outside the database travel together: one call, one
-- transaction, one commit (one WAL flush) for many orders.
--
-- Applied by the migration runner (src/db/migrate.ts) as a repeatable step: after the dated
-- migrations, again whenever this text changes. Edit it here; it is not a dated migration.
--
-- p_orders: a JSON array, one object per order, keys as in the column list below (built in one
-- place: orderJson in src/db/submit-orders-sql.ts). One argument, so a new column is a key there,
-- a column in that list and one in the INSERT.
--
--   * a SHARED advisory lock on (72707372, database) for the whole transaction; the indexer's batch
--     script takes the same key EXCLUSIVE as its first statement, so a batch of inserts and an
--     indexer batch's status writes never interleave (src/chain/indexer/unsettled-orders.ts);
--   * an exclusive advisory lock per (signer, nonce), taken in ascending key order (ties in input
--     order), so two batches in flight at once can never deadlock, and orders on one nonce are
--     decided in the order they were submitted;
--   * then the nonce rules of src/domain/nonce-rules.ts in its order (nonce used, below the
--     minimum, duplicate, the 20-orders cap), and the collection type the caller's rules assumed
--     (an operator may change a collection's type: the caller then re-assesses), each statement
--     seeing what committed before it and what this call inserted;
--   * the discovered collection (if the chain found one) and the order.
--
-- Returns one row per input: its 1-based position, code 'OK' with the new row's id and timestamps,
-- or the problem code. An unexpected error fails the whole call (nothing is written); the caller
-- then submits the orders one by one, so one bad order cannot take the others down.
CREATE OR REPLACE FUNCTION submit_orders(p_orders JSONB)
RETURNS TABLE (ord INTEGER, code TEXT, id BIGINT, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  -- MAX_ORDERS_PER_NONCE in src/domain/nonce-rules.ts (spec 2.4 rule 3)
  c_max_per_nonce CONSTANT INTEGER := 20;
  o RECORD;
  v_type TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(72707372, hashtext(current_database()));
  FOR o IN
    SELECT u.*, e.ord, hashtextextended(u.signer || ':' || u.nonce::text, 0) AS lock_key
    FROM jsonb_array_elements(p_orders) WITH ORDINALITY AS e(item, ord)
    CROSS JOIN LATERAL jsonb_to_record(e.item) AS u(
      hash TEXT, collection TEXT, token_id NUMERIC, is_order_ask BOOLEAN, signer TEXT, strategy TEXT, currency TEXT,
      amount NUMERIC, price NUMERIC, nonce NUMERIC, start_time BIGINT, end_time BIGINT, min_percentage_to_ask INTEGER,
      params TEXT, params_list JSONB, signature TEXT, v INTEGER, r TEXT, s TEXT, chain_checked_block BIGINT,
      collection_type TEXT, discovered BOOLEAN, discovered_owner TEXT, discovered_name TEXT, discovered_symbol TEXT)
    ORDER BY lock_key, e.ord
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
    IF (SELECT count(*) FROM orders x WHERE x.signer = o.signer AND x.nonce = o.nonce) >= c_max_per_nonce THEN
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
