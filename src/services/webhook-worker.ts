// The webhook sender (docs/webhooks.md): delivers the market event log to each ACTIVE endpoint
// from the endpoint's own cursor, at least once. An outbox without a row per event: the log is
// the queue and the cursor the acknowledgement, so it runs the same on PostgreSQL and PGlite.
//
// A pass claims due endpoints in one statement (FOR UPDATE SKIP LOCKED, then a lease written on
// the row): instances never deliver to one endpoint at once, and a dead instance's lease expires
// so another takes over. Per endpoint it reads the next matching events after the cursor
// (readMarketEventsAfter), POSTs them one per request, signed (Standard Webhooks, webhook-id =
// the event id so receivers deduplicate), and moves the cursor past an event only after a 2xx.
// Every write after the claim is fenced by the lease owner: a worker whose lease was taken over
// (or whose endpoint was deleted) stops. A failure keeps the cursor, and the endpoint is due
// again after an exponential, jittered wait; after WEBHOOK_DISABLE_AFTER_FAILURES it is DISABLED.
// The event bus wakes the sender when the log grows; WEBHOOK_POLL_MS is the fallback.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ServiceError } from '../domain/errors.js';
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import { retryDelayMs, shouldDisable } from '../domain/webhook-endpoint.js';
import type { MarketEventRow } from './activity.js';
import type { ServiceDeps } from './deps.js';
import { prunedThrough, readMarketEventsAfter, type LogPosition } from './market-event-log.js';
import { DELIVERIES_KEPT } from './webhook-endpoints.js';
import { postWebhook, type SendResult } from './webhook-sender.js';

/** Endpoints claimed per pass (worked concurrently). */
const CLAIM_BATCH = 10;
/** Events delivered to one endpoint per claim before it goes back in line (fairness). */
const EVENTS_PER_CLAIM = 100;
/** Events read per log read. */
const READ_BATCH = 20;

export type DeliveryOutcome = 'delivered' | 'failed' | 'disabled';

export interface WebhookWorkerOptions {
  /** names this worker's leases (default: a random id) */
  instanceId?: string;
  /** jitter source, [0, 1) */
  random?: () => number;
  /** told about every attempt (metrics) */
  onAttempt?: (outcome: DeliveryOutcome, result: SendResult) => void;
  log?: { warn(o: object, m: string): void };
}

interface Claimed {
  id: string;
  url: string;
  filter: MarketEventStreamFilter | string;
  secret: string;
  txId: string;
  cursor: string;
  failureCount: number;
}

/** The body of one delivery: the Standard Webhooks envelope around the event. */
export function webhookPayload(e: MarketEventRow, at: Date): string {
  const { fromAddress, toAddress, id, createdAt, ...rest } = e;
  return JSON.stringify({
    type: `market.${e.type.toLowerCase()}`,
    timestamp: at.toISOString(),
    data: { eventId: id, ...rest, from: fromAddress, to: toAddress, createdAt: createdAt.toISOString() },
  });
}

export function createWebhookWorker(deps: ServiceDeps, opts: WebhookWorkerOptions = {}) {
  const sql = deps.db.sql;
  const cfg = deps.config.webhooks;
  const owner = opts.instanceId ?? `${process.pid}-${randomUUID()}`;
  const random = opts.random ?? Math.random;
  /** long enough for a full claim's requests to time out one after the other is not needed: each write renews it */
  const leaseMs = cfg.timeoutMs * 2 + 30_000;
  const schedule = { firstMs: cfg.retryFirstMs, maxMs: cfg.retryMaxMs, disableAfterFailures: cfg.disableAfterFailures };

  async function claim(): Promise<Claimed[]> {
    return sql.query<Claimed>(
      `UPDATE webhook_endpoints w SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), checked_at = now()
       WHERE w.id IN (
         SELECT id FROM webhook_endpoints
         WHERE status = 'ACTIVE' AND next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
         ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING w.id::text AS id, w.url, w.filter, w.secret, w.cursor_tx_id::text AS "txId", w.cursor_id::text AS cursor, w.failure_count AS "failureCount"`,
      [owner, leaseMs, CLAIM_BATCH],
    );
  }

  /** Moves the cursor (renewing the lease); false when the lease is no longer ours or the endpoint stopped. */
  async function advance(id: string, to: LogPosition): Promise<boolean> {
    const [row] = await sql.query<{ status: string }>(
      `UPDATE webhook_endpoints SET cursor_tx_id = $3::xid8, cursor_id = $4::bigint, failure_count = 0,
         lease_expires_at = now() + make_interval(secs => $5::float8 / 1000), updated_at = now()
       WHERE id = $1::bigint AND lease_owner = $2 RETURNING status::text AS status`,
      [id, owner, to.txId, to.id, leaseMs],
    );
    return row?.status === 'ACTIVE';
  }

  async function record(id: string, eventIds: string[], attempt: number, r: SendResult) {
    await sql.query(
      `WITH added AS (
         INSERT INTO webhook_deliveries (endpoint_id, event_ids, attempt, status_code, error, duration_ms)
         SELECT $1::bigint, $2::bigint[], $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1::bigint) RETURNING 1)
       DELETE FROM webhook_deliveries d WHERE d.endpoint_id = $1::bigint
         AND d.id <= (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1::bigint ORDER BY id DESC OFFSET ${DELIVERIES_KEPT - 1} LIMIT 1)`,
      [id, eventIds, attempt, r.statusCode, r.error, r.durationMs],
    );
  }

  async function release(id: string) {
    await sql.query(`UPDATE webhook_endpoints SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1::bigint AND lease_owner = $2`, [id, owner]);
  }

  /** A failed attempt: the cursor stays; due again after the backoff, or DISABLED. */
  async function fail(ep: Claimed, failures: number, r: SendResult): Promise<DeliveryOutcome> {
    const disable = shouldDisable(failures, schedule);
    await sql.query(
      `UPDATE webhook_endpoints SET failure_count = $3, last_attempt_at = now(), last_error = $4, updated_at = now(),
         status = CASE WHEN $5 THEN 'DISABLED'::"WebhookEndpointStatus" ELSE status END,
         next_attempt_at = now() + make_interval(secs => $6::float8 / 1000), lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $1::bigint AND lease_owner = $2`,
      [ep.id, owner, failures, r.error ?? `answered ${r.statusCode}`, disable, retryDelayMs(failures, schedule, random())],
    );
    return disable ? 'disabled' : 'failed';
  }

  /** Works one claimed endpoint; true when it may have more to deliver right away. */
  async function work(ep: Claimed): Promise<boolean> {
    const filter = (typeof ep.filter === 'string' ? JSON.parse(ep.filter) : ep.filter) as MarketEventStreamFilter;
    let position: LogPosition = { txId: ep.txId, id: ep.cursor };
    let failures = ep.failureCount;
    let sent = 0;
    try {
      while (sent < EVENTS_PER_CLAIM) {
        let read;
        try {
          read = await readMarketEventsAfter(sql, position, filter, READ_BATCH);
        } catch (err) {
          if (!(err instanceof ServiceError && err.code === 'CURSOR_EXPIRED')) throw err;
          // retention deleted events this endpoint had not received: say so in its log and go on from what is kept
          const pruned = await prunedThrough(sql);
          if (!pruned) throw err;
          await record(ep.id, [], 0, { ok: false, statusCode: null, error: `events up to ${pruned.maxId} were pruned (EVENT_LOG_RETENTION_DAYS) before delivery`, durationMs: 0 });
          position = { txId: pruned.txId, id: pruned.id };
          if (!(await advance(ep.id, position))) return false;
          continue;
        }
        const webhook = new Webhook(ep.secret);
        for (const e of read.events) {
          const at = new Date();
          const body = webhookPayload(e, at);
          const headers = { 'webhook-id': e.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': webhook.sign(e.id, at, body) };
          const result = await postWebhook(ep.url, body, headers, cfg);
          await record(ep.id, [e.id], failures + 1, result);
          if (!result.ok) {
            const outcome = await fail(ep, failures + 1, result);
            opts.onAttempt?.(outcome, result);
            return false;
          }
          opts.onAttempt?.('delivered', result);
          failures = 0;
          sent++;
          position = { txId: e.txId, id: e.id };
          await sql.query(`UPDATE webhook_endpoints SET last_attempt_at = now(), last_error = NULL WHERE id = $1::bigint`, [ep.id]);
          if (!(await advance(ep.id, position))) return false;
        }
        // past rows that did not match, too: the next read starts there
        if (read.next.id !== position.id || read.next.txId !== position.txId) {
          position = read.next;
          if (!(await advance(ep.id, position))) return false;
        }
        if (!read.more) return false;
      }
      return true;
    } finally {
      await release(ep.id).catch(() => {});
    }
  }

  let running: Promise<boolean> | null = null;
  /** One pass: claims due endpoints and delivers to them; true when some may have more at once. */
  const runOnce = () =>
    (running ??= (async () => {
      const claimed = await claim();
      const more = await Promise.all(
        claimed.map((ep) =>
          work(ep).catch((err) => {
            opts.log?.warn({ err, endpoint: ep.id }, 'webhook delivery pass failed; retrying at the next pass');
            return false;
          }),
        ),
      );
      return more.includes(true) || claimed.length === CLAIM_BATCH;
    })().finally(() => (running = null)));

  let stopped = true;
  let wake: (() => void) | null = null;
  let woken = false;
  let loop: Promise<void> | null = null;

  return {
    instanceId: owner,
    runOnce,
    /** Runs passes until stop(): at once while there is more, else on a bus wake-up or every poll interval. */
    start() {
      if (!stopped) return;
      stopped = false;
      for (const topic of ['market-log', 'order-events', 'sales'] as const) {
        void (async () => {
          for await (const _ of deps.events.subscribe(topic)) {
            if (stopped) break;
            woken = true;
            wake?.();
          }
        })().catch(() => {});
      }
      loop = (async () => {
        while (!stopped) {
          woken = false;
          let more = false;
          try {
            more = await runOnce();
          } catch (err) {
            opts.log?.warn({ err }, 'webhook pass failed; retrying at the next poll');
          }
          if (more || woken || stopped) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, cfg.pollMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      })();
    },
    /** Ends the loop after the pass in flight (its leases are released). */
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await running?.catch(() => {});
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
