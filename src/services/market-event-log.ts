// Gap-free reading of the market event log (docs/activity.md, "Streaming and resuming"): the
// one reader behind the resumable subscription, and the function a webhook sender calls.
//
// Ids are taken before commit, so a lower id can commit after a higher one; a reader that moved
// past the higher id would never see the lower. The log is therefore read in the order
// (tx_id, id) and only below the visibility horizon: rows whose writing transaction is older than
// the oldest transaction still running in this database (VISIBILITY_HORIZON_SQL). Every such
// transaction has ended, so that prefix of the log is final; anything committed later has a
// tx_id at or above the horizon and sorts after every row already read. Within one transaction
// events keep their id order; across transactions the order is the transactions' (usually, but
// not always, the ids' order). A long-running writing transaction holds the horizon back: the
// stream waits for it rather than skip what it may still write.
import { ServiceError } from '../domain/errors.js';
import { isEventId, type MarketEventStreamFilter } from '../domain/market-event-stream.js';
import { ACTIVITY_COLUMNS, type MarketEventRow } from './activity.js';
import { eventScopeSql } from './activity-sql.js';
import { Params } from './order-page-sql.js';

/** A place in the log, in reading order: the writing transaction and the event id (decimal text). */
export interface LogPosition {
  txId: string;
  id: string;
}

/** Before every event. */
export const LOG_START: LogPosition = { txId: '0', id: '0' };

/** An event as the log's readers see it: where it stands in reading order, and for a retraction the type it retracts. */
export type LogEvent = MarketEventRow & { txId: string; retractedType?: string | null };

export interface LogReadOptions {
  /** read no further than this position (a reader catching up with another that is there) */
  through?: LogPosition;
  /** add `retractedType` to each RETRACTED event (a reader that filters in memory) */
  retractedTypes?: boolean;
}

export interface LogRead {
  /** matching events after the position, in reading order, at most `limit` */
  events: LogEvent[];
  /** where the next read starts: past the last event, or past every row looked at when fewer matched */
  next: LogPosition;
  /** true when the read stopped at a limit: read again at once, there may be more */
  more: boolean;
  /**
   * true when committed events wait above the horizon (a transaction older than theirs still
   * runs): read again soon, they become readable when it ends
   */
  pending: boolean;
}

export interface SqlQueryable {
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
}

/** Rows looked at per read, matching or not: bounds a read under a narrow filter. */
const SCAN_ROWS = 2000;

/**
 * The visibility horizon: the oldest transaction still running in this database (else the next
 * transaction id). Transaction ids are shared by every database of the server, and
 * pg_snapshot_xmin would let a long transaction in another database (a bulk load elsewhere) hold
 * every stream back; it can never write this log. So the running ids of the current snapshot count
 * unless pg_stat_activity shows them in another database's backend; one it cannot place (ended
 * since, prepared, not visible to this role) still counts: the horizon errs towards waiting.
 */
export const VISIBILITY_HORIZON_SQL = `(SELECT COALESCE(min(x), pg_snapshot_xmax(pg_current_snapshot()))
  FROM pg_snapshot_xip(pg_current_snapshot()) AS x
  WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.backend_xid = x::xid AND a.datname IS DISTINCT FROM current_database()))`;
const HORIZON = VISIBILITY_HORIZON_SQL;

/** The filter over the market_events row `e`; a retraction follows the type of what it retracts. */
export function streamFilterSql(f: MarketEventStreamFilter, p: Params, e: string): string[] {
  const and = eventScopeSql(f, p, e);
  if (f.types) {
    // validated enum values, written as literals
    const list = f.types.map((t) => `'${t}'`).join(', ');
    and.push(
      f.types.includes('RETRACTED')
        ? `${e}.type IN (${list})`
        : `(${e}.type IN (${list}) OR (${e}.type = 'RETRACTED' AND EXISTS (SELECT 1 FROM market_events o WHERE o.id = ${e}.retracts_id AND o.type IN (${list}))))`,
    );
  }
  if (f.minPrice !== undefined) and.push(`${e}.price >= ${p.add(f.minPrice, '::numeric')}`);
  if (f.maxPrice !== undefined) and.push(`${e}.price <= ${p.add(f.maxPrice, '::numeric')}`);
  if (f.owner) and.push(heldByOwnerSql(e, p.add(f.owner)));
  return and;
}

/** The owner filter over the row `e`: an event on an order for a token `owner` (an SQL expression) holds now. */
const heldByOwnerSql = (e: string, owner: string) => `${e}.order_hash IS NOT NULL AND EXISTS (SELECT 1 FROM token_balances b
      WHERE b.collection_address = ${e}.collection_address AND b.owner = ${owner} AND b.balance > 0
        AND (${e}.token_id IS NULL OR b.token_id = ${e}.token_id))`;

/**
 * Which of these events each of these owners' filters selects (the owner filter of
 * streamFilterSql, for many streams at once): pairs of event id and owner. One statement.
 */
export async function eventsHeldByOwners(sql: SqlQueryable, eventIds: readonly string[], owners: readonly string[]): Promise<{ id: string; owner: string }[]> {
  if (!eventIds.length || !owners.length) return [];
  return sql.query<{ id: string; owner: string }>(
    `SELECT e.id::text AS id, o.owner FROM market_events e CROSS JOIN unnest($2::text[]) AS o(owner)
     WHERE e.id = ANY($1::bigint[]) AND ${heldByOwnerSql('e', 'o.owner')}`,
    [eventIds, owners],
  );
}

/** Two non-negative decimals without leading zeros (xid8 and bigint as text), compared without parsing. */
const compareDecimals = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** Reading order: negative when `a` comes first. Hot: the shared tail compares every stream's position. */
export const comparePositions = (a: LogPosition, b: LogPosition) => compareDecimals(a.txId, b.txId) || compareDecimals(a.id, b.id);

export const cursorExpired = (cursor: string) =>
  new ServiceError('CURSOR_EXPIRED', `Event ${cursor} is older than the oldest event kept (EVENT_LOG_RETENTION_DAYS): resume from a fresh subscription without a cursor`);

/**
 * Up to `limit` events after `after` that match `filter`, in reading order, all of them below the
 * visibility horizon: read again from `next` and nothing is skipped or repeated. One statement.
 * CURSOR_EXPIRED when retention has deleted events after `after` (the reader fell too far behind).
 */
export async function readMarketEventsAfter(sql: SqlQueryable, after: LogPosition, filter: MarketEventStreamFilter, limit: number, opts: LogReadOptions = {}): Promise<LogRead> {
  const p = new Params();
  const tx = p.add(after.txId, '::xid8');
  const id = p.add(after.id, '::bigint');
  const through = opts.through ? [p.add(opts.through.txId, '::xid8'), p.add(opts.through.id, '::bigint')] : null;
  const where = streamFilterSql(filter, p, 'e');
  const [row] = await sql.query<{
    events: (LogEvent & { ord?: number })[] | null;
    scanned: LogPosition | null;
    pruned: LogPosition | null;
    pending: boolean;
    covered?: boolean;
  }>(
    `WITH scan AS (
       SELECT e.* FROM market_events e
       WHERE (e.tx_id, e.id) > (${tx}, ${id}) AND e.tx_id < ${HORIZON}${through ? ` AND (e.tx_id, e.id) <= (${through[0]}, ${through[1]})` : ''}
       ORDER BY e.tx_id, e.id LIMIT ${SCAN_ROWS}
     ), hits AS (
       SELECT e.* FROM scan e ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY e.tx_id, e.id LIMIT ${Math.max(1, Math.floor(limit))}
     )
     SELECT (SELECT json_agg(r ORDER BY r.ord) FROM (
               SELECT ${ACTIVITY_COLUMNS}, e.tx_id::text AS "txId", row_number() OVER (ORDER BY e.tx_id, e.id) AS ord${
                 opts.retractedTypes ? `, (SELECT o.type::text FROM market_events o WHERE o.id = e.retracts_id) AS "retractedType"` : ''
               } FROM hits e) r) AS events,${through ? `
            ${through[0]} < ${HORIZON} AS covered,` : ''}
            (SELECT json_build_object('txId', s.tx_id::text, 'id', s.id::text, 'n', (SELECT count(*) FROM scan)) FROM scan s ORDER BY s.tx_id DESC, s.id DESC LIMIT 1) AS scanned,
            (SELECT json_build_object('txId', r.through_tx_id::text, 'id', r.through_id::text) FROM market_event_retention r) AS pruned,
            -- committed rows wait above the horizon iff the log's last row (one backward index step) does
            COALESCE((SELECT w.tx_id >= ${HORIZON} AND (w.tx_id, w.id) > (${tx}, ${id}) FROM market_events w ORDER BY w.tx_id DESC, w.id DESC LIMIT 1), false) AS pending`,
    p.values,
  );
  // retention deleted rows this reader had not reached: say so rather than skip them
  if (row?.pruned && comparePositions(after, row.pruned) < 0) throw cursorExpired(after.id);
  const events = (row?.events ?? []).map(({ ord: _ord, ...e }) => ({ ...e, createdAt: new Date(e.createdAt) }));
  const scanned = row?.scanned as (LogPosition & { n: number }) | null;
  const full = events.length >= limit;
  const last = events.at(-1);
  const more = full || (scanned?.n ?? 0) >= SCAN_ROWS;
  // a bounded read that saw everything up to its bound (every row there is below the horizon) is there
  const next =
    full && last ? { txId: last.txId, id: last.id } : !more && opts.through && row?.covered ? opts.through : scanned ? { txId: scanned.txId, id: scanned.id } : after;
  return { events, next, more, pending: Boolean(row?.pending) };
}

/** The last position below the horizon now: a stream started here delivers only what commits from now on. */
export async function logHeadPosition(sql: SqlQueryable): Promise<LogPosition> {
  const [row] = await sql.query<LogPosition>(
    `SELECT e.tx_id::text AS "txId", e.id::text AS "id" FROM market_events e WHERE e.tx_id < ${HORIZON} ORDER BY e.tx_id DESC, e.id DESC LIMIT 1`,
  );
  return row ?? LOG_START;
}

/** How far retention has pruned the log; null when it never has. */
export async function prunedThrough(sql: SqlQueryable): Promise<(LogPosition & { maxId: string }) | null> {
  const [row] = await sql.query<LogPosition & { maxId: string }>(
    `SELECT through_tx_id::text AS "txId", through_id::text AS "id", max_id::text AS "maxId" FROM market_event_retention`,
  );
  return row ?? null;
}

/**
 * The position just after the event `cursor` (an event id a stream delivered). "0" is the start
 * of the log. CURSOR_EXPIRED when retention deleted it (or anything after it the client has not
 * seen), INVALID_CURSOR when no event ever had that id.
 */
export async function positionAfterEvent(sql: SqlQueryable, cursor: string): Promise<LogPosition> {
  if (!isEventId(cursor)) throw new ServiceError('INVALID_CURSOR', `${JSON.stringify(cursor)} is not an event id`);
  const [found] = await sql.query<{ txId: string | null; pruned: (LogPosition & { maxId: string }) | null }>(
    `SELECT (SELECT e.tx_id::text FROM market_events e WHERE e.id = $1::bigint) AS "txId",
            (SELECT json_build_object('txId', r.through_tx_id::text, 'id', r.through_id::text, 'maxId', r.max_id::text) FROM market_event_retention r) AS pruned`,
    [cursor],
  );
  const pruned = found?.pruned ?? null;
  const position = cursor === '0' ? LOG_START : found?.txId ? { txId: found.txId, id: cursor } : null;
  if (position) {
    if (pruned && comparePositions(position, pruned) <= 0) throw cursorExpired(cursor);
    return position;
  }
  if (pruned && BigInt(cursor) <= BigInt(pruned.maxId)) throw cursorExpired(cursor);
  throw new ServiceError('INVALID_CURSOR', `No event has the id ${cursor}`);
}

/**
 * Retention: deletes up to `batch` of the oldest events (in reading order) created before
 * `olderThan`, stopping at the first younger one so the kept log stays one unbroken suffix, and
 * before an event whose retraction is kept. Records how far it went. One statement; returns the
 * number of rows deleted (0: nothing left to prune).
 */
export async function pruneMarketEvents(sql: SqlQueryable, olderThan: Date, batch: number): Promise<number> {
  const [row] = await sql.query<{ n: string }>(
    `WITH head AS (
       SELECT e.id, e.tx_id, e.created_at < $1::timestamptz AS old FROM market_events e
       WHERE e.tx_id < ${HORIZON} ORDER BY e.tx_id, e.id LIMIT $2
     ), young AS (
       SELECT tx_id, id FROM head WHERE NOT old ORDER BY tx_id, id LIMIT 1
     ), prefix AS (
       SELECT h.id, h.tx_id FROM head h WHERE NOT EXISTS (SELECT 1 FROM young y WHERE (h.tx_id, h.id) >= (y.tx_id, y.id))
     ), pinned AS (
       -- an event whose RETRACTED row stays: keep it (and what follows) until the retraction goes too
       SELECT p.tx_id, p.id FROM prefix p
       WHERE EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = p.id AND r.id NOT IN (SELECT id FROM prefix))
       ORDER BY p.tx_id, p.id LIMIT 1
     ), doomed AS (
       SELECT p.id, p.tx_id FROM prefix p WHERE NOT EXISTS (SELECT 1 FROM pinned x WHERE (p.tx_id, p.id) >= (x.tx_id, x.id))
     ), deleted AS (
       DELETE FROM market_events e USING doomed d WHERE e.id = d.id RETURNING e.id, e.tx_id
     ), last AS (
       SELECT tx_id, id FROM deleted ORDER BY tx_id DESC, id DESC LIMIT 1
     ), mark AS (
       INSERT INTO market_event_retention (through_tx_id, through_id, max_id, pruned_rows, pruned_at)
       SELECT l.tx_id, l.id, (SELECT max(id) FROM deleted), (SELECT count(*) FROM deleted), now() FROM last l
       ON CONFLICT (singleton) DO UPDATE SET through_tx_id = EXCLUDED.through_tx_id, through_id = EXCLUDED.through_id,
         max_id = GREATEST(market_event_retention.max_id, EXCLUDED.max_id),
         pruned_rows = market_event_retention.pruned_rows + EXCLUDED.pruned_rows, pruned_at = EXCLUDED.pruned_at
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM deleted)::text AS n, (SELECT count(*) FROM mark) AS marked`,
    [olderThan.toISOString(), batch],
  );
  return Number(row?.n ?? 0);
}
