-- Kept ranking keys (docs/read-engine.md "Rankings"): what Query.collections ranks on by FLOOR,
-- VOLUME_24H and VOLUME_7D, kept per collection so that a ranking reads one small row per
-- collection instead of probing the order book or summing the window's sales of every collection
-- (both grow with the market). A kept key is only ever a shortcut: a reader uses a kept floor only
-- inside its validity interval and corrects a kept volume by the sales between its anchor and the
-- reader's clock, and computes the rest as before, so the answer is statsFor's exactly, at any
-- clock (the tests' fake clocks included), whether or not the refresh has run.
--
-- Concurrency: writers of orders and sales take the advisory lock below in shared mode (the
-- triggers), the refresh (refresh_ranking_keys) takes it exclusively, when free, before it takes
-- its snapshot. So the refresh never computes from a snapshot that misses a write whose triggers
-- have not seen the refreshed rows (a phantom), and writers never wait on one another.

-- The floor (src/db/floor-sql.ts floorAtSql) of each collection, known to hold for every unix
-- second t with valid_from <= t < valid_to given the statuses of the orders in the table. An empty
-- interval (0, 0) means "not known": a reader probes the order book for it.
CREATE TABLE "collection_floor_keys" (
    "collection_address" VARCHAR(42) NOT NULL,
    "floor_price" DECIMAL(78,0),
    "valid_from" BIGINT NOT NULL DEFAULT 0,
    "valid_to" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "collection_floor_keys_pkey" PRIMARY KEY ("collection_address"),
    CONSTRAINT "collection_floor_keys_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "collection_floor_keys" ("collection_address") SELECT "address" FROM "collections";

-- The window volumes of each collection for the windows that end at the anchor: (at - 24 h, at]
-- and (at - 168 h, at] (hours, not calendar days: no time zone can stretch them). A collection without a row has none. The anchor starts at the epoch, where
-- every volume is 0; the refresh moves it to its clock.
CREATE TABLE "collection_volume_marks" (
    "collection_address" VARCHAR(42) NOT NULL,
    "volume_24h" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "volume_7d" DECIMAL(78,0) NOT NULL DEFAULT 0,
    CONSTRAINT "collection_volume_marks_pkey" PRIMARY KEY ("collection_address")
);
CREATE TABLE "volume_mark_anchor" (
    "id" SMALLINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "volume_mark_anchor_pkey" PRIMARY KEY ("id")
);
INSERT INTO "volume_mark_anchor" ("id", "at") VALUES (1, 'epoch');

-- Every collection has its floor key row (unknown until the refresh), so an order trigger always
-- finds the row it must mark.
CREATE FUNCTION ranking_keys_on_collection() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO collection_floor_keys (collection_address) VALUES (NEW.address) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER ranking_keys_on_collection AFTER INSERT ON collections FOR EACH ROW EXECUTE FUNCTION ranking_keys_on_collection();

-- An order that is or was a VALID ask at or below a kept floor may move that floor, or the
-- instants it holds between (a cheaper listing that starts later, the floor listing's end): the
-- kept floor becomes unknown. A listing priced above a kept floor cannot move it while it holds:
-- the floor listing is live over the whole interval. Orders' prices, sides and times never change
-- once written, but an update of any of them is handled as the removal and the arrival it is.
CREATE FUNCTION ranking_keys_on_orders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(72707374, hashtext(current_database()));
  IF TG_OP = 'INSERT' THEN
    UPDATE collection_floor_keys k SET valid_from = 0, valid_to = 0
      FROM (SELECT collection_address, MIN(price) AS price FROM new_rows WHERE is_order_ask AND status = 'VALID' GROUP BY 1) n
     WHERE k.collection_address = n.collection_address AND k.valid_to > k.valid_from
       AND (k.floor_price IS NULL OR n.price <= k.floor_price);
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE collection_floor_keys k SET valid_from = 0, valid_to = 0
      FROM (SELECT collection_address, MIN(price) AS price FROM old_rows WHERE is_order_ask AND status = 'VALID' GROUP BY 1) n
     WHERE k.collection_address = n.collection_address AND k.valid_to > k.valid_from
       AND n.price <= k.floor_price;
  ELSE
    UPDATE collection_floor_keys k SET valid_from = 0, valid_to = 0
      FROM (
        SELECT x.collection_address, MIN(x.price) AS price FROM (
          SELECT o.collection_address, o.price FROM old_rows o JOIN new_rows n ON n.id = o.id
           WHERE o.is_order_ask AND o.status = 'VALID'
             AND (n.status <> 'VALID' OR NOT n.is_order_ask OR n.price <> o.price OR n.collection_address <> o.collection_address
                  OR n.start_time <> o.start_time OR n.end_time <> o.end_time OR n.strategy <> o.strategy)
          UNION ALL
          SELECT n.collection_address, n.price FROM old_rows o JOIN new_rows n ON n.id = o.id
           WHERE n.is_order_ask AND n.status = 'VALID'
             AND (o.status <> 'VALID' OR NOT o.is_order_ask OR n.price <> o.price OR n.collection_address <> o.collection_address
                  OR n.start_time <> o.start_time OR n.end_time <> o.end_time OR n.strategy <> o.strategy)
        ) x GROUP BY 1
      ) n
     WHERE k.collection_address = n.collection_address AND k.valid_to > k.valid_from
       AND (k.floor_price IS NULL OR n.price <= k.floor_price);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ranking_keys_on_order_insert AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ranking_keys_on_orders();
CREATE TRIGGER ranking_keys_on_order_update AFTER UPDATE ON orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ranking_keys_on_orders();
CREATE TRIGGER ranking_keys_on_order_delete AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ranking_keys_on_orders();

-- A sale inside a window that ends at the anchor is in that window's kept volume at once, in its
-- own transaction; a later sale is the reader's correction until the anchor passes it.
-- The sales given (as arrays: one call per statement) added to (sign 1) or taken from (-1) the kept windows.
CREATE FUNCTION ranking_keys_mark_sales(collections TEXT[], prices DECIMAL[], ats TIMESTAMPTZ[], sign INT) RETURNS void LANGUAGE sql AS $$
  INSERT INTO collection_volume_marks AS m (collection_address, volume_24h, volume_7d)
  SELECT s.c, sign * COALESCE(SUM(s.p) FILTER (WHERE s.at > a.at - interval '24 hours'), 0), sign * SUM(s.p)
    FROM volume_mark_anchor a, unnest(collections, prices, ats) AS s(c, p, at)
   WHERE a.id = 1 AND s.at > a.at - interval '168 hours' AND s.at <= a.at
   GROUP BY s.c
  ON CONFLICT (collection_address) DO UPDATE SET volume_24h = m.volume_24h + EXCLUDED.volume_24h, volume_7d = m.volume_7d + EXCLUDED.volume_7d
$$;
CREATE FUNCTION ranking_keys_on_sales() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(72707374, hashtext(current_database()));
  -- only the rows inside the kept windows are passed on (plpgsql plans a statement when it first
  -- runs it: the branch naming the transition table this operation lacks is never planned)
  IF TG_OP <> 'DELETE' THEN
    PERFORM ranking_keys_mark_sales(array_agg(n.collection_address), array_agg(n.price), array_agg(n.timestamp), 1)
       FROM new_rows n, volume_mark_anchor a WHERE a.id = 1 AND n.timestamp > a.at - interval '168 hours' AND n.timestamp <= a.at HAVING count(*) > 0;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM ranking_keys_mark_sales(array_agg(o.collection_address), array_agg(o.price), array_agg(o.timestamp), -1)
       FROM old_rows o, volume_mark_anchor a WHERE a.id = 1 AND o.timestamp > a.at - interval '168 hours' AND o.timestamp <= a.at HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ranking_keys_on_sale_insert AFTER INSERT ON sales REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ranking_keys_on_sales();
CREATE TRIGGER ranking_keys_on_sale_update AFTER UPDATE ON sales REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ranking_keys_on_sales();
CREATE TRIGGER ranking_keys_on_sale_delete AFTER DELETE ON sales REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ranking_keys_on_sales();

-- How much each collection's volume over a window of length w changes when the window's end moves
-- from `a` to `hi`: the sales between the two ends come in, those between the two starts go out
-- (signs flip when hi is before a). Two ranges of the sales' time index, as wide as the move. One
-- definition for the refresh, which moves the kept windows, and for every reader, which moves a
-- kept window to its own clock (src/services/ranking-keys.ts); a SQL function PostgreSQL inlines.
CREATE FUNCTION ranking_volume_moved(w INTERVAL, a TIMESTAMPTZ, hi TIMESTAMPTZ)
RETURNS TABLE (collection_address VARCHAR(42), delta DECIMAL) LANGUAGE sql STABLE AS $$
  SELECT d.c, SUM(d.v) FROM (
    SELECT s.collection_address AS c, CASE WHEN s.timestamp > a THEN s.price ELSE -s.price END AS v
      FROM sales s WHERE s.timestamp > LEAST(a, hi) AND s.timestamp <= GREATEST(a, hi)
    UNION ALL
    SELECT s.collection_address, CASE WHEN s.timestamp > a - w THEN -s.price ELSE s.price END
      FROM sales s WHERE s.timestamp > LEAST(a, hi) - w AND s.timestamp <= GREATEST(a, hi) - w
  ) d GROUP BY d.c
$$;

-- The refresh, at the caller's clock (unix seconds and the same instant as a timestamp; the
-- service's clock, so a fake clock keeps its meaning): every floor key not known to hold at t is
-- computed again with its interval, and the volume anchor moves to t_at. Returns false, having done
-- nothing, when a writer holds the lock (the next run does it; readers compute what is not kept).
CREATE FUNCTION refresh_ranking_keys(t BIGINT, t_at TIMESTAMPTZ, standard TEXT[]) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
  a TIMESTAMPTZ;
BEGIN
  IF NOT pg_try_advisory_xact_lock(72707374, hashtext(current_database())) THEN
    RETURN false;
  END IF;
  -- The floor at t and the interval around t it holds over, given today's statuses. After t: until
  -- the last end of the listings at the floor (one of them is live until then; an end at the
  -- largest BIGINT holds for good) or the first start of a cheaper VALID listing. Before t: from
  -- the first start of the listings at the floor (that one is live from then to t) and after the
  -- last end of a cheaper VALID listing that ended before t. So a reader whose clock is behind
  -- this one (another instance, a test's clock) takes the kept floor too. The cheaper listings
  -- are few: none of them is live at t.
  UPDATE collection_floor_keys k SET floor_price = f.floor,
         valid_from = COALESCE(GREATEST(f.held_since, f.cheaper_ended + 1), -9223372036854775808),
         valid_to = COALESCE(LEAST(f.held_until, f.cheaper_from), 9223372036854775807)
    FROM (
      SELECT s.collection_address, s.floor, held.since AS held_since, held.until AS held_until, cheaper.from_ AS cheaper_from, cheaper.ended AS cheaper_ended
        FROM (
          SELECT k2.collection_address,
                 (SELECT MIN(o.price) FROM orders o
                   WHERE o.collection_address = k2.collection_address AND o.is_order_ask AND o.status = 'VALID'
                     AND o.start_time <= t AND o.end_time >= t AND o.strategy = ANY(standard)) AS floor
            FROM collection_floor_keys k2
           WHERE NOT (k2.valid_from <= t AND t < k2.valid_to)
           -- a bounded batch, so the lock that writers wait on is held briefly (at 10M orders
           -- all 5,000 collections at once took 2.1 s): a first run fills the rest over the next
           LIMIT 200
        ) s
        CROSS JOIN LATERAL (
          SELECT MIN(o.start_time) AS since, LEAST(MAX(o.end_time), 9223372036854775806) + 1 AS until FROM orders o
           WHERE o.collection_address = s.collection_address AND o.is_order_ask AND o.status = 'VALID' AND o.price = s.floor
             AND o.start_time <= t AND o.end_time >= t AND o.strategy = ANY(standard)
        ) held
        CROSS JOIN LATERAL (
          SELECT MIN(o.start_time) FILTER (WHERE o.start_time > t) AS from_, MAX(o.end_time) FILTER (WHERE o.end_time < t) AS ended FROM orders o
           WHERE o.collection_address = s.collection_address AND o.is_order_ask AND o.status = 'VALID'
             AND (s.floor IS NULL OR o.price < s.floor) AND o.strategy = ANY(standard)
        ) cheaper
    ) f
   WHERE k.collection_address = f.collection_address;

  -- volumes: the kept windows end at a; moved to t_at by the sales between the two ends of each
  SELECT va.at INTO a FROM volume_mark_anchor va WHERE va.id = 1;
  IF a < t_at - interval '168 hours' OR a > t_at + interval '168 hours' THEN
    -- a week or more away (the first run, a clock moved far): the windows at t_at from scratch
    DELETE FROM collection_volume_marks;
    INSERT INTO collection_volume_marks (collection_address, volume_24h, volume_7d)
    SELECT s.collection_address, COALESCE(SUM(s.price) FILTER (WHERE s.timestamp > t_at - interval '24 hours'), 0), SUM(s.price)
      FROM sales s WHERE s.timestamp > t_at - interval '168 hours' AND s.timestamp <= t_at
     GROUP BY 1;
    UPDATE volume_mark_anchor SET at = t_at WHERE id = 1;
  ELSIF a <> t_at THEN
    INSERT INTO collection_volume_marks AS m (collection_address, volume_24h, volume_7d)
    SELECT x.c, SUM(x.d24), SUM(x.d7) FROM (
      SELECT d.collection_address AS c, d.delta AS d24, 0 AS d7 FROM ranking_volume_moved(interval '24 hours', a, t_at) d
      UNION ALL
      SELECT d.collection_address, 0, d.delta FROM ranking_volume_moved(interval '168 hours', a, t_at) d
    ) x GROUP BY x.c
    ON CONFLICT (collection_address) DO UPDATE SET volume_24h = m.volume_24h + EXCLUDED.volume_24h, volume_7d = m.volume_7d + EXCLUDED.volume_7d;
    UPDATE volume_mark_anchor SET at = t_at WHERE id = 1;
  END IF;
  RETURN true;
END $$;
