// Retention of the market event log (EVENT_LOG_RETENTION_DAYS; 0, the default, keeps it whole:
// activity pages and histories read it). Every few minutes each instance deletes what is older
// than the window, oldest first, in small batches (one short statement each) so neither writers
// nor readers wait on a long delete. Instances may overlap: a batch deletes only rows still there.
import type { ServiceDeps } from './deps.js';
import { pruneMarketEvents } from './market-event-log.js';

const EVERY_MS = 5 * 60_000;
const BATCH_ROWS = 1000;
/** at most this many batches per run; the next run goes on */
const BATCHES_PER_RUN = 50;

export interface EventLogRetention {
  /** one pass: deletes up to BATCHES_PER_RUN batches of expired events; returns how many rows */
  runOnce(): Promise<number>;
  stop(): void;
}

export function startEventLogRetention(deps: ServiceDeps, log: { info(o: object, m: string): void; warn(o: object, m: string): void }): EventLogRetention | null {
  const days = deps.config.eventLog.retentionDays;
  if (days <= 0) return null;
  let running: Promise<number> | null = null;
  const runOnce = () =>
    (running ??= (async () => {
      const olderThan = new Date(deps.now().getTime() - days * 86_400_000);
      let total = 0;
      for (let i = 0; i < BATCHES_PER_RUN; i++) {
        const n = await pruneMarketEvents(deps.db.sql, olderThan, BATCH_ROWS);
        total += n;
        if (n < BATCH_ROWS) break;
      }
      if (total) log.info({ deleted: total, olderThan: olderThan.toISOString() }, 'pruned the market event log');
      return total;
    })().finally(() => (running = null)));
  const tick = () => void runOnce().catch((err) => log.warn({ err }, 'pruning the market event log failed; retrying at the next run'));
  const first = setTimeout(tick, 10_000).unref();
  const timer = setInterval(tick, EVERY_MS).unref();
  return {
    runOnce,
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
