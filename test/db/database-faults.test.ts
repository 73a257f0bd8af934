// A PostgreSQL that hangs or refuses connections: requests answer 503 + Retry-After
// (REST) or SERVICE_UNAVAILABLE (GraphQL) within a few seconds instead of hanging or answering
// 500, /readyz turns false just as fast without naming host or port, and everything recovers by
// itself. The shared server is never touched: a TCP proxy we control sits in front of it.
// PGlite runs in-process and cannot hang or refuse this way; this file needs TEST_DATABASE_URL.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { signWithEthers6 } from '../helpers/maker-orders.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../helpers/test-database.js';

const COLLECTION = '0x' + 'a7'.repeat(20);
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
// Small bounds keep the test short; the defaults are documented in docs/configuration.md (2 s / 5 s + 1 s).
const TIMEOUTS = { connectMs: 1000, statementMs: 1500, idleInTransactionMs: 3000, sessionMs: 5000 };
const BOUND_MS = 4000;

describe.skipIf(!TEST_DATABASE_URL)('a hanging or refusing PostgreSQL (set TEST_DATABASE_URL to run)', () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: TcpProxy;
  let db: Database;
  let running: Running;
  let nonce = 1;

  beforeAll(async () => {
    created = await createPostgresDatabase();
    const direct = new URL(created.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(created.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    db = await openDatabase({ databaseUrl: viaProxy.toString(), poolSize: 4, timeouts: TIMEOUTS });
    await migrate(db.sql);
    const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', HEALTH_CHECK_TIMEOUT_MS: '500' });
    running = await boot(config, createLogger('silent'), { db, indexer: false, now: () => new Date() });
    await running.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721', name: 'Seven' });
  });
  afterAll(async () => {
    await proxy?.setMode('forward');
    await running?.close();
    await db?.close().catch(() => {});
    await proxy?.close();
    await created?.drop();
  });

  const rest = async (path: string, init?: RequestInit) => {
    const t0 = performance.now();
    const res = await running.yoga.fetch(`http://test${path}`, init ?? {});
    const body = await res.json();
    return { status: res.status, body, headers: res.headers, ms: performance.now() - t0 };
  };
  const gql = async (query: string, variables?: unknown) => {
    const t0 = performance.now();
    const res = await running.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as any, headers: res.headers, ms: performance.now() - t0 };
  };
  const read = () => rest(`/api/v1/collections?address=${COLLECTION}`);
  async function signedOrder() {
    const net = running.services.deps.network;
    const now = Math.floor(Date.now() / 1000);
    return signWithEthers6(wallet, net.chainId, net.exchange, {
      isOrderAsk: true, signer: wallet.address, collection: COLLECTION, price: '1000000000000000000', tokenId: '7', amount: '1',
      strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: String(nonce++), startTime: now - 60, endTime: now + 86_400,
      minPercentageToAsk: 9800, params: [],
    });
  }
  const post = async (body: unknown) => rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  function expectUnavailable(r: { status: number; body: any; headers: Headers; ms: number }) {
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.ms).toBeLessThan(BOUND_MS);
  }
  async function expectRecovered() {
    const until = Date.now() + 10_000;
    for (;;) {
      const ready = await rest('/readyz');
      if (ready.status === 200 && (await read()).status === 200) break;
      if (Date.now() > until) throw new Error('did not recover within 10 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await post(await signedOrder())).status).toBe(201);
    const q = await gql(`{ collection(address: "${COLLECTION}") { name } }`);
    expect(q.body.data.collection.name).toBe('Seven');
  }

  it('serves and reports readiness per component without connection details', async () => {
    const ready = await rest('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', components: { database: { status: 'up', required: true }, indexer: { status: 'off' } } });
    expect(JSON.stringify(ready.body)).not.toMatch(/127\.0\.0\.1|localhost|:\d{2,5}\b|postgres/);
    expect((await read()).status).toBe(200);
    expect((await post(await signedOrder())).status).toBe(201);
  });

  it('answers 503 + Retry-After within a few seconds while the database hangs, then recovers by itself', async () => {
    const order = await signedOrder();
    await proxy.setMode('hang');
    const [r1, w1, g1, ready] = await Promise.all([
      read(),
      post(order),
      gql(`{ collection(address: "${COLLECTION}") { name } }`),
      rest('/readyz'),
    ]);
    expectUnavailable(r1);
    expect(r1.body).toMatchObject({ success: false, data: null });
    expectUnavailable(w1);
    expect(g1.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(g1.status).toBe(503);
    expect(Number(g1.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(g1.ms).toBeLessThan(BOUND_MS);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(1500);
    expect(ready.body.components.database.status).toBe('down');
    expect(JSON.stringify(ready.body)).not.toMatch(/127\.0\.0\.1|:\d{2,5}\b/);
    // later requests (every pooled connection now stuck or being replaced) are just as bounded
    expectUnavailable(await read());

    await proxy.setMode('forward');
    await expectRecovered();
    // the write caught in the hang either committed or not, never half: the order is there at most once
    const stored = await db.prisma.order.count();
    expect(stored).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('answers 503 + Retry-After while the database refuses connections, then recovers by itself', async () => {
    await proxy.setMode('refuse');
    const r = await read();
    expectUnavailable(r);
    expect(r.body.message).toMatch(/unavailable/i);
    expectUnavailable(await post(await signedOrder()));
    const g = await gql(`{ collection(address: "${COLLECTION}") { name } }`);
    expect(g.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(g.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    const ready = await rest('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.components.database.status).toBe('down');

    await proxy.setMode('forward');
    await expectRecovered();
  }, 30_000);
});
