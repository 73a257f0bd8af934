// Subscription.marketEvents on real components: a client that drops mid-stream and reconnects
// with its last id (SSE Last-Event-ID, graphql-ws `after`) receives every event id once, in
// order; the same across a restart (a new app on the same database) and while Redis is down; a
// reorg's retraction reaches the subscriber; bad cursors and filters are typed errors; draining
// ends streams at once and refuses new ones.
import { Wallet } from 'ethers';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { boot } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { normalizeAddress } from '../../src/domain/address.js';
import { retractMarketEventsAboveSql } from '../../src/db/market-events-sql.js';
import { createLogger } from '../../src/logger.js';
import { startEventLogRetention } from '../../src/services/event-log-retention.js';
import { pruneMarketEvents } from '../../src/services/market-event-log.js';
import { untilBelowHorizon } from '../helpers/event-log.js';
import { listen } from '../helpers/listening-app.js';
import { signWithEthers6 } from '../helpers/maker-orders.js';
import { redisServerMissing, startPrivateRedis } from '../helpers/private-redis.js';
import { openSse, type SseStream } from '../helpers/sse-stream.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName, openTestDatabase } from '../helpers/test-database.js';

// as the Address scalar gives them to the filter (EIP-55)
const C1 = normalizeAddress('0x' + 'c1'.repeat(20))!;
const C2 = normalizeAddress('0x' + 'c2'.repeat(20))!;
const A = normalizeAddress('0x' + 'a1'.repeat(20))!;
const B = normalizeAddress('0x' + 'b2'.repeat(20))!;

const STREAM = `subscription($after: ID, $f: MarketEventStreamFilter) {
  marketEvents(after: $after, filter: $f) { eventId type tokenId from to price retractsEventId }
}`;

type Sql = { query<T>(text: string, values?: unknown[]): Promise<T[]> };

/** Writes events as an operator's SQL would: nothing announces them on the bus. */
async function addEvents(sql: Sql, n: number, over: { type?: string; collection?: string; block?: number } = {}): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `INSERT INTO market_events (type, collection_address, token_id, from_address, to_address, price, block_number)
     SELECT $1::"MarketEventType", $2, g, $3, $4, 1000 + g, $5::bigint FROM generate_series(1, $6::int) g ORDER BY g RETURNING id::text`,
    [over.type ?? 'SALE', over.collection ?? C1, A, B, over.block ?? null, n],
  );
  return rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
}

/**
 * The next n events. The wait is long on purpose: on a shared PostgreSQL server a long write
 * transaction in another database holds the visibility horizon, and the stream waits for it.
 */
async function take(s: SseStream, n: number) {
  const got: { id: string | null; eventId: string; type: string; extensionsId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const ev = await s.next(30_000);
    expect(ev.data.errors).toBeUndefined();
    got.push({ id: ev.id, eventId: ev.data.data.marketEvents.eventId, type: ev.data.data.marketEvents.type, extensionsId: ev.data.extensions?.eventId });
  }
  return got;
}

const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close().catch(() => {});
});
async function appWith(env: Record<string, string> = {}) {
  const app = await startTestApp({ EVENT_STREAM_POLL_MS: '50', ...env });
  apps.push(app);
  return app;
}

describe(`marketEvents subscription (${backendName})`, () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await appWith();
  });

  it('replays after a cursor, goes live, and resumes after a dropped connection with Last-Event-ID: every id once, in order', async () => {
    const first = await addEvents(app.db.sql, 3);
    const s1 = await openSse(app.yoga, STREAM, { after: '0' });
    const seen = await take(s1, 2);
    // each event carries its id three ways: SSE id, extensions.eventId, the eventId field
    for (const e of seen) expect([e.id, e.extensionsId]).toEqual([e.eventId, e.eventId]);
    s1.close(); // the connection drops mid-stream
    const meanwhile = await addEvents(app.db.sql, 2);
    // the reconnect sends the last id it saw; the header wins over the `after` still in the request
    const s2 = await openSse(app.yoga, STREAM, { after: '0' }, { 'Last-Event-ID': seen.at(-1)!.id! });
    seen.push(...(await take(s2, 3)));
    const live = await addEvents(app.db.sql, 2);
    seen.push(...(await take(s2, 2)));
    s2.close();
    expect(seen.map((e) => e.eventId)).toEqual([...first, ...meanwhile, ...live]);
  });

  it('without a cursor starts from now; filters on the server', async () => {
    await addEvents(app.db.sql, 2); // before the subscription: not delivered
    const s = await openSse(app.yoga, STREAM, { f: { collection: C2, types: ['TRANSFER'], minPrice: '1002' } });
    await addEvents(app.db.sql, 3, { collection: C1, type: 'TRANSFER' });
    await addEvents(app.db.sql, 3, { collection: C2, type: 'SALE' });
    const wanted = await addEvents(app.db.sql, 3, { collection: C2, type: 'TRANSFER' });
    const got = await take(s, 2);
    s.close();
    // prices 1001, 1002, 1003: the range keeps the last two
    expect(got.map((e) => e.eventId)).toEqual(wanted.slice(1));
  });

  it('delivers a reorg retraction as a RETRACTED event, with the type filter of the event it retracts', async () => {
    const s = await openSse(app.yoga, STREAM, { f: { types: ['SALE'] } });
    const [sale] = await addEvents(app.db.sql, 1, { type: 'SALE', block: 40 });
    await addEvents(app.db.sql, 1, { type: 'MINT', block: 40 });
    expect((await take(s, 1))[0]).toMatchObject({ eventId: sale, type: 'SALE' });
    // the indexer's rollback to block 39 appends a retraction for each event above it
    await app.db.sql.exec(retractMarketEventsAboveSql(39));
    const ev = await s.next();
    s.close();
    expect(ev.data.data.marketEvents).toMatchObject({ type: 'RETRACTED', retractsEventId: sale });
  });

  it('refuses bad cursors and filters with typed errors, and a cursor retention deleted with CURSOR_EXPIRED', async () => {
    const codeOf = async (variables: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const s = await openSse(app.yoga, STREAM, variables, headers);
      const ev = await s.next();
      s.close();
      return ev.data.errors?.[0]?.extensions?.code;
    };
    expect(await codeOf({ after: 'abc' })).toBe('INVALID_CURSOR');
    expect(await codeOf({}, { 'Last-Event-ID': '-1' })).toBe('INVALID_CURSOR');
    expect(await codeOf({ after: '987654321' })).toBe('INVALID_CURSOR');
    expect(await codeOf({ f: { tokenId: '1' } })).toBe('BAD_REQUEST');
    expect(await codeOf({ f: { minPrice: '5', maxPrice: '4' } })).toBe('BAD_REQUEST');
    await untilBelowHorizon(app.db, (await addEvents(app.db.sql, 2))[1]!);
    const [oldest] = await app.db.sql.query<{ id: string }>(`SELECT id::text FROM market_events ORDER BY tx_id, id LIMIT 1`);
    expect(await pruneMarketEvents(app.db.sql, new Date(Date.now() + 86_400_000), 1)).toBe(1);
    expect(await codeOf({ after: oldest!.id })).toBe('CURSOR_EXPIRED');
    expect(await codeOf({ after: '0' })).toBe('CURSOR_EXPIRED');
  });

  it('a graphql-ws client resumes with `after` and gets every id once, in order', async () => {
    const served = await listen(app);
    const client = createClient({ url: served.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    try {
      const start = await addEvents(app.db.sql, 1);
      const run = async (after: string, n: number) => {
        const ids: string[] = [];
        const it = client.iterate<{ marketEvents: { eventId: string } }, { eventId?: string }>({ query: STREAM, variables: { after } });
        for await (const r of it) {
          expect(r.errors).toBeUndefined();
          expect(r.extensions?.eventId).toBe(r.data!.marketEvents.eventId);
          ids.push(r.data!.marketEvents.eventId);
          if (ids.length === n) break;
        }
        return ids;
      };
      const more = await addEvents(app.db.sql, 3);
      const firstPart = await run(start[0]!, 2);
      const later = await addEvents(app.db.sql, 2);
      const secondPart = await run(firstPart.at(-1)!, 3);
      expect([...firstPart, ...secondPart]).toEqual([...more, ...later]);
    } finally {
      await client.dispose();
      await served.close();
    }
  });

  it('over graphql-ws, a drain completes the stream and closes with 1001; the client resumes on another instance with `after`', async () => {
    const testDb = await openTestDatabase();
    const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', EVENT_STREAM_POLL_MS: '50' });
    const logger = createLogger('silent');
    const first = await boot(config, logger, { db: testDb.db, indexer: false, now: () => FIXED_NOW });
    const second = await boot(config, logger, { db: testDb.db, indexer: false, now: () => FIXED_NOW });
    const a = await listen({ ...first, config });
    const b = await listen({ ...second, config });
    try {
      const written = await addEvents(testDb.db.sql, 3);
      const raw = new WebSocket(a.wsUrl, 'graphql-transport-ws');
      const messages: any[] = [];
      raw.on('message', (m) => messages.push(JSON.parse(String(m))));
      const closed = new Promise<number>((resolve) => raw.on('close', (code) => resolve(code)));
      await new Promise((r) => raw.on('open', r));
      raw.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      while (!messages.some((m) => m.type === 'connection_ack')) await new Promise((r) => setTimeout(r, 10));
      raw.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query: STREAM, variables: { after: '0' } } }));
      const nexts = () => messages.filter((m) => m.id === 's' && m.type === 'next');
      const deadline = Date.now() + 10_000;
      while (nexts().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const drained = a.drain(5000);
      await first.endSubscriptions(); // what server.ts does beside the drain
      expect(await closed).toBe(1001);
      await drained;
      expect(messages.filter((m) => m.id === 's').at(-1)).toEqual({ id: 's', type: 'complete' });
      const seen = nexts().map((m) => m.payload.extensions.eventId as string);
      written.push(...(await addEvents(testDb.db.sql, 2)));
      const client = createClient({ url: b.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
      try {
        for await (const r of client.iterate<{ marketEvents: { eventId: string } }>({ query: STREAM, variables: { after: seen.at(-1) } })) {
          seen.push(r.data!.marketEvents.eventId);
          if (seen.length === written.length) break;
        }
      } finally {
        await client.dispose();
      }
      expect(seen).toEqual(written);
    } finally {
      await a.close();
      await b.close();
      await first.close();
      await second.close();
      await testDb.close();
    }
  });

  it('draining ends open streams at once and refuses new ones', async () => {
    const other = await appWith();
    const s = await openSse(other.yoga, STREAM, {});
    await addEvents(other.db.sql, 1);
    await take(s, 1);
    const metrics = async () => (await other.rest('/metrics')).body as string;
    expect(await metrics()).toMatch(/^market_event_streams_open 1$/m);
    const t0 = performance.now();
    await other.endSubscriptions();
    await s.ended(1000);
    expect(performance.now() - t0).toBeLessThan(1000);
    const refused = await openSse(other.yoga, STREAM, {});
    const ev = await refused.next();
    expect(ev.data.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    refused.close();
    expect(await metrics()).toMatch(/^market_event_streams_open 0$/m);
  });
});

describe(`the event log's retention and the bus's wake-up (${backendName})`, () => {
  it('EVENT_LOG_RETENTION_DAYS prunes what is older, oldest first; a cursor into it is CURSOR_EXPIRED, the rest resumes', async () => {
    const app = await appWith({ EVENT_LOG_RETENTION_DAYS: '30' });
    const old = await app.db.sql.query<{ id: string }>(
      `INSERT INTO market_events (type, collection_address, token_id, created_at) SELECT 'MINT', $1, g, '2020-01-01Z' FROM generate_series(1, 3) g RETURNING id::text`,
      [C1],
    );
    const kept = await addEvents(app.db.sql, 2);
    await untilBelowHorizon(app.db, kept[1]!);
    const retention = startEventLogRetention(app.services.deps, createLogger('silent'))!;
    try {
      expect(await retention.runOnce()).toBe(3);
      expect(await retention.runOnce()).toBe(0);
    } finally {
      retention.stop();
    }
    const expired = await openSse(app.yoga, STREAM, { after: old[1]!.id });
    expect((await expired.next()).data.errors[0]).toMatchObject({ extensions: { code: 'CURSOR_EXPIRED' } });
    expired.close();
    const s = await openSse(app.yoga, STREAM, { after: kept[0] });
    expect((await take(s, 1)).map((e) => e.eventId)).toEqual([kept[1]]);
    s.close();
    // without the setting nothing is pruned
    expect(startEventLogRetention({ ...app.services.deps, config: loadConfig({ SEED: '0' }) }, createLogger('silent'))).toBeNull();
  });

  async function postOrder(app: TestApp, nonce: string) {
    const net = app.config.network;
    const now = Math.floor(FIXED_NOW.getTime() / 1000);
    const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const order = await signWithEthers6(wallet, net.chainId, net.exchange, {
      isOrderAsk: true, signer: wallet.address, collection: C1, price: '1000', tokenId: '1', amount: '1', strategy: net.strategies.standardSale[0]!,
      currency: net.weth, nonce, startTime: now - 10, endTime: now + 3600, minPercentageToAsk: 9800, params: [],
    });
    const res = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.hash as string;
  }

  it('an order stored through the API wakes the stream at once, long before the poll', async () => {
    const app = await appWith({ EVENT_STREAM_POLL_MS: '60000' });
    await app.services.collections.upsertCollection({ address: C1, type: 'ERC721' });
    const s = await openSse(app.yoga, STREAM, {});
    await new Promise((r) => setTimeout(r, 200)); // the stream's first read is done: it now waits on the bus or the minute
    await postOrder(app, '7');
    const [ev] = await take(s, 1);
    s.close();
    expect(ev!.type).toBe('LIST');
  });

  it('each event shows its order as it is now, not as an earlier event of the stream loaded it', async () => {
    const app = await appWith();
    await app.services.collections.upsertCollection({ address: C1, type: 'ERC721' });
    // the order's own events: a listing may also move its collection's floor, an event of its own
    const s = await openSse(app.yoga, `subscription { marketEvents(filter: { types: [LIST, CANCEL_LIST] }) { type order { hash status } } }`, {});
    const hash = await postOrder(app, '8');
    expect((await s.next()).data.data.marketEvents).toEqual({ type: 'LIST', order: { hash, status: 'VALID' } });
    await app.db.sql.exec(`BEGIN;
      UPDATE orders SET status = 'CANCELLED' WHERE hash = '${hash}';
      INSERT INTO order_status_changes (order_hash, old_status, new_status, block_number) VALUES ('${hash}', 'VALID', 'CANCELLED', 1);
      COMMIT;`);
    expect((await s.next()).data.data.marketEvents).toEqual({ type: 'CANCEL_LIST', order: { hash, status: 'CANCELLED' } });
    s.close();
  });
});

describe(`marketEvents across a restart (${backendName})`, () => {
  it('a new app on the same database resumes from the last id the client saw', async () => {
    const testDb = await openTestDatabase();
    const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', EVENT_STREAM_POLL_MS: '50' });
    const logger = createLogger('silent');
    try {
      const before = await boot(config, logger, { db: testDb.db, indexer: false, now: () => FIXED_NOW });
      const written = await addEvents(testDb.db.sql, 3);
      const s1 = await openSse(before.yoga, STREAM, { after: '0' });
      const seen = await take(s1, 2);
      await before.endSubscriptions();
      await s1.ended(2000);
      await before.close();
      written.push(...(await addEvents(testDb.db.sql, 2)));
      const after = await boot(config, logger, { db: testDb.db, indexer: false, now: () => FIXED_NOW });
      try {
        const s2 = await openSse(after.yoga, STREAM, {}, { 'Last-Event-ID': seen.at(-1)!.id! });
        seen.push(...(await take(s2, 3)));
        s2.close();
      } finally {
        await after.close();
      }
      expect(seen.map((e) => e.eventId)).toEqual(written);
    } finally {
      await testDb.close();
    }
  });
});

describe.skipIf(redisServerMissing)(`marketEvents while Redis is down (${backendName})${redisServerMissing ? ` (skipped: ${redisServerMissing})` : ''}`, () => {
  it('keeps delivering, and a resumed client still gets every id once', async () => {
    const redis = await startPrivateRedis();
    try {
      const app = await appWith({ REDIS_URL: redis.url, EVENT_STREAM_POLL_MS: '100' });
      const s1 = await openSse(app.yoga, STREAM, {});
      const before = await addEvents(app.db.sql, 2);
      const seen = await take(s1, 1);
      await redis.kill();
      const during = await addEvents(app.db.sql, 2);
      seen.push(...(await take(s1, 2)));
      s1.close();
      const afterDrop = await addEvents(app.db.sql, 1);
      const s2 = await openSse(app.yoga, STREAM, {}, { 'Last-Event-ID': seen.at(-1)!.id! });
      seen.push(...(await take(s2, 2)));
      s2.close();
      expect(seen.map((e) => e.eventId)).toEqual([...before, ...during, ...afterDrop]);
    } finally {
      await redis.stop();
    }
  });
});
