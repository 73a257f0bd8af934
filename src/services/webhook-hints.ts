// Which webhook endpoints have something new to send, found once for all of them: the sender
// reads each new stretch of the log once, unfiltered, and matches it in memory against every
// ACTIVE endpoint's filter (market-event-filter.ts, the rule the endpoint's own read applies in
// SQL). Without it every new event made every endpoint claimable (it has log rows after its
// cursor), so 100 endpoints on one collection each were claimed, read and released for every
// event of the other 99 collections.
//
// A hint only says where to look first: the endpoint's own read from its durable cursor decides
// what is sent, and the sender still claims every due endpoint with rows after its cursor every
// WEBHOOK_POLL_MS, so a hint missed (an endpoint registered since the last refresh, an owner
// filter whose holdings changed) delays a delivery by at most the poll interval.
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import type { ServiceDeps } from './deps.js';
import { matchesStreamFilter, type HeldByOwners } from './market-event-filter.js';
import { comparePositions, eventsHeldByOwners, logHeadPosition, readMarketEventsAfter, type LogEvent, type LogPosition } from './market-event-log.js';

/** One stretch of the log as the hints read it: every event in (from, next], unfiltered, with who holds what for owner filters. */
export interface LogStretch {
  from: LogPosition;
  next: LogPosition;
  events: readonly LogEvent[];
  held: HeldByOwners;
}

/** Rows per read; reads go on while the log has more, up to MAX_READS per update. */
const READ_ROWS = 1000;
const MAX_READS = 20;

/** `onStretch` sees every stretch read (the sender hands it to endpoints that are exactly there). */
export function createWebhookHints(deps: Pick<ServiceDeps, 'db'>, refreshMs: number, onStretch?: (stretch: LogStretch) => void) {
  const sql = deps.db.sql;
  let position: LogPosition | null = null;
  let endpoints: { id: string; filter: MarketEventStreamFilter }[] = [];
  let loadedAt = -Infinity;
  const hinted = new Set<string>();

  async function refresh() {
    const rows = await sql.query<{ id: string; filter: MarketEventStreamFilter | string }>(`SELECT id::text AS id, filter FROM webhook_endpoints WHERE status = 'ACTIVE'`);
    endpoints = rows.map((r) => ({ id: r.id, filter: (typeof r.filter === 'string' ? JSON.parse(r.filter) : r.filter) as MarketEventStreamFilter }));
    loadedAt = performance.now();
  }

  return {
    /** Reads what the log gained since the last call and hints the endpoints whose filter selects some of it. */
    async update(): Promise<void> {
      // from now: what was there before is found by the claims without hints
      position ??= await logHeadPosition(sql);
      if (performance.now() - loadedAt >= refreshMs) await refresh();
      for (let i = 0; i < MAX_READS; i++) {
        const from = position;
        const read = await readMarketEventsAfter(sql, position, {}, READ_ROWS, { retractedTypes: true });
        position = read.next;
        const held = new Map<string, Set<string>>();
        if (read.events.length && endpoints.length) {
          const owners = [...new Set(endpoints.map((e) => e.filter.owner).filter((o): o is string => !!o))];
          const pairs = owners.length ? await eventsHeldByOwners(sql, read.events.filter((e) => e.orderHash !== null).map((e) => e.id), owners) : [];
          for (const p of pairs) held.set(p.id, (held.get(p.id) ?? new Set()).add(p.owner));
          for (const ep of endpoints) {
            if (!hinted.has(ep.id) && read.events.some((e) => matchesStreamFilter(ep.filter, e, held))) hinted.add(ep.id);
          }
        }
        if (comparePositions(from, read.next) !== 0) onStretch?.({ from, next: read.next, events: read.events, held });
        if (!read.more) return;
      }
    },
    /** The endpoints hinted so far (they stay hinted until forget()). */
    ids: (): string[] => [...hinted],
    /** An endpoint that may have more to send right away (its claim ended before it caught up). */
    add: (id: string) => void hinted.add(id),
    /** Claimed: its own read takes it from here. */
    forget: (id: string) => void hinted.delete(id),
  };
}

export type WebhookHints = ReturnType<typeof createWebhookHints>;
