// Metrics beyond HTTP on the app's prom-client registry: order submissions by outcome and
// problem code, the PostgreSQL pool (connections in use, idle, requests waiting), the open
// event log streams, webhooks and the read engine's fallbacks to the resolvers.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Services } from '../services/index.js';
import { READ_FALLBACK_CAUSES } from '../services/read-fallbacks.js';
import { READ_TEMPLATE_OUTCOMES } from '../services/read-templates.js';
import { GENERIC_PLAN_VERDICTS, genericPlansOf } from '../read-engine/generic-plans.js';

export function registerServiceMetrics(registry: Registry, services: Services): () => void {
  const submissions = new Counter({
    name: 'order_submissions_total',
    help: 'Order submissions (createOrder, createOrders, POST /api/v1/orders) by outcome; code is the first problem of a rejection',
    labelNames: ['outcome', 'code'] as const,
    registers: [registry],
  });
  const stop = services.submissions.onOutcome((outcome, code) => submissions.inc({ outcome, code: code ?? '' }));

  new Gauge({
    name: 'market_event_streams_open',
    help: 'marketEvents subscriptions open on this instance (each reads the event log per wake-up or poll)',
    registers: [registry],
    collect() {
      this.set(services.eventStream.openStreams());
    },
  });

  // webhooks: attempts of this instance's sender, and the endpoints of the whole database by status
  const attempts = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook requests sent by this instance by outcome: delivered (2xx), failed (retried later), disabled (the failure that disabled the endpoint)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Time from sending a webhook request to its answer (or to giving up)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const stopWebhooks = services.webhooks.onAttempt((outcome, ms) => {
    attempts.inc({ outcome });
    latency.observe(ms / 1000);
  });
  new Gauge({
    name: 'webhook_endpoints',
    help: 'Webhook endpoints by status (ACTIVE, PAUSED, DISABLED), read from the database at each scrape',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await services.webhooks.countByStatus().catch(() => null);
      if (counts) for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });

  // token metadata: this instance's reads by outcome and host, and the queue of the whole database
  const metadataReads = new Counter({
    name: 'metadata_fetches_total',
    help: "Token metadata reads of this instance's worker by result (OK or the error code) and host (ipfs, arweave, inline, or the http host)",
    labelNames: ['result', 'host'] as const,
    registers: [registry],
  });
  const metadataLatency = new Histogram({
    name: 'metadata_fetch_duration_seconds',
    help: 'Time to read one token metadata document (gateways, redirects and retries included), by host',
    labelNames: ['host'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const stopMetadata = services.tokenMetadata.onRead((result, host, ms) => {
    metadataReads.inc({ result, host });
    metadataLatency.observe({ host }, ms / 1000);
  });
  new Gauge({
    name: 'metadata_queue',
    help: 'The metadata queue, read from the database at each scrape: due (tokens waiting for a read), leased (being read), oldest_due_seconds',
    labelNames: ['measure'] as const,
    registers: [registry],
    async collect() {
      const d = await services.tokenMetadata.queue.depth().catch(() => null);
      if (!d) return;
      this.set({ measure: 'due' }, d.due);
      this.set({ measure: 'leased' }, d.leased);
      this.set({ measure: 'oldest_due_seconds' }, d.oldestDueSeconds ?? 0);
    },
  });

  /** A counter by one label, every value shown from 0, counted at each occurrence `on` reports. */
  const countedBy = <L extends string>(name: string, help: string, label: L, values: readonly string[], on: (count: (value: string) => void) => () => void) => {
    const counter = new Counter({ name, help, labelNames: [label], registers: [registry] });
    for (const value of values) counter.inc({ [label]: value } as Record<L, string>, 0);
    return on((value) => counter.inc({ [label]: value } as Record<L, string>));
  };
  const stopFallbacks = countedBy(
    'read_engine_fallbacks_total',
    'Reads the engine handed to the resolvers, by cause: database-error (its statement failed: a defect or an outage), unrenderable (a value it cannot render as the resolvers would), replica-behind, island-failed',
    'cause',
    READ_FALLBACK_CAUSES,
    (count) => services.readFallbacks.onFallback((cause) => count(cause)),
  );
  const stopTemplates = countedBy(
    'read_engine_templates_total',
    'Query shapes the engine planned for the first time, by outcome: made (later requests of the shape bind their values into its statement), volatile (planned from data or process state, per request), refused (planned per request: a planner defect, logged with its reason)',
    'outcome',
    READ_TEMPLATE_OUTCOMES,
    (count) => services.readTemplates.onOutcome((outcome) => count(outcome)),
  );
  const stopGeneric = countedBy(
    'read_engine_generic_plans_total',
    "Verdicts on statement templates' generic plans (asked when a template is first used, again each minute it is in use): generic (its plan serves every value: planned once per connection), custom (planned per request: a sort, hash or bitmap scan, or a client's or another row's value in a filter), failed (the database could not say: custom)",
    'verdict',
    GENERIC_PLAN_VERDICTS,
    (count) => genericPlansOf(services.deps).onVerdict((verdict) => count(verdict)),
  );

  const pool = services.deps.db.poolStats;
  if (pool) {
    const gauge = (name: string, help: string, read: (s: { total: number; idle: number; waiting: number; max: number }) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read(pool()));
        },
      });
    gauge('db_pool_connections_in_use', 'PostgreSQL pool connections checked out', (s) => s.total - s.idle);
    gauge('db_pool_connections_idle', 'PostgreSQL pool connections open and idle', (s) => s.idle);
    gauge('db_pool_requests_waiting', 'Queries waiting for a free PostgreSQL pool connection', (s) => s.waiting);
    gauge('db_pool_connections_max', 'PostgreSQL pool size (DATABASE_POOL_SIZE; twice that once the read engine runs generic plans, which have a pool of their own)', (s) => s.max);
  }
  return () => {
    stop();
    stopWebhooks();
    stopMetadata();
    stopFallbacks();
    stopTemplates();
    stopGeneric();
  };
}
