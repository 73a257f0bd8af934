// The endpoints a running webhook sender keeps leased between events (webhook-worker.ts). Each
// waits, leased, until it is poked (the log gained events for it) or its time is up, and is fed
// the stretches of the log the sender's hints reader reads (webhook-hints.ts), from exactly where
// it stands and matched to its filter in memory: a caught-up endpoint then sends without a read
// of its own. Anywhere else (behind, or more than INBOX_EVENTS events kept) it reads the log.
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import { matchesStreamFilter } from './market-event-filter.js';
import { comparePositions, type LogEvent, type LogPosition } from './market-event-log.js';
import type { LogStretch } from './webhook-hints.js';

/** Events kept for a held endpoint at most: past this it reads them itself. */
const INBOX_EVENTS = 1000;

/** What the endpoint's worker asks of its hold. */
export interface Hold {
  /** waits until the endpoint is poked (true) or the time is up (false) */
  wait(id: string, ms: number): Promise<boolean>;
  /** the endpoint reads on from `position` (stretches of the log that start there are kept for it) */
  at(id: string, position: LogPosition): void;
  /** the events read from `position` on, matched to the endpoint's filter; null: read them */
  take(id: string, position: LogPosition): { events: LogEvent[]; next: LogPosition } | null;
}

interface Held {
  filter: MarketEventStreamFilter;
  poked: boolean;
  /** set while the endpoint waits */
  resolve: ((more: boolean) => void) | null;
  /** where it reads on; `inbox` holds the stretches read since, from exactly there */
  position: LogPosition | null;
  inbox: { events: LogEvent[]; next: LogPosition } | null;
}

/** `mayWait`: whether an endpoint may wait held now (the sender is running and has slots to spare). */
export function createWebhookHolds(mayWait: () => boolean) {
  const held = new Map<string, Held>();

  const hold: Hold = {
    at(id, position) {
      const h = held.get(id);
      if (h && (!h.inbox || comparePositions(h.inbox.next, position) <= 0)) {
        h.position = position;
        h.inbox = null;
      }
    },
    take(id, position) {
      const h = held.get(id);
      const inbox = h?.inbox;
      if (!h || !inbox) return null;
      h.inbox = null;
      // kept from where the endpoint stands: it stands at the inbox's end next, and what the
      // reader reads from there meanwhile is kept for it again
      if (!h.position || comparePositions(h.position, position) !== 0) return null;
      h.position = inbox.next;
      return inbox;
    },
    wait(id, ms) {
      const h = held.get(id);
      if (!h || !mayWait()) return Promise.resolve(false);
      if (h.poked) {
        h.poked = false;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), ms);
        const done = (more: boolean) => {
          clearTimeout(timer);
          h.resolve = null;
          h.poked = false;
          resolve(more);
        };
        h.resolve = done;
      });
    },
  };

  return {
    hold,
    add: (id: string, filter: MarketEventStreamFilter) => void held.set(id, { filter, poked: false, resolve: null, position: null, inbox: null }),
    remove: (id: string) => void held.delete(id),
    has: (id: string) => held.has(id),
    ids: () => [...held.keys()],
    /** The log has events for it: it reads on now, or as soon as it waits. */
    poke(id: string) {
      const h = held.get(id);
      if (h?.resolve) h.resolve(true);
      else if (h) h.poked = true;
    },
    /** Up to `n` waiting endpoints give their slots up (they are released); how many did. */
    yieldSlots(n: number): number {
      let done = 0;
      for (const h of held.values()) {
        if (done >= n) break;
        if (h.resolve) (h.resolve(false), done++);
      }
      return done;
    },
    /** Every waiting endpoint stops waiting (the sender stops or starts afresh). */
    releaseAll() {
      for (const h of held.values()) h.resolve?.(false);
    },
    /** A stretch the hints read: kept, filtered, for each endpoint that stands exactly at its start. */
    feed(stretch: LogStretch) {
      for (const h of held.values()) {
        const expected = h.inbox?.next ?? h.position;
        if (!expected || comparePositions(expected, stretch.from) !== 0) {
          h.inbox = null;
          continue;
        }
        const events = stretch.events.filter((e) => matchesStreamFilter(h.filter, e, stretch.held)).map(({ retractedType: _t, ...e }) => e);
        const inbox = h.inbox ?? { events: [], next: stretch.from };
        inbox.events.push(...events);
        inbox.next = stretch.next;
        h.inbox = inbox.events.length > INBOX_EVENTS ? null : inbox;
        // an endpoint its reader had not reached: from here it reads itself
        if (!h.inbox) h.position = null;
      }
    },
  };
}

export type WebhookHolds = ReturnType<typeof createWebhookHolds>;
