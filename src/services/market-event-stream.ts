// The market event log as a resumable stream (docs/activity.md, "Streaming and resuming"): a
// subscriber replays the log after its cursor, then follows it live, with one reader for both, so
// there is no seam where an event could fall between replay and live or arrive twice. The event
// bus only wakes readers ("the log has more"); a timer reads anyway every EVENT_STREAM_POLL_MS,
// so events still arrive while Redis is down and for writes nobody announced (an operator's SQL,
// a batch of transfers). Draining ends every stream; the client resumes elsewhere with its last id.
import { Repeater } from 'graphql-yoga';
import { ServiceError } from '../domain/errors.js';
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import type { MarketEventRow } from './activity.js';
import type { ServiceDeps } from './deps.js';
import { logHeadPosition, positionAfterEvent, readMarketEventsAfter, type LogPosition } from './market-event-log.js';

/** Events per read; a full read is followed by the next at once. */
const READ_BATCH = 100;
/** First delay before reading again while committed events wait for an older transaction. */
const HELD_RETRY_MS = 20;

interface OpenStream {
  wake(): void;
  end(): void;
  ended: Promise<void>;
}

export function createMarketEventStreamService(deps: ServiceDeps) {
  const pollMs = deps.config.eventLog.streamPollMs;
  const streams = new Set<OpenStream>();
  let draining = false;
  let listening = false;

  /** One bus listener per process wakes every open stream; ends with the bus's subscriptions. */
  function listen() {
    if (listening) return;
    listening = true;
    for (const topic of ['market-log', 'order-events', 'sales'] as const) {
      void (async () => {
        for await (const _ of deps.events.subscribe(topic)) for (const s of streams) s.wake();
      })()
        .catch(() => {})
        .finally(() => (listening = false));
    }
  }

  const shuttingDown = () =>
    new ServiceError('SERVICE_UNAVAILABLE', 'This instance is shutting down: subscribe again (another instance answers) with the last event id you received');

  function follow(start: LogPosition, filter: MarketEventStreamFilter): AsyncIterable<MarketEventRow> {
    return new Repeater<MarketEventRow>(async (push, stop) => {
      let position = start;
      let held = 0;
      let woken = false;
      let wakeUp: (() => void) | null = null;
      let stopped = false;
      let endedResolve!: () => void;
      const entry: OpenStream = {
        wake: () => {
          woken = true;
          wakeUp?.();
        },
        end: () => stop(),
        ended: new Promise<void>((r) => (endedResolve = r)),
      };
      streams.add(entry);
      void stop.then(() => {
        stopped = true;
        wakeUp?.();
      });
      try {
        while (!stopped) {
          woken = false;
          const read = await readMarketEventsAfter(deps.db.sql, position, filter, READ_BATCH);
          for (const e of read.events) {
            if (stopped) break;
            const { txId: _txId, ...event } = e;
            await push(event);
          }
          position = read.next;
          if (read.more || woken || stopped) continue;
          // Events already committed behind an older running transaction: look again soon (a
          // wake-up for them has come and gone), backing off towards the poll interval.
          held = read.pending ? Math.min(pollMs, held ? held * 2 : HELD_RETRY_MS) : 0;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, held || pollMs);
            wakeUp = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wakeUp = null;
        }
      } catch (err) {
        // The stream ends; the client resumes with its last id and hears why then (an expired
        // cursor is refused at subscribe time). A database fault is worth a log line.
        if (!(err instanceof ServiceError)) deps.onInternalError?.(err);
        stop();
      } finally {
        streams.delete(entry);
        endedResolve();
      }
    });
  }

  return {
    /**
     * A stream of the events after the event `after` (an id a stream delivered; "0": the whole
     * kept log), or from now on without it. Refuses at once a cursor retention deleted
     * (CURSOR_EXPIRED) or that no event had (INVALID_CURSOR), and every call while draining.
     */
    async open(opts: { after?: string; filter: MarketEventStreamFilter }): Promise<AsyncIterable<MarketEventRow>> {
      if (draining) throw shuttingDown();
      const start = opts.after === undefined ? await logHeadPosition(deps.db.sql) : await positionAfterEvent(deps.db.sql, opts.after);
      if (draining) throw shuttingDown();
      listen();
      return follow(start, opts.filter);
    },
    /** Refuses new streams from now on and ends the open ones; resolves when they have ended (at most `timeoutMs`). */
    async drain(timeoutMs = 1000): Promise<void> {
      draining = true;
      const open = [...streams];
      for (const s of open) s.end();
      await Promise.race([Promise.all(open.map((s) => s.ended)), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    },
    /** streams open now (metrics, tests) */
    openStreams: () => streams.size,
  };
}

export type MarketEventStreamService = ReturnType<typeof createMarketEventStreamService>;
