// The one rule for "now": the later of the wall clock and the timestamp of the
// latest block the indexer has committed. The chain decides expiry by block time; a server clock
// behind the chain (or a test chain moved forward) must never show an order fillable after the
// chain would refuse it. Used for EXPIRED, startTime, floors and the submission checks.
//
// Reading it costs nothing per request: the block time is cached in memory. The instance that
// runs the indexer pushes each batch's block time in (observeBlockTime); every instance also
// refreshes it from indexer_cursor in the background at most every `refreshMs`, so instances
// that do not hold the indexer lease lag the chain by at most that long.
export interface MarketClock {
  /** the market clock now */
  now(): Date;
  /** the latest block timestamp known (unix seconds), or null before any */
  latestBlockSeconds(): number | null;
  /** tells the clock about a committed block */
  observeBlockTime(unixSeconds: number): void;
  /** reads the latest block time from the database now */
  refresh(): Promise<void>;
}

export interface MarketClockOptions {
  wall: () => Date;
  /** the latest committed block's timestamp (unix seconds), null when none */
  readLatestBlockSeconds?: () => Promise<number | null>;
  refreshMs?: number;
  onError?: (err: unknown) => void;
}

export function createMarketClock(opts: MarketClockOptions): MarketClock {
  const refreshMs = opts.refreshMs ?? 1000;
  let block: number | null = null;
  let readAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | null = null;

  function observeBlockTime(s: number) {
    if (Number.isFinite(s) && (block === null || s > block)) block = s;
  }

  function refresh(): Promise<void> {
    if (!opts.readLatestBlockSeconds) return Promise.resolve();
    if (inFlight) return inFlight;
    readAt = performance.now();
    inFlight = opts
      .readLatestBlockSeconds()
      .then((s) => {
        if (s !== null) observeBlockTime(s);
      })
      .catch((err) => opts.onError?.(err))
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  return {
    now() {
      if (opts.readLatestBlockSeconds && performance.now() - readAt >= refreshMs) void refresh();
      const wall = opts.wall();
      return block !== null && block * 1000 > wall.getTime() ? new Date(block * 1000) : wall;
    },
    latestBlockSeconds: () => block,
    observeBlockTime,
    refresh,
  };
}

/** The indexer's committed block time, for readLatestBlockSeconds. */
export const LATEST_BLOCK_SECONDS_SQL = 'SELECT MAX(block_timestamp)::text AS s FROM indexer_cursor';
