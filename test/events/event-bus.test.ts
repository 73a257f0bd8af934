// The event bus across instances through a private Redis, and through a Redis outage:
// no crash (vitest fails a file on any unhandled rejection), local delivery with a logged
// warning while Redis is gone, cross-instance delivery again once it is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventBus, type EventBus, type OrderEvent } from '../../src/events/event-bus.js';
import { redisServerMissing, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';

const event = (hash: string): OrderEvent => ({
  kind: 'CREATED', hash, collection: '0x' + 'c4'.repeat(20), signer: '0x' + '11'.repeat(20), isOrderAsk: true,
  oldStatus: null, newStatus: 'VALID', at: '2026-06-01T12:00:00.000Z', blockNumber: null,
});

/** Collects everything a subscription yields, in the background. */
function collect(bus: EventBus) {
  const seen: OrderEvent[] = [];
  const it = bus.subscribe('order-events')[Symbol.asyncIterator]();
  void (async () => {
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      seen.push(r.value);
    }
  })();
  return { seen, stop: () => it.return?.() };
}

async function until(cond: () => boolean, ms = 10_000, what = 'condition') {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(redisServerMissing)(`event bus through Redis ${redisServerMissing ? `(skipped: ${redisServerMissing})` : ''}`, () => {
  let redis: PrivateRedis;
  const warnings: string[] = [];
  const infos: string[] = [];
  const logger = { warn: (_: object, m?: string) => warnings.push(m ?? ''), info: (_: object, m?: string) => infos.push(m ?? '') };
  let a: EventBus;
  let b: EventBus;
  const prefix = `t${process.pid}`;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    a = createEventBus({ redisUrl: redis.url, channelPrefix: prefix, logger });
    b = createEventBus({ redisUrl: redis.url, channelPrefix: prefix, logger });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('delivers across instances, degrades to the local instance while Redis is down, and recovers', async () => {
    const onA = collect(a);
    const onB = collect(b);
    await until(() => a.delivery() === 'redis' && b.delivery() === 'redis', 10_000, 'Redis connections');
    await new Promise((r) => setTimeout(r, 100)); // SUBSCRIBE reaches the server

    a.publishOrderEvent(event('0x01'));
    await until(() => onA.seen.length === 1 && onB.seen.length === 1, 5000, 'first event on both instances');

    await redis.kill();
    await until(() => a.delivery() === 'local' && b.delivery() === 'local', 10_000, 'the outage to be noticed');
    // An order and a new subscription during the outage: this crashed the process before.
    const lateOnB = collect(b);
    for (let i = 0; i < 5; i++) a.publishOrderEvent(event(`0x1${i}`));
    b.publishOrderEvent(event('0x20'));
    await new Promise((r) => setTimeout(r, 1500)); // ioredis retries and gives up on queued commands
    expect(onA.seen.map((e) => e.hash)).toEqual(['0x01', '0x10', '0x11', '0x12', '0x13', '0x14']);
    expect(onB.seen.map((e) => e.hash)).toEqual(['0x01', '0x20']);
    expect(lateOnB.seen.map((e) => e.hash)).toEqual(['0x20']);
    expect(warnings.some((w) => /Redis unreachable/.test(w))).toBe(true);

    await redis.start();
    await until(() => a.delivery() === 'redis' && b.delivery() === 'redis', 20_000, 'reconnection');
    await new Promise((r) => setTimeout(r, 200)); // re-SUBSCRIBE reaches the server
    a.publishOrderEvent(event('0x30'));
    await until(() => lateOnB.seen.length === 2, 5000, 'an event through Redis after recovery');
    await new Promise((r) => setTimeout(r, 100));
    expect(onA.seen.at(-1)!.hash).toBe('0x30');
    expect(onB.seen.map((e) => e.hash)).toEqual(['0x01', '0x20', '0x30']); // once each, never twice
    expect(lateOnB.seen.map((e) => e.hash)).toEqual(['0x20', '0x30']);
    expect(infos.some((m) => /reachable again/.test(m))).toBe(true);
    onA.stop();
    onB.stop();
    lateOnB.stop();
  });
});
