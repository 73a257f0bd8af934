// Keeps the ranking keys (migration 20261206090000_kept_ranking_keys) close to the clock: each
// collection's floor with the interval it holds over, and the window volumes at an anchor instant.
// Readers never depend on this running (./ranking-keys.ts computes what is not kept), only their
// cost does: a ranking by floor probes the order book for the collections whose kept floor is
// unknown or has passed its interval, and one by volume reads the sales since the anchor.
import type { ServiceDeps } from './deps.js';

export interface KeptRankingKeys {
  /** Refreshes at the service's clock; false when a writer held the lock (nothing was done). */
  refresh(): Promise<boolean>;
}

export function createKeptRankingKeys(deps: ServiceDeps): KeptRankingKeys {
  return {
    async refresh() {
      const now = deps.now();
      // the primary (deps.db), not a read replica: this writes
      const [row] = await deps.db.sql.query<{ done: boolean }>(`SELECT refresh_ranking_keys($1::bigint, $2::timestamptz, $3::text[]) AS done`, [
        Math.floor(now.getTime() / 1000),
        now.toISOString(),
        deps.network.strategies.standardSale,
      ]);
      return row?.done === true;
    },
  };
}

/** Runs the refresh every `everyMs`, and once at once; one run at a time. `stop` waits for a run in flight. */
export function startKeptRankingKeys(keys: KeptRankingKeys, everyMs: number, log: { warn(o: object, m: string): void }): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const tick = () => {
    running ??= keys
      .refresh()
      .catch((err) => log.warn({ err }, 'refreshing the kept ranking keys failed; retrying at the next run'))
      .finally(() => (running = null));
  };
  const first = setTimeout(tick, 0).unref();
  const timer = setInterval(tick, everyMs).unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
