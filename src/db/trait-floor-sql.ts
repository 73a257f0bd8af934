// Trait floor moves as market events (TRAIT_FLOOR_CHANGE: docs/metadata.md "Trait floor
// events"). The trait panel reads each value's floor from the live book at request time, so it is
// never stale; this pass turns the moves of those floors into log rows for the streams and
// webhooks, off the write path (a submission pays nothing for it).
//
// A value's floor (the cheapest live fixed-price ask among the tokens carrying it: the panel's
// rule, src/services/token-metadata-sql.ts) can only move when
// - an order of a token carrying the value changes (a listing, a cancel, a fill, a transfer that
//   voids the seller's asks, a status restored by a reorg): the log names the token;
// - a listing of such a token starts or ends, by time alone: its start or end second lies between
//   this pass's clock and the previous one's;
// - a token gains the value (its metadata changed: the log's METADATA_UPDATE names it), or the
//   token whose ask was the floor loses it: that token is recorded with the floor.
// So a pass recomputes the values of the tokens those name, and of the floors those tokens held,
// and writes an event where the floor differs from the one last announced. Reading the log in its
// order (tx_id, id) below the visibility horizon, as the webhook sender does, no committed change
// is missed.
import { sqlHex, sqlInt } from './sql-literals.js';
import { VISIBILITY_HORIZON_SQL } from '../services/market-event-log.js';

/** Serialises passes across instances (a pass that finds it taken does nothing). */
const TRAIT_FLOOR_LOCK_ID = 72_707_377;
/** Log rows read per pass; a full batch is followed by the next pass at once. */
export const TRAIT_FLOOR_BATCH = 5000;

const lock = `pg_try_advisory_xact_lock(${TRAIT_FLOOR_LOCK_ID}, hashtext(current_database()))`;

/**
 * One pass at unix second `now`, as a script: the lock, then one statement (a snapshot taken after
 * the lock, so it sees the previous pass's commit). Its counts are kept on the cursor row.
 */
export function traitFloorPassScript(now: bigint, standardStrategies: readonly string[]): string {
  const t = sqlInt(now);
  const strategies = standardStrategies.length ? `ARRAY[${standardStrategies.map(sqlHex).join(', ')}]::text[]` : `ARRAY[]::text[]`;
  const liveAsk = (o: string) =>
    `${o}.is_order_ask AND ${o}.status = 'VALID' AND ${o}.start_time <= ${t} AND ${o}.end_time >= ${t} AND ${o}.strategy = ANY(${strategies})`;
  return `SELECT ${lock};
WITH cur AS (
  SELECT tx_id, event_id, COALESCE(checked_until, ${t}) AS since FROM trait_floor_cursor WHERE id = 1 AND ${lock}
), batch AS (
  SELECT e.tx_id, e.id, e.collection_address,
         COALESCE(e.token_id, CASE WHEN e.type = 'RETRACTED' THEN (SELECT r.token_id FROM market_events r WHERE r.id = e.retracts_id) END) AS token_id
  FROM market_events e, cur
  WHERE (e.tx_id, e.id) > (cur.tx_id, cur.event_id) AND e.tx_id < ${VISIBILITY_HORIZON_SQL}
  ORDER BY e.tx_id, e.id LIMIT ${TRAIT_FLOOR_BATCH}
), tokens AS (
  SELECT b.collection_address AS c, b.token_id AS t FROM batch b WHERE b.token_id IS NOT NULL
  -- listings that started or ended by time alone (orders_valid_ask_start_time_idx, ..._end_time_idx)
  UNION SELECT o.collection_address, o.token_id FROM orders o, cur
    WHERE o.is_order_ask AND o.status = 'VALID' AND o.token_id IS NOT NULL AND o.start_time > cur.since AND o.start_time <= ${t}
  UNION SELECT o.collection_address, o.token_id FROM orders o, cur
    WHERE o.is_order_ask AND o.status = 'VALID' AND o.token_id IS NOT NULL AND o.end_time >= cur.since AND o.end_time < ${t}
), keys AS (
  SELECT a.collection_address AS c, a.trait_type AS tt, a.value AS v FROM tokens k
    JOIN token_attributes a ON a.collection_address = k.c AND a.token_id = k.t
  UNION SELECT f.collection_address, f.trait_type, f.value FROM tokens k
    JOIN trait_floors f ON f.collection_address = k.c AND f.floor_token_id = k.t
), now_floor AS (
  SELECT k.c, k.tt, k.v, f.price, f.token_id FROM keys k LEFT JOIN LATERAL (
    SELECT o.price, o.token_id FROM token_attributes x
      JOIN orders o ON o.collection_address = x.collection_address AND o.token_id = x.token_id
    WHERE x.collection_address = k.c AND x.trait_type = k.tt AND x.value = k.v AND ${liveAsk('o')}
    ORDER BY o.price, o.id LIMIT 1) f ON true
), changed AS (
  SELECT n.c, n.tt, n.v, n.price, n.token_id, p.floor_price AS old_price, p.collection_address IS NULL AS fresh FROM now_floor n
    LEFT JOIN trait_floors p ON p.collection_address = n.c AND p.trait_type = n.tt AND p.value = n.v
  WHERE p.collection_address IS NULL OR p.floor_price IS DISTINCT FROM n.price OR p.floor_token_id IS DISTINCT FROM n.token_id
), kept AS (
  INSERT INTO trait_floors (collection_address, trait_type, value, floor_price, floor_token_id, updated_at)
  SELECT c, tt, v, price, token_id, now() FROM changed
  ON CONFLICT (collection_address, trait_type, value) DO UPDATE
    SET floor_price = EXCLUDED.floor_price, floor_token_id = EXCLUDED.floor_token_id, updated_at = EXCLUDED.updated_at
  RETURNING 1
), moves AS (
  -- a value seen for the first time announces a floor it has; later, a different price
  INSERT INTO market_events (type, collection_address, price, trait_type, trait_value)
  SELECT 'TRAIT_FLOOR_CHANGE', c, price, tt, v FROM changed
  WHERE CASE WHEN fresh THEN price IS NOT NULL ELSE old_price IS DISTINCT FROM price END
  ORDER BY c, tt COLLATE "C", v COLLATE "C"
  RETURNING 1
), last AS (
  SELECT tx_id, id FROM batch ORDER BY tx_id DESC, id DESC LIMIT 1
)
UPDATE trait_floor_cursor SET
  tx_id = COALESCE((SELECT tx_id FROM last), trait_floor_cursor.tx_id),
  event_id = COALESCE((SELECT id FROM last), trait_floor_cursor.event_id),
  checked_until = GREATEST(COALESCE(trait_floor_cursor.checked_until, ${t}), ${t}),
  last_events = (SELECT count(*) FROM batch),
  last_moves = (SELECT count(*) FROM moves)
FROM cur WHERE trait_floor_cursor.id = 1;`;
}

/** What the last pass did: log rows read (a full batch: run again) and moves written. */
export const TRAIT_FLOOR_LAST_PASS_SQL = `SELECT last_events AS events, last_moves AS moves FROM trait_floor_cursor WHERE id = 1`;
