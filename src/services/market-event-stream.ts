// The market event log as a resumable stream (docs/activity.md, "Streaming and resuming"): a
// subscriber replays the log after its cursor with reads of its own, then joins the instance's
// shared tail reader (market-event-tail.ts), which reads each new stretch of the log once for
// every stream that has caught up. The hand-over is exact (no gap, no duplicate at the seam), and
// a stream that falls behind the tail goes back to reading on its own. The event bus only wakes
// the tail ("the log has more"); it reads anyway every EVENT_STREAM_POLL_MS, so events still
// arrive while Redis is down and for writes nobody announced (an operator's SQL, a batch of
// transfers). Draining ends every stream; the client resumes elsewhere with its last id.
import { Repeater } from 'graphql-yoga';
import { ServiceError } from '../domain/errors.js';
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import type { MarketEventRow } from './activity.js';
import type { ServiceDeps } from './deps.js';
import { comparePositions, logHeadPosition, positionAfterEvent, readMarketEventsAfter, type LogPosition } from './market-event-log.js';
import { createMarketEventTail, type TailMember } from './market-event-tail.js';

/** Events per read of a stream catching up; a full read is followed by the next at once. */
const READ_BATCH = 100;

interface OpenStream {
  end(): void;
  ended: Promise<void>;
}

export function createMarketEventStreamService(deps: ServiceDeps) {
  const streams = new Set<OpenStream>();
  const tail = createMarketEventTail(deps);
  let draining = false;
  let listening = false;

  /** One bus listener per process wakes the tail; ends with the bus's subscriptions. */
  function listen() {
    if (listening) return;
    listening = true;
    for (const topic of ['market-log', 'order-events', 'sales'] as const) {
      void (async () => {
        for await (const _ of deps.events.subscribe(topic)) tail.wake();
      })()
        .catch(() => {})
        .finally(() => (listening = false));
    }
  }

  const shuttingDown = () =>
    new ServiceError('SERVICE_UNAVAILABLE', 'This instance is shutting down: subscribe again (another instance answers) with the last event id you received');

  function follow(start: LogPosition, filter: MarketEventStreamFilter): AsyncIterable<MarketEventRow> {
    return new Repeater<MarketEventRow>(async (push, stop) => {
      let stopped = false;
      let signal: (() => void) | null = null;
      const member: TailMember = {
        filter,
        position: start,
        queue: [],
        attached: false,
        notify: () => signal?.(),
      };
      let endedResolve!: () => void;
      const entry: OpenStream = { end: () => stop(), ended: new Promise<void>((r) => (endedResolve = r)) };
      streams.add(entry);
      void stop.then(() => {
        stopped = true;
        signal?.();
      });
      try {
        while (!stopped) {
          // what the tail handed over first, in order
          while (member.queue.length && !stopped) await push(member.queue.shift()!);
          if (stopped) break;
          if (member.failed) throw member.failed;
          if (member.attached) {
            await new Promise<void>((resolve) => {
              signal = resolve;
              if (member.queue.length || !member.attached || member.failed) resolve();
            });
            signal = null;
            continue;
          }
          // behind the tail (or detached from it): read on our own up to where the tail is, then attach
          const through = tail.position();
          if (tail.attach(member)) continue;
          if (through === null) break; // the tail is closed: this instance is draining
          const read = await readMarketEventsAfter(deps.db.sql, member.position, filter, READ_BATCH, { through });
          for (const e of read.events) {
            if (stopped) break;
            const { txId: _txId, ...event } = e;
            await push(event);
            member.position = { txId: e.txId, id: e.id };
          }
          if (!stopped && comparePositions(read.next, member.position) > 0) member.position = read.next;
        }
      } catch (err) {
        // The stream ends; the client resumes with its last id and hears why then (an expired
        // cursor is refused at subscribe time). A database fault is worth a log line.
        if (!(err instanceof ServiceError) && !member.failed) deps.onInternalError?.(err);
        stop();
      } finally {
        tail.detach(member);
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
      void tail.close();
      await Promise.race([Promise.all(open.map((s) => s.ended)), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    },
    /** streams open now (metrics, tests) */
    openStreams: () => streams.size,
    /** the shared tail reader: streams it serves, reads, hand-overs (tests, benches) */
    tailStats: () => tail.stats(),
  };
}

export type MarketEventStreamService = ReturnType<typeof createMarketEventStreamService>;
