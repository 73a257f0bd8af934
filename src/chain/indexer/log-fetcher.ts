// eth_getLogs against real providers, which cap the block range or the number of results of one
// call (Alchemy, Infura, QuickNode, geth's --rpc.getlogs limits) and fail transiently. A range a
// provider refuses as too large is split in halves until it fits; other errors are retried with
// exponential backoff, and a range that keeps failing is split too (some providers answer a heavy
// query with a generic error). A range is never skipped: a single block that still fails after
// every retry fails the batch, and the indexer retries the whole batch later.
// The largest span that worked is remembered, so the next batches start from it instead of
// being refused again; it grows back slowly in case the refusal was about one busy range.
import { toQuantity } from 'ethers';

export interface LogsProvider {
  send(method: string, params: unknown[]): Promise<unknown>;
}

export interface LogQuery {
  address: string | string[];
  topics: (string | string[] | null)[];
}

export interface LogFetcherOptions {
  /** retries of one range on an error that is not "too large" before it is split (or fails) */
  retries?: number;
  /** first backoff; doubles per retry */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** blocks per call to start with (default: no limit until a provider refuses) */
  initialSpan?: number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (info: { from: number; to: number; attempt: number; err: unknown }) => void;
}

/** Messages providers use to refuse a range or a result set as too large. */
const TOO_LARGE =
  /block range|range (is )?too (large|wide|big)|too many (results|logs|blocks)|more than \d+ (results|logs)|limit(ed)? (exceeded|to)|exceeds? (the )?(max|maximum|limit)|response size|query timeout|returned more than/i;

function messagesOf(err: unknown, depth = 0): string[] {
  if (!err || typeof err !== 'object' || depth > 4) return typeof err === 'string' ? [err] : [];
  const e = err as { message?: unknown; shortMessage?: unknown; error?: unknown; info?: unknown; body?: unknown };
  const out: string[] = [];
  for (const m of [e.message, e.shortMessage, e.body]) if (typeof m === 'string') out.push(m);
  for (const inner of [e.error, e.info]) out.push(...messagesOf(inner, depth + 1));
  return out;
}

export function isRangeTooLarge(err: unknown): boolean {
  const code = (err as { error?: { code?: unknown }; code?: unknown } | null)?.error?.code ?? (err as { code?: unknown } | null)?.code;
  // -32005: "limit exceeded" (EIP-1474), what Infura answers for more than 10,000 results
  if (code === -32005) return true;
  return messagesOf(err).some((m) => TOO_LARGE.test(m));
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createLogFetcher(provider: LogsProvider, options: LogFetcherOptions = {}) {
  const retries = options.retries ?? 4;
  const base = options.baseDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 8_000;
  const sleep = options.sleep ?? defaultSleep;
  let span = options.initialSpan ?? Number.POSITIVE_INFINITY;
  let calls = 0;
  let splits = 0;

  async function once(q: LogQuery, from: number, to: number): Promise<Record<string, unknown>[]> {
    calls++;
    const logs = await provider.send('eth_getLogs', [{ fromBlock: toQuantity(from), toBlock: toQuantity(to), address: q.address, topics: q.topics }]);
    if (!Array.isArray(logs)) throw new Error('eth_getLogs did not answer a list');
    return logs as Record<string, unknown>[];
  }

  /** Every log of `q` in blocks from..to, in block order (the order of the ranges asked). */
  async function getLogs(q: LogQuery, from: number, to: number): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    // Ranges still to fetch, next one last; each is fetched whole or split into halves.
    const pending: [number, number][] = [];
    for (let end = to; end >= from; ) {
      const start = Number.isFinite(span) ? Math.max(from, end - span + 1) : from;
      pending.push([start, end]);
      end = start - 1;
    }
    while (pending.length) {
      const [a, b] = pending.pop()!;
      let attempt = 0;
      for (;;) {
        try {
          out.push(...(await once(q, a, b)));
          // a span that worked may be a bit too cautious: let it grow back by a quarter
          if (Number.isFinite(span) && b - a + 1 >= span) span = Math.ceil(span * 1.25);
          break;
        } catch (err) {
          const tooLarge = isRangeTooLarge(err);
          if (!tooLarge && attempt < retries) {
            options.onRetry?.({ from: a, to: b, attempt: attempt + 1, err });
            await sleep(Math.min(maxDelay, base * 2 ** attempt));
            attempt++;
            continue;
          }
          if (b > a) {
            const mid = a + Math.floor((b - a) / 2);
            splits++;
            span = Math.min(span, mid - a + 1);
            pending.push([mid + 1, b], [a, mid]);
            break;
          }
          throw err;
        }
      }
    }
    return out;
  }

  return {
    getLogs,
    /** the block span the next call starts from (Infinity until a provider refused one) */
    currentSpan: () => span,
    stats: () => ({ calls, splits }),
  };
}

export type LogFetcher = ReturnType<typeof createLogFetcher>;
