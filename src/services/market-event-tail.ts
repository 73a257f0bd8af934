// One reader of the market event log's tail per instance (docs/activity.md, "Streaming and
// resuming"): it reads each new stretch of the log once, unfiltered, and hands it to every open
// stream that has caught up, each applying its own filter in memory. Without it every stream read
// the log itself on each wake-up, so 1,000 subscribers cost 1,000 statements per event; with it
// they cost one read, plus one owner lookup when some stream filters by owner.
//
// The tail is a position T in reading order. A stream at position P may attach when P >= T: the
// tail's next stretch starts after T, and the stream drops what it holds at or before P, so there
// is no gap and no duplicate at the seam. A stream behind the tail reads on its own, bounded by T
// (readMarketEventsAfter's `through`), until it is there. Hand-overs happen between two
// statements in one event-loop turn, so T cannot move between the check and the attach.
//
// A stream that does not keep up (its queue over QUEUE_LIMIT) is detached and goes on reading on
// its own from where its queue ends: a slow client costs its own reads, never the others' memory
// or latency. When no stream is attached the tail forgets T, and the next stream to attach sets it.
import { ServiceError } from '../domain/errors.js';
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import type { MarketEventRow } from './activity.js';
import type { ServiceDeps } from './deps.js';
import { matchesStreamFilter, type HeldByOwners } from './market-event-filter.js';
import { comparePositions, eventsHeldByOwners, readMarketEventsAfter, type LogEvent, type LogPosition } from './market-event-log.js';

/** Rows per tail read (unfiltered); a full read is followed by the next at once. */
const TAIL_BATCH = 500;
/** Events a stream may hold undelivered before it is detached and reads on its own. */
export const QUEUE_LIMIT = 1000;
/** First delay before reading again while committed events wait for an older transaction. */
const HELD_RETRY_MS = 20;

/** A stream as the tail sees it. */
export interface TailMember {
  filter: MarketEventStreamFilter;
  /** everything up to here (reading order) is in `queue` or already delivered */
  position: LogPosition;
  queue: MarketEventRow[];
  /** told when the queue grew, the member was detached, or the tail failed */
  notify(): void;
  /** set by the tail when it stops serving the member: read on your own from `position` */
  attached: boolean;
  /** set when the tail could not read: the stream ends */
  failed?: unknown;
}

export interface TailStats {
  /** streams the tail serves now */
  attached: number;
  /** tail reads so far (one statement each, plus an owner lookup when needed) */
  reads: number;
  /** hand-overs from a stream's own reads to the tail */
  attaches: number;
  /** streams detached for not keeping up */
  detached: number;
}

const positionOf = (e: LogEvent): LogPosition => ({ txId: e.txId, id: e.id });

export function createMarketEventTail(deps: Pick<ServiceDeps, 'db' | 'config' | 'onInternalError'>) {
  const pollMs = deps.config.eventLog.streamPollMs;
  const members = new Set<TailMember>();
  let position: LogPosition | null = null;
  /** bumped whenever T is forgotten, so a read in flight from the old T is discarded */
  let epoch = 0;
  let woken = false;
  let wakeUp: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let closed = false;
  const stats: TailStats = { attached: 0, reads: 0, attaches: 0, detached: 0 };

  function wake() {
    woken = true;
    wakeUp?.();
  }

  function detach(m: TailMember) {
    if (!members.delete(m)) return;
    m.attached = false;
    if (members.size === 0) {
      position = null;
      epoch++;
    }
  }

  /** Which owners' filters select which of these events: one statement for every owner stream. */
  async function heldBy(events: LogEvent[]): Promise<Map<string, Set<string>>> {
    const held = new Map<string, Set<string>>();
    const ids = events.filter((e) => e.orderHash !== null).map((e) => e.id);
    const asked = new Set<string>();
    // streams that attach while the lookup runs get the same events: look their owners up too
    for (;;) {
      const owners = [...new Set([...members].map((m) => m.filter.owner).filter((o): o is string => !!o && !asked.has(o)))];
      if (!owners.length || !ids.length) return held;
      for (const o of owners) asked.add(o);
      for (const r of await eventsHeldByOwners(deps.db.sql, ids, owners)) {
        let set = held.get(r.id);
        if (!set) held.set(r.id, (set = new Set()));
        set.add(r.owner);
      }
    }
  }

  function deliver(from: LogPosition, events: LogEvent[], next: LogPosition, held: HeldByOwners) {
    // one payload object per event, shared by every stream that takes it (never mutated)
    const payloads = events.map(({ txId: _txId, retractedType: _retracted, ...event }): MarketEventRow => event);
    for (const m of [...members]) {
      let grew = false;
      // a stream that attached ahead of the read's start drops what it already has
      const ahead = comparePositions(m.position, from) > 0;
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        if ((ahead && comparePositions(positionOf(e), m.position) <= 0) || !matchesStreamFilter(m.filter, e, held)) continue;
        m.queue.push(payloads[i]!);
        grew = true;
      }
      if (comparePositions(next, m.position) > 0) m.position = next;
      if (m.queue.length > QUEUE_LIMIT) {
        detach(m);
        stats.detached++;
        m.notify();
      } else if (grew) m.notify();
    }
  }

  async function run() {
    let held = 0;
    while (!closed) {
      if (position === null) {
        // nobody attached: wait for a stream to set T
        await new Promise<void>((resolve) => (wakeUp = resolve));
        wakeUp = null;
        continue;
      }
      woken = false;
      const from = position;
      const at = epoch;
      let read;
      let owners: HeldByOwners;
      try {
        read = await readMarketEventsAfter(deps.db.sql, from, {}, TAIL_BATCH, { retractedTypes: true });
        stats.reads++;
        owners = await heldBy(read.events);
      } catch (err) {
        // the streams end; their clients resume with their last ids (a fault is worth a log line)
        if (!(err instanceof ServiceError)) deps.onInternalError?.(err);
        if (at === epoch) {
          for (const m of [...members]) {
            m.failed = err;
            detach(m);
            m.notify();
          }
        }
        await new Promise((r) => setTimeout(r, HELD_RETRY_MS));
        continue;
      }
      if (at !== epoch) continue;
      position = read.next;
      deliver(from, read.events, read.next, owners);
      if (read.more || woken) continue;
      if (position === null) continue;
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
  }

  return {
    /** The tail's position, or null when no stream is attached (the next one sets it). */
    position: (): LogPosition | null => position,
    /**
     * Attaches a stream at its position; false when it is behind the tail (it reads on its own,
     * through position(), and tries again). Call in the same turn as reading position().
     */
    attach(m: TailMember): boolean {
      if (closed) return false;
      if (position !== null && comparePositions(m.position, position) < 0) return false;
      if (position === null) {
        position = m.position;
        epoch++;
      }
      members.add(m);
      m.attached = true;
      stats.attaches++;
      loop ??= run();
      wake();
      return true;
    },
    detach,
    /** The log has grown (the event bus said so): read now. */
    wake,
    stats: (): TailStats => ({ ...stats, attached: members.size }),
    /** Stops reading (drain); attached streams are ended by their owner. */
    async close() {
      closed = true;
      for (const m of [...members]) detach(m);
      wakeUp?.();
      await loop;
    },
  };
}

export type MarketEventTail = ReturnType<typeof createMarketEventTail>;
