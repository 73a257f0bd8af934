// Webhook endpoints as their owners manage them (docs/webhooks.md): register, list, pause,
// resume, delete, rotate the secret, read the recent deliveries. Every call names the owner (the
// SHA-256 of the API key that created the endpoint) and touches only that owner's rows: another
// key's endpoint is NOT_FOUND, as if it did not exist. One statement per call.
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../domain/errors.js';
import { parseMarketEventStreamFilter, parseStreamCursor, type MarketEventStreamArgs, type MarketEventStreamFilter } from '../domain/market-event-stream.js';
import { parseWebhookUrl, type WebhookStatus } from '../domain/webhook-endpoint.js';
import type { ServiceDeps } from './deps.js';
import { logHeadPosition, positionAfterEvent, VISIBILITY_HORIZON_SQL } from './market-event-log.js';

export interface WebhookEndpoint {
  id: string;
  url: string;
  filter: MarketEventStreamFilter;
  status: WebhookStatus;
  /** the last event id delivered or passed over ("0": none yet) */
  cursor: string;
  failureCount: number;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookDelivery {
  id: string;
  eventIds: string[];
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
}

export interface CreateWebhookInput {
  url: string;
  filter?: MarketEventStreamArgs | null;
  /** deliver the events after this event id; default: from now on */
  after?: string | null;
}

/** Deliveries kept per endpoint (older ones are deleted as new ones are written). */
export const DELIVERIES_KEPT = 100;
/** Endpoints one key may register. */
export const MAX_ENDPOINTS_PER_KEY = 50;

/** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const COLUMNS = `id::text AS id, url, filter, status::text AS status, cursor_id::text AS cursor, failure_count AS "failureCount",
  next_attempt_at AS "nextAttemptAt", last_attempt_at AS "lastAttemptAt", last_error AS "lastError", created_at AS "createdAt", updated_at AS "updatedAt"`;

type Row = Omit<WebhookEndpoint, 'nextAttemptAt' | 'lastAttemptAt' | 'createdAt' | 'updatedAt'> & Record<'nextAttemptAt' | 'createdAt' | 'updatedAt', Date | string> & { lastAttemptAt: Date | string | null };

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));
const toEndpoint = (r: Row): WebhookEndpoint => ({
  ...r,
  filter: (typeof r.filter === 'string' ? JSON.parse(r.filter) : r.filter) as MarketEventStreamFilter,
  nextAttemptAt: asDate(r.nextAttemptAt),
  lastAttemptAt: r.lastAttemptAt === null ? null : asDate(r.lastAttemptAt),
  createdAt: asDate(r.createdAt),
  updatedAt: asDate(r.updatedAt),
});

const ID = /^[1-9][0-9]{0,17}$/;
const notFound = (id: string) => new ServiceError('NOT_FOUND', `No webhook endpoint ${JSON.stringify(id)} belongs to this API key`);
function endpointId(id: string): string {
  if (!ID.test(id)) throw notFound(id);
  return id;
}

export type AttemptListener = (outcome: 'delivered' | 'failed' | 'disabled', durationMs: number) => void;

/** A due endpoint no worker has claimed for this long makes the outbox "stuck" on /readyz. */
export const stuckAfterMs = (pollMs: number) => Math.max(10 * pollMs, 60_000);

export function createWebhookService(deps: ServiceDeps) {
  const sql = deps.db.sql;
  const allowPrivate = deps.config.webhooks.allowPrivateTargets;
  const listeners = new Set<AttemptListener>();

  async function one(owner: string, id: string, statement: string, values: unknown[] = []): Promise<WebhookEndpoint> {
    const [row] = await sql.query<Row>(statement, [endpointId(id), owner, ...values]);
    if (!row) throw notFound(id);
    return toEndpoint(row);
  }

  return {
    /** Metrics listen to the sender's attempts here; returns a function that stops listening. */
    onAttempt(fn: AttemptListener): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    noteAttempt: (outcome: Parameters<AttemptListener>[0], durationMs: number) => {
      for (const fn of listeners) fn(outcome, durationMs);
    },

    /** Endpoints by status, for the metrics. */
    async countByStatus(): Promise<Record<WebhookStatus, number>> {
      const rows = await sql.query<{ status: WebhookStatus; n: number }>(`SELECT status::text AS status, count(*)::int AS n FROM webhook_endpoints GROUP BY status`);
      const out: Record<WebhookStatus, number> = { ACTIVE: 0, PAUSED: 0, DISABLED: 0 };
      for (const r of rows) out[r.status] = Number(r.n);
      return out;
    },

    /**
     * The outbox as /readyz shows it: "stuck" when an ACTIVE endpoint with events after its cursor
     * has been due, unleased and unclaimed for far longer than the poll interval (no instance is
     * sending).
     */
    async outboxHealth(): Promise<{ status: 'up' | 'stuck'; stuckEndpoints: number; oldestDueSeconds: number }> {
      const [row] = await sql.query<{ stuck: number; oldest: number | null }>(
        `SELECT count(*) FILTER (WHERE COALESCE(checked_at, created_at) < now() - make_interval(secs => $1::float8 / 1000))::int AS stuck,
                EXTRACT(EPOCH FROM now() - min(next_attempt_at))::float8 AS oldest
         FROM webhook_endpoints
         WHERE status = 'ACTIVE' AND next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
           -- with nothing after its cursor an endpoint is not claimed, and not stuck either
           AND EXISTS (SELECT 1 FROM market_events e WHERE (e.tx_id, e.id) > (cursor_tx_id, cursor_id) AND e.tx_id < ${VISIBILITY_HORIZON_SQL})`,
        [stuckAfterMs(deps.config.webhooks.pollMs)],
      );
      const stuck = Number(row?.stuck ?? 0);
      return { status: stuck > 0 ? 'stuck' : 'up', stuckEndpoints: stuck, oldestDueSeconds: Math.max(0, Math.round(Number(row?.oldest ?? 0))) };
    },

    async create(owner: string, input: CreateWebhookInput): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      const url = parseWebhookUrl(input.url, allowPrivate);
      const filter = parseMarketEventStreamFilter(input.filter);
      const after = parseStreamCursor(input.after, 'after');
      const position = after === undefined ? await logHeadPosition(sql) : await positionAfterEvent(sql, after);
      const secret = newWebhookSecret();
      // the per-key cap is checked in the insert itself, so two concurrent creations cannot both pass it
      const [row] = await sql.query<Row>(
        `INSERT INTO webhook_endpoints (owner_key_hash, url, filter, secret, cursor_tx_id, cursor_id)
         SELECT $1, $2, $3::jsonb, $4, $5::xid8, $6::bigint
         WHERE (SELECT count(*) FROM webhook_endpoints WHERE owner_key_hash = $1) < ${MAX_ENDPOINTS_PER_KEY}
         RETURNING ${COLUMNS}`,
        [owner, url, JSON.stringify(filter), secret, position.txId, position.id],
      );
      if (!row) throw new ServiceError('BAD_REQUEST', `An API key may register at most ${MAX_ENDPOINTS_PER_KEY} webhook endpoints: delete one first`);
      return { endpoint: toEndpoint(row), secret };
    },

    async list(owner: string): Promise<WebhookEndpoint[]> {
      const rows = await sql.query<Row>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_key_hash = $1 ORDER BY id`, [owner]);
      return rows.map(toEndpoint);
    },

    get: (owner: string, id: string) => one(owner, id, `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1::bigint AND owner_key_hash = $2`),

    /** Stops deliveries; the cursor stays, so resume delivers what happened meanwhile. */
    pause: (owner: string, id: string) =>
      one(owner, id, `UPDATE webhook_endpoints SET status = 'PAUSED', updated_at = now() WHERE id = $1::bigint AND owner_key_hash = $2 RETURNING ${COLUMNS}`),

    /** ACTIVE again (from PAUSED or DISABLED), due now, failures forgotten; delivery goes on from the cursor. */
    resume: (owner: string, id: string) =>
      one(
        owner,
        id,
        `UPDATE webhook_endpoints SET status = 'ACTIVE', failure_count = 0, next_attempt_at = now(), updated_at = now()
         WHERE id = $1::bigint AND owner_key_hash = $2 RETURNING ${COLUMNS}`,
      ),

    /** Deletes the endpoint and its delivery log; a delivery in flight finds its lease gone and stops. */
    async remove(owner: string, id: string): Promise<string> {
      const [row] = await sql.query<{ id: string }>(`DELETE FROM webhook_endpoints WHERE id = $1::bigint AND owner_key_hash = $2 RETURNING id::text AS id`, [endpointId(id), owner]);
      if (!row) throw notFound(id);
      return row.id;
    },

    /** A new secret, effective for the next request sent. */
    async rotateSecret(owner: string, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      const secret = newWebhookSecret();
      const endpoint = await one(owner, id, `UPDATE webhook_endpoints SET secret = $3, updated_at = now() WHERE id = $1::bigint AND owner_key_hash = $2 RETURNING ${COLUMNS}`, [secret]);
      return { endpoint, secret };
    },

    /** The newest attempts first, at most `first` (and at most DELIVERIES_KEPT are kept). */
    async deliveries(owner: string, id: string, first = 20): Promise<WebhookDelivery[]> {
      if (!Number.isInteger(first) || first < 1 || first > DELIVERIES_KEPT) {
        throw new ServiceError('BAD_REQUEST', `first must be between 1 and ${DELIVERIES_KEPT}`, [{ field: 'first', code: 'BAD_REQUEST', message: `between 1 and ${DELIVERIES_KEPT}` }]);
      }
      const [row] = await sql.query<{ owned: boolean; deliveries: (Omit<WebhookDelivery, 'at'> & { at: string })[] | null }>(
        `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1::bigint AND owner_key_hash = $2) AS owned,
           (SELECT json_agg(d ORDER BY d."order" DESC) FROM (
              SELECT id AS "order", id::text AS id, ARRAY(SELECT x::text FROM unnest(event_ids) x) AS "eventIds", attempt, status_code AS "statusCode",
                     error, duration_ms AS "durationMs", at
              FROM webhook_deliveries WHERE endpoint_id = $1::bigint ORDER BY id DESC LIMIT $3) d) AS deliveries`,
        [endpointId(id), owner, first],
      );
      if (!row?.owned) throw notFound(id);
      return (row.deliveries ?? []).map(({ order: _o, ...d }: Omit<WebhookDelivery, 'at'> & { at: string; order?: unknown }) => ({ ...d, at: new Date(d.at) }));
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
