// The consistency stamp and reads that wait for a block, on REST and GraphQL, through the read
// lane (the server's handler on a real socket) and through yoga: every answer says which indexed
// block it reflects (the cursor's), a read asking for a later block waits until a batch commits it
// and then shows that batch's effects, a read whose wait runs out is answered anyway and says so,
// and bad values get the envelope or a typed error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const COLLECTION = fixtureCollections[0]!;
let app: TestApp;
let server: Server;
let laneUrl: string;

/** What an indexer batch does: its effects and the cursor, in one transaction (one simple-protocol script). */
async function commitBatch(db: Database, block: number, collectionName?: string) {
  const hash = '0x' + block.toString(16).padStart(64, '0');
  await db.sql.exec(
    (collectionName ? `UPDATE collections SET name = '${collectionName}' WHERE address = '${COLLECTION}';\n` : '') +
      `INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash) VALUES ('main', ${app.config.network.chainId}, ${block}, '${hash}')
       ON CONFLICT (stream) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash;`,
  );
}

const COLLECTION_QUERY = `query C($c: Address!) { collection(address: $c) { name } }`;
const ORDERS_QUERY = `query O($c: Address!) { orders(first: 2, filter: { collection: $c }) { totalCount } }`;

type Via = 'lane' | 'yoga';
async function post(via: Via, payload: unknown, headers: Record<string, string> = {}) {
  const init = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) };
  const res = via === 'lane' ? await fetch(`${laneUrl}/graphql`, init) : await app.yoga.fetch('http://test/graphql', init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, any> };
}
async function get(via: Via, path: string, headers: Record<string, string> = {}) {
  const res = via === 'lane' ? await fetch(`${laneUrl}${path}`, { headers }) : await app.yoga.fetch(`http://test${path}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 10);
  server = createServer(app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  laneUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await app?.close();
});

describe(`the consistency stamp (${backendName})`, () => {
  it('says nothing before the first batch', async () => {
    for (const via of ['lane', 'yoga'] as const) {
      const g = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION } });
      expect(g.body).toEqual({ data: { orders: { totalCount: expect.any(Number) } } });
      expect(g.headers.get('x-indexed-block')).toBeNull();
      const r = await get(via, `/api/v1/orders?collection=${COLLECTION}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-indexed-block')).toBeNull();
    }
  });

  it('stamps every REST and GraphQL answer, errors included, with the cursor block', async () => {
    await commitBatch(app.db, 100);
    await app.services.indexedBlock.refresh();
    for (const via of ['lane', 'yoga'] as const) {
      const g = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION } });
      expect(g.status).toBe(200);
      expect(g.headers.get('x-indexed-block')).toBe('100');
      // data first, then extensions
      expect(Object.keys(g.body)).toEqual(['data', 'extensions']);
      expect(g.body.extensions).toEqual({ indexedBlock: 100 });
      expect(g.text.endsWith(',"extensions":{"indexedBlock":100}}')).toBe(true);
      // a root field the engine does not plan (the executor answers) and a validation error
      const nonce = await post(via, { query: '{ nonce(address: "0x0000000000000000000000000000000000000001") }' });
      expect(nonce.body.extensions).toEqual({ indexedBlock: 100 });
      expect(nonce.headers.get('x-indexed-block')).toBe('100');
      const invalid = await post(via, { query: '{ orders(first: 1) { nope } }' });
      expect(Object.keys(invalid.body)).toEqual(['errors', 'extensions']);
      expect(invalid.body.extensions).toEqual({ indexedBlock: 100 });
      expect(invalid.headers.get('x-indexed-block')).toBe('100');

      for (const path of [`/api/v1/orders?collection=${COLLECTION}`, '/api/v1/orders?isOrderAsk=maybe', '/api/v1/nope', '/api/v1/indexer/status']) {
        const r = await get(via, path);
        expect(r.headers.get('x-indexed-block'), `${via} ${path}`).toBe('100');
      }
    }
  });

  it('follows the cursor down after a reorg', async () => {
    await commitBatch(app.db, 90);
    await app.services.indexedBlock.refresh();
    const r = await get('lane', `/api/v1/orders/nonce?address=${COLLECTION}`);
    expect(r.headers.get('x-indexed-block')).toBe('90');
    await commitBatch(app.db, 100);
    await app.services.indexedBlock.refresh();
  });

  it('lets a browser script read the stamp (CORS)', async () => {
    const res = await fetch(`${laneUrl}/api/v1/orders?collection=${COLLECTION}`, { headers: { origin: 'https://app.example' } });
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Indexed-Block');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Min-Block-Reached');
  });
});

describe(`reads that wait for a block (${backendName})`, () => {
  it('a read asking for a block above the cursor waits until a batch commits it, then shows the batch', async () => {
    let block = 100;
    const cases: [Via, 'rest' | 'header' | 'extensions'][] = [
      ['lane', 'rest'],
      ['yoga', 'rest'],
      ['lane', 'header'],
      ['yoga', 'header'],
      ['lane', 'extensions'],
      ['yoga', 'extensions'],
    ];
    for (const [via, how] of cases) {
      const next = ++block;
      const name = `Renamed at ${next}`;
      const pending =
        how === 'rest'
          ? get(via, `/api/v1/collections?address=${COLLECTION}`, { 'x-min-block': String(next) })
          : post(via, { query: COLLECTION_QUERY, variables: { c: COLLECTION }, ...(how === 'extensions' ? { extensions: { minBlock: next } } : {}) }, how === 'header' ? { 'x-min-block': String(next) } : {});
      // the read is in flight before the batch is written: what it shows, it waited for
      await new Promise((r) => setTimeout(r, 150));
      await commitBatch(app.db, next, name);
      const r = await pending;
      expect(r.status, `${via} ${how}`).toBe(200);
      expect(r.headers.get('x-indexed-block')).toBe(String(next));
      expect(r.headers.get('x-min-block-reached')).toBe('true');
      if (how === 'rest') {
        expect(r.body.data.name).toBe(name);
      } else {
        expect(r.body).toEqual({ data: { collection: { name } }, extensions: { indexedBlock: next, consistency: { minBlock: next, reached: true } } });
      }
    }
  });

  it('a block already indexed is answered at once', async () => {
    for (const via of ['lane', 'yoga'] as const) {
      const r = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION } }, { 'x-min-block': '5' });
      expect(r.body.extensions).toEqual({ indexedBlock: expect.any(Number), consistency: { minBlock: 5, reached: true } });
    }
  });

  it('past the bound the read is answered with what is indexed, and says so', async () => {
    const at = app.services.indexedBlock.current()!;
    for (const via of ['lane', 'yoga'] as const) {
      const g = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION } }, { 'x-min-block': String(at + 1000), 'x-max-wait-ms': '150' });
      expect(g.status).toBe(200);
      expect(g.headers.get('x-min-block-reached')).toBe('false');
      expect(g.headers.get('x-indexed-block')).toBe(String(at));
      expect(g.body).toEqual({ data: { orders: { totalCount: expect.any(Number) } }, extensions: { indexedBlock: at, consistency: { minBlock: at + 1000, reached: false } } });
      const r = await get(via, `/api/v1/orders?collection=${COLLECTION}`, { 'x-min-block': String(at + 1000), 'x-max-wait-ms': '100' });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true);
      expect(r.headers.get('x-min-block-reached')).toBe('false');
    }
  });

  it('the server bounds the wait (CONSISTENCY_MAX_WAIT_MS) whatever the client asks', async () => {
    const bounded = await startTestApp({ CONSISTENCY_MAX_WAIT_MS: '0' });
    try {
      const res = await bounded.yoga.fetch(`http://test/api/v1/orders?collection=${COLLECTION}`, { headers: { 'x-min-block': '999999', 'x-max-wait-ms': '60000' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-min-block-reached')).toBe('false');
    } finally {
      await bounded.close();
    }
  });

  it('refuses bad values with the envelope and a typed GraphQL error, never a 500', async () => {
    const badHeaders: [Record<string, string>, string, string][] = [
      [{ 'x-min-block': 'abc' }, 'X-Min-Block', 'INVALID_NUMBER'],
      [{ 'x-min-block': '-1' }, 'X-Min-Block', 'INVALID_NUMBER'],
      [{ 'x-min-block': '1.5' }, 'X-Min-Block', 'INVALID_NUMBER'],
      [{ 'x-min-block': '99999999999999999999' }, 'X-Min-Block', 'INVALID_NUMBER'],
      [{ 'x-min-block': '5', 'x-max-wait-ms': 'soon' }, 'X-Max-Wait-Ms', 'INVALID_NUMBER'],
      [{ 'x-wait-for-tx': '0x1234' }, 'X-Wait-For-Tx', 'INVALID_TX_HASH'],
      // a well-formed hash, but this server has no chain node to look it up
      [{ 'x-wait-for-tx': '0x' + 'ab'.repeat(32) }, 'X-Wait-For-Tx', 'NO_CHAIN'],
    ];
    for (const via of ['lane', 'yoga'] as const) {
      for (const [headers, field, code] of badHeaders) {
        const r = await get(via, `/api/v1/orders?collection=${COLLECTION}`, headers);
        expect([r.status, r.body.success, r.body.errors], `${via} ${JSON.stringify(headers)}`).toEqual([400, false, [expect.objectContaining({ field, code })]]);
        const g = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION } }, headers);
        expect(g.status).toBe(400);
        expect(g.body.data).toBeUndefined();
        expect(g.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST', problems: [expect.objectContaining({ field, code })] } })]);
        expect(g.body.extensions).toEqual({ indexedBlock: expect.any(Number) });
      }
      const badExtensions: [Record<string, unknown>, string][] = [
        [{ minBlock: -3 }, 'extensions.minBlock'],
        [{ minBlock: 'ab' }, 'extensions.minBlock'],
        [{ minBlock: 1.5 }, 'extensions.minBlock'],
        [{ txHash: 12 }, 'extensions.txHash'],
        [{ minBlock: 5, maxWaitMs: -1 }, 'extensions.maxWaitMs'],
      ];
      for (const [extensions, field] of badExtensions) {
        const g = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION }, extensions });
        expect([g.status, g.body.errors?.[0]?.extensions?.problems?.[0]?.field], JSON.stringify(extensions)).toEqual([400, field]);
      }
      // the header and the body asking for different blocks
      const both = await post(via, { query: ORDERS_QUERY, variables: { c: COLLECTION }, extensions: { minBlock: 3 } }, { 'x-min-block': '4' });
      expect([both.status, both.body.errors?.[0]?.extensions?.problems?.[0]?.code]).toEqual([400, 'CONFLICT']);
    }
  });
});
