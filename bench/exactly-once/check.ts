// The verdict per client: the ids it received must equal, one for one and in order, the ids of
// the log its filter selects, read back with the service's own reader (readMarketEventsAfter:
// the stream's reading order and its filter, the same function the stream runs).
import { parseMarketEventStreamFilter, type MarketEventStreamArgs } from '../../src/domain/market-event-stream.js';
import { LOG_START, readMarketEventsAfter, type LogEvent, type SqlQueryable } from '../../src/services/market-event-log.js';

/** Every event of the log `filter` selects, in reading order. */
export async function readWholeLog(sql: SqlQueryable, filter: MarketEventStreamArgs): Promise<LogEvent[]> {
  const f = parseMarketEventStreamFilter(filter);
  const out: LogEvent[] = [];
  let position = LOG_START;
  for (;;) {
    const read = await readMarketEventsAfter(sql, position, f, 1000);
    out.push(...read.events);
    position = read.next;
    if (read.more) continue;
    if (!read.pending) return out;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Verdict {
  expected: number;
  received: number;
  /** receipts beyond the first of an id */
  duplicates: number;
  /** ids of the log the client never received */
  missing: number;
  /** ids received that the filter does not select (or that are not in the log) */
  foreign: number;
  /** first position where the received sequence differs from the log's, or -1 */
  firstDifference: number;
  /** received ids (first receipts) that came after an id the log has later */
  outOfOrder: number;
  exact: boolean;
}

export function compareDelivery(expected: readonly string[], received: readonly string[]): Verdict {
  const want = new Set(expected);
  const seen = new Map<string, number>();
  for (const id of received) seen.set(id, (seen.get(id) ?? 0) + 1);
  let duplicates = 0;
  for (const n of seen.values()) duplicates += n - 1;
  const missing = expected.filter((id) => !seen.has(id)).length;
  const foreign = [...seen.keys()].filter((id) => !want.has(id)).length;
  let firstDifference = -1;
  for (let i = 0; i < Math.max(expected.length, received.length); i++) {
    if (expected[i] !== received[i]) {
      firstDifference = i;
      break;
    }
  }
  // order: the log positions of first receipts must ascend
  const rank = new Map(expected.map((id, i) => [id, i]));
  let outOfOrder = 0;
  let high = -1;
  const firsts = new Set<string>();
  for (const id of received) {
    if (firsts.has(id) || !rank.has(id)) continue;
    firsts.add(id);
    const r = rank.get(id)!;
    if (r < high) outOfOrder++;
    else high = r;
  }
  return { expected: expected.length, received: received.length, duplicates, missing, foreign, firstDifference, outOfOrder, exact: firstDifference === -1 };
}
