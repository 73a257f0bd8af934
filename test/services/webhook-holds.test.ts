// The held endpoints of a running webhook sender: fed the stretches of the log its reader reads
// only from exactly where each stands (never across a gap, never twice), matched to its filter,
// and woken by a poke whether it was waiting or not.
import { describe, expect, it } from 'vitest';
import type { LogEvent, LogPosition } from '../../src/services/market-event-log.js';
import { createWebhookHolds } from '../../src/services/webhook-holds.js';

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const at = (id: number): LogPosition => ({ txId: '700', id: String(id) });
const event = (id: number, collectionAddress: string, type = 'LIST') =>
  ({ id: String(id), txId: '700', type, collectionAddress, tokenId: '1', fromAddress: null, toAddress: null, price: '5', retractedType: null }) as unknown as LogEvent;
const stretch = (from: number, next: number, events: LogEvent[]) => ({ from: at(from), next: at(next), events, held: new Map() });

describe('webhook holds', () => {
  it('keeps the stretches that start where an endpoint stands, filtered, and hands them over once', () => {
    const holds = createWebhookHolds(() => true);
    holds.add('1', { collection: A });
    holds.hold.at('1', at(10));
    holds.feed(stretch(10, 12, [event(11, A), event(12, B)]));
    holds.feed(stretch(12, 14, [event(13, A), event(14, A, 'SALE')]));
    const kept = holds.hold.take('1', at(10));
    expect(kept?.events.map((e) => e.id)).toEqual(['11', '13', '14']);
    expect(kept?.next).toEqual(at(14));
    expect('retractedType' in kept!.events[0]!).toBe(false);
    // taken once; the next stretch starts where the endpoint now stands
    expect(holds.hold.take('1', at(14))).toBeNull();
    holds.feed(stretch(14, 15, [event(15, A)]));
    expect(holds.hold.take('1', at(14))?.events.map((e) => e.id)).toEqual(['15']);
  });

  it('keeps nothing across a gap, nor for an endpoint that reads from elsewhere', () => {
    const holds = createWebhookHolds(() => true);
    holds.add('1', {});
    holds.hold.at('1', at(10));
    holds.feed(stretch(11, 12, [event(12, A)])); // 10 < 11: rows between were not in any stretch
    expect(holds.hold.take('1', at(10))).toBeNull();
    holds.hold.at('1', at(20));
    holds.feed(stretch(20, 21, [event(21, A)]));
    expect(holds.hold.take('1', at(19))).toBeNull(); // the endpoint is not where the inbox starts
  });

  it('wakes a waiting endpoint with a poke, remembers one that came before the wait, and times out', async () => {
    let room = true;
    const holds = createWebhookHolds(() => room);
    holds.add('1', {});
    const waiting = holds.hold.wait('1', 5_000);
    holds.poke('1');
    expect(await waiting).toBe(true);
    holds.poke('1');
    expect(await holds.hold.wait('1', 5_000)).toBe(true);
    expect(await holds.hold.wait('1', 10)).toBe(false);
    const yielding = holds.hold.wait('1', 5_000);
    expect(holds.yieldSlots(3)).toBe(1);
    expect(await yielding).toBe(false);
    room = false;
    expect(await holds.hold.wait('1', 5_000)).toBe(false);
  });
});
