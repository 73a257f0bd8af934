// The webhook sender (docs/webhooks.md): delivers the market event log to each ACTIVE endpoint
// from the endpoint's own cursor, at least once. An outbox without a row per event: the log is
// the queue and the cursor the acknowledgement, so it runs the same on PostgreSQL and PGlite.
//
// The sender keeps up to SENDER_CONCURRENCY endpoints in flight and claims more as soon as one
// finishes, so a slow receiver holds only its own slot. It reads each new stretch of the log once
// and claims the endpoints whose filters select some of it (webhook-hints.ts), and every due
// endpoint with log rows after its cursor once per WEBHOOK_POLL_MS. A claim is one statement (FOR UPDATE SKIP LOCKED, then a lease written on
// the row): instances never deliver to one endpoint at once, and a dead instance's lease expires
// so another takes over. Per endpoint it reads the next matching events after the cursor
// (readMarketEventsAfter) and POSTs them one per request, in order, signed (Standard Webhooks,
// webhook-id = the event id so receivers deduplicate), on a kept-alive connection. The cursor
// and the delivery log are written once per read (or every ACK_EVERY_MS on a slow receiver), in
// one statement: an instance that dies re-sends at most what it delivered since then, which
// at-least-once allows. Every write after the claim is fenced by the lease owner: a worker whose
// lease was taken over (or whose endpoint was deleted) stops. A failure keeps the cursor at the
// event that failed, and the endpoint is due again after an exponential, jittered wait; after
// WEBHOOK_DISABLE_AFTER_FAILURES it is DISABLED. The event bus wakes the sender when the log
// grows; WEBHOOK_POLL_MS is the fallback.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ServiceError } from '../domain/errors.js';
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import { retryDelayMs } from '../domain/retry-schedule.js';
import { shouldDisable } from '../domain/webhook-endpoint.js';
import type { MarketEventRow } from './activity.js';
import type { ServiceDeps } from './deps.js';
import { comparePositions, prunedThrough, readMarketEventsAfter, VISIBILITY_HORIZON_SQL, type LogEvent, type LogPosition } from './market-event-log.js';
import { DELIVERIES_KEPT } from './webhook-endpoints.js';
import { createWebhookHints } from './webhook-hints.js';
import { createWebhookHolds, type Hold } from './webhook-holds.js';
import { postWebhook, WebhookAgents, type SendResult } from './webhook-sender.js';

/** Endpoints claimed by one pass of runOnce (worked concurrently). */
const CLAIM_BATCH = 10;
/** Endpoints the running sender keeps in flight at once (delivering, or leased and waiting for events). */
export const SENDER_CONCURRENCY = 256;
/** Above this many in flight, a caught-up endpoint is released at once rather than held. */
const HOLD_BELOW = 192;
/** How long the running sender keeps a caught-up endpoint leased, waiting for its next events. */
const HOLD_IDLE_MS = 2000;
/** The longest one claim is held: then the endpoint goes back in line (another instance may take it). */
const HOLD_MAX_MS = 20_000;
/** Events delivered to one endpoint per claim before it goes back in line (fairness). */
const EVENTS_PER_CLAIM = 200;
/** Events read per log read. */
const READ_BATCH = 50;
/** A slow receiver's progress is written (and its lease renewed) at least this often. */
const ACK_EVERY_MS = 1000;
/** The running sender claims at most this often: wake-ups in between are served together. */
const CLAIM_GAP_MS = 10;

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

const parseFilter = (f: Claimed['filter']) => (typeof f === 'string' ? JSON.parse(f) : f) as MarketEventStreamFilter;

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
  const agents = new WebhookAgents(cfg.allowPrivateTargets);

  /** Due endpoints with log rows after their cursor (one index probe each), leased to this worker, round-robin. */
  async function claim(limit: number, only: string[] | null = null): Promise<Claimed[]> {
    return sql.query<Claimed>(
      `UPDATE webhook_endpoints w SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), checked_at = now()
       WHERE w.id IN (
         SELECT c.id FROM webhook_endpoints c
         WHERE c.status = 'ACTIVE' AND c.next_attempt_at <= now() AND (c.lease_expires_at IS NULL OR c.lease_expires_at < now())
           AND ($4::bigint[] IS NULL OR c.id = ANY($4::bigint[]))
           AND EXISTS (SELECT 1 FROM market_events e WHERE (e.tx_id, e.id) > (c.cursor_tx_id, c.cursor_id) AND e.tx_id < ${VISIBILITY_HORIZON_SQL})
         -- the least recently claimed first: with more due endpoints than slots, each gets its turn
         ORDER BY c.checked_at NULLS FIRST LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING w.id::text AS id, w.url, w.filter, w.secret, w.cursor_tx_id::text AS "txId", w.cursor_id::text AS cursor, w.failure_count AS "failureCount"`,
      [owner, leaseMs, limit, only],
    );
  }

  /**
   * Acknowledges deliveries: moves the cursor (renewing the lease) and logs the attempts, in one
   * statement. False when the lease is no longer ours or the endpoint stopped.
   */
  async function acknowledge(id: string, to: LogPosition, delivered: { e: LogEvent; r: SendResult; attempt: number }[]): Promise<{ status: string; secret: string } | undefined> {
    const n = delivered.length;
    const [row] = await sql.query<{ status: string; secret: string }>(
      `WITH moved AS (
         UPDATE webhook_endpoints SET cursor_tx_id = $3::xid8, cursor_id = $4::bigint, failure_count = 0,
           last_attempt_at = CASE WHEN $6::int > 0 THEN now() ELSE last_attempt_at END, last_error = CASE WHEN $6::int > 0 THEN NULL ELSE last_error END,
           lease_expires_at = now() + make_interval(secs => $5::float8 / 1000), updated_at = now()
         WHERE id = $1::bigint AND lease_owner = $2 RETURNING status::text AS status, secret
       ), added AS (
         INSERT INTO webhook_deliveries (endpoint_id, event_ids, attempt, status_code, duration_ms)
         SELECT $1::bigint, ARRAY[u.e], u.a, u.s, u.d FROM unnest($7::bigint[], $8::int[], $9::int[], $10::int[]) WITH ORDINALITY AS u(e, a, s, d, o)
         WHERE EXISTS (SELECT 1 FROM moved) ORDER BY u.o
         RETURNING 1
       ), pruned AS (
         DELETE FROM webhook_deliveries d WHERE $6::int > 0 AND d.endpoint_id = $1::bigint
           AND d.id <= (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1::bigint ORDER BY id DESC OFFSET GREATEST(0, ${DELIVERIES_KEPT} - $6::int) LIMIT 1)
       )
       SELECT status, secret FROM moved`,
      [id, owner, to.txId, to.id, leaseMs, n, delivered.map((d) => d.e.id), delivered.map((d) => d.attempt), delivered.map((d) => d.r.statusCode), delivered.map((d) => d.r.durationMs)],
    );
    return row;
  }

  /** The endpoint as it is now, while this worker holds its lease (undefined: it does not). */
  async function current(id: string): Promise<{ status: string; secret: string } | undefined> {
    const [row] = await sql.query<{ status: string; secret: string }>(`SELECT status::text AS status, secret FROM webhook_endpoints WHERE id = $1::bigint AND lease_owner = $2`, [id, owner]);
    return row;
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

  /**
   * Works one claimed endpoint; true when it may have more to deliver right away. With `hold` (the
   * running sender) a caught-up endpoint stays leased and waits for its next events instead of
   * going back through a claim, so a busy endpoint costs one read and one acknowledgement per
   * batch, not four statements and a turn in the claim loop.
   */
  async function work(ep: Claimed, hold?: Hold): Promise<boolean> {
    const filter = parseFilter(ep.filter);
    /** where the next read starts; `acked` is where the endpoint's durable cursor stands */
    let position: LogPosition = { txId: ep.txId, id: ep.cursor };
    let acked = position;
    let failures = ep.failureCount;
    let sent = 0;
    let secret = ep.secret;
    let webhook = new Webhook(secret);
    /** Still ours and ACTIVE; a rotated secret signs from here on. */
    const still = (row: { status: string; secret: string } | undefined) => {
      if (row && row.secret !== secret) webhook = new Webhook((secret = row.secret));
      return row?.status === 'ACTIVE';
    };
    const claimedAt = performance.now();
    let delivered: { e: LogEvent; r: SendResult; attempt: number }[] = [];
    let ackedAt = performance.now();
    /** Writes the cursor at `to` and the attempts since the last write; false when the lease is lost. */
    const ack = async (to: LogPosition) => {
      const ok = still(await acknowledge(ep.id, to, delivered));
      acked = to;
      delivered = [];
      ackedAt = performance.now();
      return ok;
    };
    const unacked = () => delivered.length > 0 || comparePositions(position, acked) !== 0;
    let leased = true;
    try {
      for (;;) {
        if (hold ? performance.now() - claimedAt >= HOLD_MAX_MS : sent >= EVENTS_PER_CLAIM) return true;
        let read;
        try {
          // caught up: the sender's reader has these events already (one read for every endpoint)
          const kept = hold?.take(ep.id, position);
          read = kept ? { ...kept, more: false } : await readMarketEventsAfter(sql, position, filter, READ_BATCH);
        } catch (err) {
          if (!(err instanceof ServiceError && err.code === 'CURSOR_EXPIRED')) throw err;
          // retention deleted events this endpoint had not received: say so in its log and go on from what is kept
          const pruned = await prunedThrough(sql);
          if (!pruned) throw err;
          if (unacked() && !(await ack(position))) return (leased = false);
          await record(ep.id, [], 0, { ok: false, statusCode: null, error: `events up to ${pruned.maxId} were pruned (EVENT_LOG_RETENTION_DAYS) before delivery`, durationMs: 0 });
          position = { txId: pruned.txId, id: pruned.id };
          if (!(await advance(ep.id, position))) return (leased = false);
          acked = position;
          continue;
        }
        for (const e of read.events) {
          const at = new Date();
          const body = webhookPayload(e, at);
          const headers = { 'webhook-id': e.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': webhook.sign(e.id, at, body) };
          const result = await postWebhook(ep.url, body, headers, cfg, agents);
          if (!result.ok) {
            // what went through is acknowledged first; the cursor stays before the event that failed
            if (unacked() && !(await ack(position))) return (leased = false);
            await record(ep.id, [e.id], failures + 1, result);
            const outcome = await fail(ep, failures + 1, result);
            leased = false;
            opts.onAttempt?.(outcome, result);
            return false;
          }
          opts.onAttempt?.('delivered', result);
          delivered.push({ e, r: result, attempt: failures + 1 });
          position = { txId: e.txId, id: e.id };
          failures = 0;
          sent++;
          // a slow receiver: write progress (and renew the lease) now and then, not only per read
          if (performance.now() - ackedAt >= ACK_EVERY_MS && !(await ack(position))) return (leased = false);
        }
        // past rows that did not match, too: the next read starts there
        position = read.next;
        hold?.at(ep.id, position);
        if (read.more) {
          if (performance.now() - ackedAt >= ACK_EVERY_MS && !(await ack(position))) return (leased = false);
          continue;
        }
        if (!hold) return false;
        // caught up: progress is written at most once per ACK_EVERY_MS (more events within that
        // time are sent first); then the endpoint waits, leased, for its next events
        if (unacked()) {
          const left = ACK_EVERY_MS - (performance.now() - ackedAt);
          if (left > 0 && (await hold.wait(ep.id, left))) continue;
          if (!(await ack(position))) return (leased = false);
        }
        if (!(await hold.wait(ep.id, HOLD_IDLE_MS))) return false;
        // after a wait: paused, deleted or its secret rotated meanwhile?
        if (!still(await current(ep.id))) return false;
      }
    } finally {
      if (leased) {
        if (unacked()) await ack(position).catch(() => {});
        await release(ep.id).catch(() => {});
      }
    }
  }

  let running: Promise<boolean> | null = null;
  /** One pass: claims due endpoints and delivers to them; true when some may have more at once. */
  const runOnce = () =>
    (running ??= (async () => {
      const claimed = await claim(CLAIM_BATCH);
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
  /** in flight: delivering, or held and waiting for events */
  const inFlight = new Set<Promise<void>>();
  const holds = createWebhookHolds(() => !stopped && inFlight.size <= HOLD_BELOW);
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
      // a pool: up to SENDER_CONCURRENCY endpoints in flight, more claimed as soon as one finishes;
      // each stretch the hints read goes to the held endpoints that read on from its start
      const hints = createWebhookHints(deps, Math.min(cfg.pollMs, 1000), holds.feed);
      let claimedAllAt = -Infinity;
      const kick = () => {
        woken = true;
        wake?.();
      };
      holds.releaseAll();
      loop = (async () => {
        while (!stopped) {
          woken = false;
          try {
            // the endpoints the log's new events concern; every due endpoint once per poll interval
            await hints.update();
            const everything = performance.now() - claimedAllAt >= cfg.pollMs;
            if (everything) claimedAllAt = performance.now();
            // held ones read on from their own cursor; the others are claimed
            for (const id of everything ? holds.ids() : hints.ids()) {
              if (!holds.has(id)) continue;
              hints.forget(id);
              holds.poke(id);
            }
            const only = everything ? null : hints.ids();
            const free = SENDER_CONCURRENCY - inFlight.size;
            // hinted endpoints wait for a slot: idle held ones make room (their slots free as they release)
            if (only && free < only.length) holds.yieldSlots(only.length - free);
            const claimed = only?.length === 0 || free <= 0 ? [] : await claim(free, only);
            for (const ep of claimed) {
              hints.forget(ep.id);
              holds.add(ep.id, parseFilter(ep.filter));
              const p: Promise<void> = work(ep, holds.hold)
                .then(
                  (more) => void (more && hints.add(ep.id)),
                  (err) => opts.log?.warn({ err, endpoint: ep.id }, 'webhook delivery failed; retrying at the next claim'),
                )
                .finally(() => {
                  holds.remove(ep.id);
                  inFlight.delete(p);
                  kick();
                });
              inFlight.add(p);
            }
          } catch (err) {
            opts.log?.warn({ err }, 'webhook claim failed; retrying at the next poll');
          }
          if (stopped) break;
          await new Promise((r) => setTimeout(r, CLAIM_GAP_MS));
          // a finished endpoint or new events meanwhile: claim again; else wait for one of them or the poll
          if (woken || stopped) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, cfg.pollMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
            if (woken) wake();
          });
          wake = null;
        }
        await Promise.all(inFlight);
      })();
    },
    /** Ends the loop after the pass in flight (its leases are released). */
    async stop() {
      stopped = true;
      wake?.();
      holds.releaseAll();
      await loop;
      await running?.catch(() => {});
      agents.destroy();
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
