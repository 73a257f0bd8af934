// When a failed attempt is tried again: a webhook endpoint's next delivery, a token's next
// metadata read. One schedule for both, so their backoff and jitter cannot drift apart.
export interface RetrySchedule {
  firstMs: number;
  maxMs: number;
  /** failures after which the caller gives up (an endpoint is DISABLED, a token waits for its recheck) */
  disableAfterFailures: number;
}

/**
 * The wait after the `failures`-th consecutive failure: firstMs doubling up to maxMs, spread
 * evenly over 75-125 % of that (so what failed together does not retry together, and a
 * webhook endpoint's whole schedule stays about a day on average). `random` is in [0, 1).
 */
export function retryDelayMs(failures: number, s: RetrySchedule, random: number): number {
  const base = Math.min(s.maxMs, s.firstMs * 2 ** Math.min(Math.max(0, failures - 1), 40));
  return Math.round(base * (0.75 + 0.5 * random));
}
