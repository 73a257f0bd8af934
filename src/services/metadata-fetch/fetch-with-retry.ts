// Retries for fetch outcomes: only those marked retryable, exponential backoff with full jitter
// (a random wait between 0 and the doubling ceiling, so callers that failed together spread out:
// https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/), never sooner than a
// server's Retry-After.
import type { FetchOutcome } from './fetch-outcome.js';

export interface RetryOptions {
  /** tries in all, the first included */
  attempts: number;
  baseDelayMs: number;
  /** ceiling of one wait; a Retry-After longer than this is handed back instead of waited for */
  maxDelayMs: number;
  /** in [0, 1); default Math.random */
  random?: () => number;
}

export async function withRetries(fn: (attempt: number) => Promise<FetchOutcome>, opts: RetryOptions): Promise<FetchOutcome> {
  const random = opts.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    const outcome = await fn(attempt);
    if (outcome.ok || !outcome.retryable || attempt >= opts.attempts) return outcome;
    // a server asking for minutes: give its answer (with retryAfterMs) back to whoever schedules
    // the work, rather than hold this fetch open that long
    if ((outcome.retryAfterMs ?? 0) > opts.maxDelayMs) return outcome;
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt, outcome.retryAfterMs, opts, random())));
  }
}

/** The wait after the `failures`-th failure; `random` is in [0, 1). */
export function retryDelayMs(failures: number, retryAfterMs: number | undefined, opts: RetryOptions, random: number): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.min(failures - 1, 30));
  return Math.max(Math.floor(random * ceiling), retryAfterMs ?? 0);
}
