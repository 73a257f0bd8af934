// The served OpenAPI document is the contract of /api/v1. Every documented operation is tried
// through the whole app (yoga.fetch): its examples as a client sends them (documented parameters,
// body and headers, the demo's API key where the operation takes a key) to an instance configured
// as the demo is, then valid and invalid requests built from the demo data, over the write key,
// the body limit and content types, a deployment without API keys (403 on the webhook routes), a
// rate-limited instance and a database that fails (500) or does not answer (503); the reads are
// sent again over HTTP to the request handler the server listens with. Every answer must be one
// the document allows for that operation (status, content type, headers, body against the schema
// with ajv), and every documented status of every operation must have been seen.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { DEMO_API_KEY, withDemoApiKey } from '../../src/demo/demo-api-key.js';
import { DEMO_COLLECTIONS, demoCollectionAddress, DEMO_WALLETS, seedDemo } from '../../src/demo/seed-demo.js';
import type { SqlRunner } from '../../src/db/sql-runner.js';
import { createLogger } from '../../src/logger.js';
import { signWithEthers6, standardAsk, type MakerOrderBody } from '../helpers/maker-orders.js';
import { startWorld } from '../helpers/indexer-world.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { openApiChecker, type OpenApiDoc } from './openapi-checker.js';

const WRITE_KEY = 'contract-write-key-0001';
const MAX_BODY_BYTES = 16_384;
const JSON_HEADERS = { 'content-type': 'application/json', 'x-looks-api-key': WRITE_KEY };

let app: TestApp;
let doc: OpenApiDoc;
let checker: ReturnType<typeof openApiChecker>;
/** the same database served as the demo is: its own API key, no write keys (the examples are sent here) */
let demo: Running;
/** the same database on a deployment without API keys */
let keyless: Running;
/** the same database behind a rate limit of one request a minute */
let limited: Running;
/** the same database behind a switch that makes every statement fail */
let faulty: Running;
let fault: null | 'internal' | 'unavailable' = null;

type Sent = { url: string; status: number; headers?: Record<string, string> };
/** GET requests sent to the main app and to the demo, their headers and statuses, replayed over HTTP */
const gets: Sent[] = [];
const demoGets: Sent[] = [];
const KEY_HEADERS = { 'x-looks-api-key': WRITE_KEY };

async function call(target: Running, method: string, url: string, init: RequestInit = {}) {
  const res = await target.yoga.fetch(`http://contract${url}`, { method, ...init });
  const text = await res.text();
  const sent = { url, status: res.status, headers: init.headers as Record<string, string> | undefined };
  if (target === app && method === 'GET') gets.push(sent);
  if (target === demo && method === 'GET') demoGets.push(sent);
  return { status: res.status, body: checker.check(method, url, res, text) as any };
}

/** The GETs sent again over HTTP to the request handler the server listens with (which answers some reads before yoga): the same answers. */
async function replayOverHttp(target: Running, sent: Sent[]) {
  const server = createServer(target.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const { url, status, headers } of sent) {
      const res = await fetch(`${base}${url}`, headers ? { headers } : {});
      checker.check('GET', url, res, await res.text());
      expect(res.status, url).toBe(status);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
const get = (url: string, target: Running = app, headers?: Record<string, string>) => call(target, 'GET', url, headers ? { headers } : {});
/** An operation every request of which needs the key (the webhook routes: endpoints belong to a key). */
const keyed = (op: unknown) => Array.isArray((op as any).security) && (op as any).security.every((s: object) => Object.keys(s).length > 0);
const post = (url: string, body: unknown, headers: Record<string, string> = JSON_HEADERS, target: Running = app) =>
  call(target, 'POST', url, { headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The database, failing every statement while `fault` is set: 500 for a bug, 503 for a refused connection. */
function switchableDatabase(db: Database): Database {
  const raise = () => {
    if (fault === 'unavailable') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    throw new Error('injected failure');
  };
  const wrap = (sql: SqlRunner): SqlRunner => ({
    exec: async (s) => (fault ? raise() : sql.exec(s)),
    query: async (s, params, name) => (fault ? raise() : sql.query(s, params, name)),
    withSession: async (fn) => (fault ? raise() : sql.withSession((session) => fn(wrap(session)))),
  });
  const prisma = db.prisma.$extends({
    query: { $allOperations: ({ args, query }) => (fault ? Promise.resolve().then(raise) : query(args)) },
  }) as unknown as Database['prisma'];
  return { ...db, sql: wrap(db.sql), prisma };
}

beforeAll(async () => {
  app = await startTestApp({ WRITE_API_KEYS: WRITE_KEY, MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
  await seedDemo(app.services, { orderCount: 120, saleCount: 200 });
  const served = await app.yoga.fetch('http://contract/api/v1/openapi.json');
  doc = (await served.json()) as OpenApiDoc;
  checker = openApiChecker(doc);
  const env = { SEED: '0', LOG_LEVEL: 'silent', SIGNATURE_WORKERS: '0', MAX_BODY_BYTES: String(MAX_BODY_BYTES) };
  const now = () => app.clock.now;
  // what boot makes of the demo's configuration (src/app.ts), without its rate limit
  demo = await boot(withDemoApiKey(loadConfig({ SEED: '0', LOG_LEVEL: 'silent', SIGNATURE_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '0', WEBHOOKS: 'false' }), true), createLogger('silent'), { db: app.testDb.db, indexer: false, now });
  keyless = await boot(loadConfig({ ...env, RATE_LIMIT_PER_MINUTE: '0', WEBHOOKS: 'false' }), createLogger('silent'), { db: app.testDb.db, indexer: false, now });
  // endpoint 1, the demo key's, which the webhook routes' examples name; endpoint 2, the write key's
  for (const [target, key, id] of [[demo, DEMO_API_KEY, '1'], [app, WRITE_KEY, '2']] as const) {
    const res = await target.yoga.fetch('http://contract/api/v1/webhooks', { method: 'POST', headers: { 'content-type': 'application/json', 'x-looks-api-key': key }, body: JSON.stringify({ url: 'https://hooks.example.com/contract' }) });
    const created = (await res.json()) as any;
    if (created?.data?.endpoint?.id !== id) throw new Error(`expected webhook endpoint ${id}: ${JSON.stringify(created)}`);
  }
  limited = await boot(loadConfig({ ...env, RATE_LIMIT_PER_MINUTE: '1' }), createLogger('silent'), { db: app.testDb.db, indexer: false, now });
  faulty = await boot(loadConfig({ ...env, RATE_LIMIT_PER_MINUTE: '0', WRITE_API_KEYS: WRITE_KEY }), createLogger('silent'), { db: switchableDatabase(app.testDb.db), indexer: false, now });
});
afterAll(async () => {
  await demo?.close();
  await keyless?.close();
  await limited?.close();
  await faulty?.close();
  await app?.close();
});

const nowSeconds = () => Math.floor(app.clock.now.getTime() / 1000);
const net = () => app.config.network;

/** The query of an operation's required parameters, from their documented examples. */
function exampleQuery(path: string): string {
  const op = (doc.paths[path] as any).get ?? {};
  const params = (op.parameters ?? []) as { name: string; required?: boolean; example?: unknown }[];
  return params.filter((p) => p.required && p.example !== undefined).map((p) => `${p.name}=${encodeURIComponent(String(p.example))}`).join('&');
}

/** A maker order signed by a demo wallet, for a demo collection; `over` changes it before signing. */
async function signed(walletIndex: number, over: Partial<MakerOrderBody> = {}, collectionIndex = 0) {
  const wallet = DEMO_WALLETS[walletIndex]!;
  const nonce = (await get(`/api/v1/orders/nonce?address=${wallet.address}`)).body.data as string;
  const order = standardAsk(net(), { signer: wallet.address, collection: demoCollectionAddress(collectionIndex), nonce, now: nowSeconds() }, { tokenId: String(100 + walletIndex), ...over });
  return signWithEthers6(wallet, net().chainId, net().exchange, order);
}

describe(`the OpenAPI contract of /api/v1 (${backendName})`, () => {
  it('has examples that validate against their own schemas', () => {
    expect(checker.checkExamples()).toEqual([]);
  });

  it('answers every example as documented, sent as a client would to the demo: the signed POST example is stored, the webhook routes take the demo key', async () => {
    /** the operations that take X-Looks-Api-Key (a client that has the key sends it) */
    const takesKey = (op: unknown) => Array.isArray((op as any).security) && (op as any).security.some((s: object) => 'writeKey' in s);
    /** An operation's documented example as a client sends it to the demo: the answer must be its documented success. */
    const tryExample = async ({ path, method, op }: (typeof checker.operations)[number]) => {
      const params = ((op as any).parameters ?? []) as { name: string; in: string; example?: unknown }[];
      const query = params
        .filter((p) => p.in === 'query' && p.example !== undefined)
        .flatMap((p) => (Array.isArray(p.example) ? p.example.map((v) => `${p.name}=${encodeURIComponent(String(v))}`) : [`${p.name}=${encodeURIComponent(String(p.example))}`]))
        .join('&');
      const url = query ? `${path}?${query}` : path;
      const success = Number(Object.keys(op.responses).find((s) => s.startsWith('2'))!);
      const example = op.requestBody?.content['application/json']?.example;
      const headers: Record<string, string> = {
        ...(takesKey(op) ? { 'x-looks-api-key': DEMO_API_KEY } : {}),
        ...(example !== undefined ? { 'content-type': 'application/json' } : {}),
      };
      const res = method === 'get' ? await get(url, demo, headers) : await post(url, example, headers, demo);
      // this instance has no RPC_URL: a route that reads the chain says so (its 200: see the chained app below)
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe((op as any)['x-requires-chain'] ? 503 : success);
      if (method === 'get' && !(op as any)['x-requires-chain']) {
        // each optional parameter's example on its own, beside the required ones
        const required = exampleQuery(path);
        for (const p of params.filter((x) => x.example !== undefined)) {
          const one = Array.isArray(p.example) ? p.example.map((v) => `${p.name}=${v}`).join('&') : `${p.name}=${p.example}`;
          const q = (p as { required?: boolean }).required ? required : [required, one].filter(Boolean).join('&');
          expect((await get(`${path}?${q}`, demo, headers)).status, `${path}?${q}`).toBe(success);
        }
      }
      if (path.endsWith('/validate')) expect(res.body.data).toEqual((op.responses['200']!.content!['application/json']!.example as any).data);
      if (path === '/api/v1/orders' && method === 'post') {
        expect(res.body.data).toEqual((op.responses['201']!.content!['application/json']!.example as any).data);
        // tried twice, it is a duplicate
        const again = await post(url, example, headers, demo);
        expect(again.status).toBe(400);
        expect(again.body.errors.map((e: { code: string }) => e.code)).toEqual(['DUPLICATE_ORDER']);
      }
    };
    // the order example after its dry run (stored, it is a duplicate there); the delete example
    // last, after the replay of the reads (the others name its endpoint)
    const late = (o: { path: string; method: string }) => (o.path.endsWith('/delete') ? 2 : o.path === '/api/v1/orders' && o.method === 'post' ? 1 : 0);
    for (const o of checker.operations.filter((x) => late(x) < 2).sort((a, b) => late(a) - late(b))) await tryExample(o);
    await replayOverHttp(demo, demoGets);
    for (const o of checker.operations.filter((x) => late(x) === 2)) await tryExample(o);
    expect(checker.operations.filter((o) => takesKey(o.op)).length).toBeGreaterThanOrEqual(8);
  });

  it('a deployment without API keys: 403 on every route that needs one, with the demo key too', async () => {
    for (const { path, method, op } of checker.operations.filter((o) => keyed(o.op))) {
      const example = op.requestBody?.content['application/json']?.example;
      const headers = { 'x-looks-api-key': DEMO_API_KEY, ...(example !== undefined ? { 'content-type': 'application/json' } : {}) };
      const res = method === 'get' ? await get(`${path}?${exampleQuery(path)}`, keyless, headers) : await post(path, example, headers, keyless);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.message).toMatch(/API_KEYS/);
    }
  });

  it('GET /orders: filters, sorts and pages from the demo data, and bad parameters', async () => {
    const all = (await get('/api/v1/orders?pagination[first]=150&status[]=VALID&status[]=EXPIRED&status[]=CANCELLED&status[]=EXECUTED')).body.data as any[];
    expect(all.length).toBeGreaterThan(50);
    const offer = all.find((o) => o.tokenId === null);
    expect(offer, 'the demo data has a collection offer (tokenId null)').toBeDefined();
    const ask = all.find((o) => o.isOrderAsk && o.tokenId !== null)!;
    const urls = [
      '/api/v1/orders',
      '/api/v1/orders?isOrderAsk=false',
      '/api/v1/orders?isOrderAsk=1&status[]=VALID',
      `/api/v1/orders?collection=${offer.collectionAddress}&isOrderAsk=0`,
      `/api/v1/orders?collection=${ask.collectionAddress.toLowerCase()}&tokenId=${ask.tokenId}`,
      `/api/v1/orders?hash=${ask.hash}`,
      `/api/v1/orders?hash=0x${'00'.repeat(32)}`,
      `/api/v1/orders?signer=${ask.signer}&nonce=${ask.nonce}`,
      `/api/v1/orders?strategy=${ask.strategy}&currency=${ask.currencyAddress}`,
      `/api/v1/orders?price[min]=${ask.price}&price[max]=${BigInt(ask.price) * 10n}`,
      `/api/v1/orders?price=${encodeURIComponent(JSON.stringify({ min: 1, max: ask.price }))}`,
      `/api/v1/orders?startTime=${ask.startTime}&endTime=${ask.endTime + 86_400 * 365}`,
      `/api/v1/orders?pagination=${encodeURIComponent(JSON.stringify({ first: 3, cursor: all[2].hash }))}`,
      `/api/v1/orders?pagination[first]=7&pagination[cursor]=${all[10].hash}&sort=NEWEST`,
      '/api/v1/orders?collection=&signer=',
      ...['EXPIRING_SOON', 'NEWEST', 'PRICE_ASC', 'PRICE_DESC'].map((s) => `/api/v1/orders?sort=${s}&pagination[first]=10`),
      ...['VALID', 'CANCELLED', 'EXECUTED', 'EXPIRED', 'ERC_APPROVAL', 'ERC20_APPROVAL', 'ERC20_BALANCE', 'INVALID_OWNER'].map((s) => `/api/v1/orders?status[]=${s}`),
      ...DEMO_COLLECTIONS.map((_, i) => `/api/v1/orders?collection=${demoCollectionAddress(i)}&pagination[first]=150`),
    ];
    for (const url of urls) expect((await get(url)).status, url).toBe(200);
    const bad = [
      '/api/v1/orders?collection=0x12',
      '/api/v1/orders?status[]=OPEN',
      '/api/v1/orders?sort=CHEAPEST',
      '/api/v1/orders?pagination[first]=0',
      '/api/v1/orders?pagination[first]=151',
      '/api/v1/orders?pagination[first]=five',
      '/api/v1/orders?pagination[cursor]=0x12',
      '/api/v1/orders?price[min]=-1',
      '/api/v1/orders?price[min]=10&price[max]=1',
      `/api/v1/orders?tokenId=${1n << 256n}`,
      '/api/v1/orders?isOrderAsk=maybe',
      '/api/v1/orders?startTime=yesterday',
      '/api/v1/orders?hash=0xabc',
      '/api/v1/orders?nonce=1.5',
      '/api/v1/orders?signer=nobody&currency=weth&strategy=0x',
    ];
    for (const url of bad) expect((await get(url)).status, url).toBe(400);
  });

  it('GET /orders/nonce, /collections, /collections/stats: every demo address, unknown, malformed and missing ones', async () => {
    for (const route of ['/api/v1/orders/nonce', '/api/v1/collections', '/api/v1/collections/stats']) {
      const addresses = [...DEMO_COLLECTIONS.map((_, i) => demoCollectionAddress(i)), ...DEMO_WALLETS.slice(0, 3).map((w) => w.address), `0x${'99'.repeat(20)}`];
      for (const a of addresses) expect((await get(`${route}?address=${a}`)).status).toBe(200);
      expect((await get(`${route}?address=${addresses[0]!.toLowerCase()}`)).status).toBe(200);
      for (const q of ['', '?address=', '?address=0x12345', '?address=hello', `?address[]=${addresses[0]}`]) expect((await get(`${route}${q}`)).status, `${route}${q}`).toBe(400);
    }
  });

  it('GET /tokens: listed, unlisted, ERC-1155 and unknown tokens; missing and malformed parameters', async () => {
    const route = '/api/v1/tokens';
    const listed = ((await get(`/api/v1/orders?isOrderAsk=true&status[]=VALID&pagination[first]=150`)).body.data as any[]).filter(
      (o) => net().strategies.standardSale.includes(o.strategy) && o.startTime <= nowSeconds(),
    );
    const erc1155 = DEMO_COLLECTIONS.findIndex((c) => c.type === 'ERC1155');
    const ok = [
      ...listed.slice(0, 5).map((o) => `${route}?collection=${o.collectionAddress}&tokenId=${o.tokenId}`),
      `${route}?collection=${demoCollectionAddress(0).toLowerCase()}&tokenId=1`,
      `${route}?collection=${demoCollectionAddress(erc1155)}&tokenId=2`,
      `${route}?collection=${demoCollectionAddress(0)}&tokenId=${(1n << 256n) - 1n}`,
      `${route}?collection=0x${'99'.repeat(20)}&tokenId=1`,
    ];
    for (const url of ok) expect((await get(url)).status, url).toBe(200);
    const some = (await get(ok[0]!)).body.data;
    expect(some.bestAsk.isOrderAsk).toBe(true);
    expect((await get(`${route}?collection=0x${'99'.repeat(20)}&tokenId=1`)).body.data).toBeNull();
    const bad = ['', '?collection=', `?collection=${demoCollectionAddress(0)}`, '?tokenId=1', `?collection=0x12&tokenId=1`, `?collection=${demoCollectionAddress(0)}&tokenId=-1`,
      `?collection=${demoCollectionAddress(0)}&tokenId=${1n << 256n}`, `?collection=${demoCollectionAddress(0)}&tokenId=1.5`, `?collection[]=${demoCollectionAddress(0)}&tokenId=1`, `?collection=${demoCollectionAddress(0)}&tokenId[a]=1`];
    for (const q of bad) {
      const res = await get(`${route}${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.errors.length, q).toBeGreaterThan(0);
    }
  });

  it('GET /collections/attributes and POST /tokens/refresh: the demo panel, its cooldown, unknown collections and tokens, bad input', async () => {
    const panel = await get(`/api/v1/collections/attributes?collection=${demoCollectionAddress(0).toLowerCase()}`);
    expect(panel.status).toBe(200);
    expect(panel.body.data.map((t: { traitType: string }) => t.traitType)).toEqual(['Background', 'Body', 'Eyes', 'Headwear', 'Level']);
    expect((await get(`/api/v1/collections/attributes?collection=0x${'99'.repeat(20)}`)).status).toBe(404);
    for (const q of ['', '?collection=0x12', `?collection[]=${demoCollectionAddress(0)}`]) expect((await get(`/api/v1/collections/attributes${q}`)).status, q).toBe(400);
    const route = '/api/v1/tokens/refresh';
    const first = await post(route, { collection: demoCollectionAddress(1), tokenId: '3' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ queued: true, tokens: 1 });
    const again = await post(route, { collection: demoCollectionAddress(1), tokenId: '3' });
    expect(again.body.data).toMatchObject({ queued: false, tokens: 0, nextRefreshAllowedAt: first.body.data.nextRefreshAllowedAt });
    const whole = await post(route, { collection: demoCollectionAddress(2) });
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(whole.body.data.queued).toBe(true);
    expect(whole.body.data.tokens).toBeGreaterThan(10);
    expect((await post(route, { collection: demoCollectionAddress(1), tokenId: '999999' })).status).toBe(404);
    expect((await post(route, { collection: `0x${'99'.repeat(20)}` })).status).toBe(404);
    for (const body of [{}, { collection: '0x12' }, { collection: demoCollectionAddress(1), tokenId: '-1' }, { collection: demoCollectionAddress(1), extra: 1 }, '{not json']) {
      expect((await post(route, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await post(route, JSON.stringify({ collection: demoCollectionAddress(1), padding: 'x'.repeat(MAX_BODY_BYTES) }))).status).toBe(413);
    expect((await post(route, { collection: demoCollectionAddress(1) }, { 'content-type': 'text/plain' })).status).toBe(415);
  });

  it('GET /collections/search: names, misspellings, symbols, addresses, nothing found; bad parameters', async () => {
    const route = '/api/v1/collections/search';
    const ok = [
      ...DEMO_COLLECTIONS.map((c) => `${route}?q=${encodeURIComponent(c.name)}`),
      `${route}?q=lantrn%20owl&limit=1`,
      `${route}?q=OWL&limit=50`,
      `${route}?q=${demoCollectionAddress(0).toLowerCase()}`,
      `${route}?q=nothing%20like%20it`,
      `${route}?q=%25`,
    ];
    for (const url of ok) expect((await get(url)).status, url).toBe(200);
    expect((await get(`${route}?q=${demoCollectionAddress(0).toUpperCase().replace('0X', '0x')}`)).body.data[0].address).toBe(demoCollectionAddress(0));
    expect((await get(`${route}?q=nothing%20like%20it`)).body.data).toEqual([]);
    const bad = ['', '?q=', '?q=%20', `?q=${'x'.repeat(101)}`, '?q=%00', '?q=owl&limit=0', '?q=owl&limit=51', '?q=owl&limit=many', '?q[]=owl', '?q[a]=owl'];
    for (const q of bad) {
      const res = await get(`${route}${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.errors.length, q).toBeGreaterThan(0);
    }
  });

  it('GET /collections/listing-rewards and /indexer/status, with and without stray parameters', async () => {
    for (const route of ['/api/v1/collections/listing-rewards', '/api/v1/indexer/status']) {
      for (const q of ['', '?x=1', '?pagination[first]=5']) expect((await get(`${route}${q}`)).status).toBe(200);
    }
  });

  it('GET /events: newest first, every filter and page, v1 shapes, bad parameters', async () => {
    const route = '/api/v1/events';
    const all = (await get(`${route}?pagination[first]=150`)).body.data as any[];
    expect(all.length).toBeGreaterThan(20);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const c = demoCollectionAddress(0);
    const ok = [
      `${route}?collection=${c}&type=SALE&pagination[first]=25`,
      `${route}?collection=${c.toLowerCase()}&tokenId=1`,
      `${route}?type=LIST&pagination[first]=3&pagination[cursor]=${all[5].id}`,
      `${route}?type=OFFER`,
      `${route}?type=MINT&to=${DEMO_WALLETS[0]!.address}`,
      `${route}?from=${DEMO_WALLETS[1]!.address}&pagination=${encodeURIComponent('{"first":2}')}`,
      `${route}?pagination[cursor]=1`,
    ];
    for (const url of ok) expect((await get(url)).status, url).toBe(200);
    const bad = [
      `${route}?type=BID`,
      `${route}?type=STATUS_CHANGE`,
      `${route}?tokenId=1`,
      `${route}?collection=0x12`,
      `${route}?from=nobody`,
      `${route}?pagination[first]=151`,
      `${route}?pagination[first]=0`,
      `${route}?pagination[cursor]=abc`,
      `${route}?pagination[cursor]=-1`,
    ];
    for (const url of bad) expect((await get(url)).status, url).toBe(400);
  });

  it('POST /orders and /orders/validate: signed orders, refused orders, keys, bodies and content types', async () => {
    const erc1155 = DEMO_COLLECTIONS.findIndex((c) => c.type === 'ERC1155');
    const valid = [
      await signed(1),
      await signed(2, { isOrderAsk: false, tokenId: null, strategy: net().strategies.collectionOffer[0]! }),
      await signed(3, { amount: '3', tokenId: '2' }, erc1155),
      await signed(4, { isOrderAsk: false, price: '50000000000000000' }),
    ];
    const refused = [
      await signed(5, { startTime: nowSeconds() - 7200, endTime: nowSeconds() - 3600 }),
      await signed(5, { strategy: `0x${'12'.repeat(20)}` }),
      await signed(5, { currency: `0x${'34'.repeat(20)}`, price: '0' }),
      await signed(5, { collection: `0x${'56'.repeat(20)}` }),
      await signed(5, { isOrderAsk: true, tokenId: null, strategy: net().strategies.collectionOffer[0]! }),
      await signed(5, { amount: '2' }),
      { ...(await signed(6)), signer: DEMO_WALLETS[7]!.address },
      { ...(await signed(6)), signature: '0x1234' },
      { ...(await signed(6)), minPercentageToAsk: 10_001 },
      { ...(await signed(6)), nonce: '-1', price: 'a lot', tokenId: [] },
      {},
      [],
      null,
      '"an order"', // a JSON string (the helper sends strings as they are)
    ];
    for (const body of valid) {
      const dry = await post('/api/v1/orders/validate', body);
      expect(dry.status).toBe(200);
      expect(dry.body.data.valid, JSON.stringify(dry.body.data.problems)).toBe(true);
      const created = await post('/api/v1/orders', body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data.tokenId).toBe(body.tokenId);
    }
    for (const body of refused) {
      const dry = await post('/api/v1/orders/validate', body);
      expect(dry.status, JSON.stringify(body)).toBe(200);
      expect(dry.body.data.valid).toBe(false);
      expect((await post('/api/v1/orders', body)).status).toBe(400);
    }
    for (const path of ['/api/v1/orders', '/api/v1/orders/validate']) {
      expect((await post(path, '{"isOrderAsk": tru')).status).toBe(400);
      expect((await post(path, '')).status).toBe(400);
      expect((await post(path, JSON.stringify({ padding: 'x'.repeat(MAX_BODY_BYTES) }))).status).toBe(413);
      for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
        expect((await post(path, valid[0], { 'content-type': type, 'x-looks-api-key': WRITE_KEY })).status, type).toBe(415);
      }
      // no Content-Type at all: a body of bytes gets none
      const bare = await call(app, 'POST', path, { headers: { 'x-looks-api-key': WRITE_KEY }, body: new TextEncoder().encode(JSON.stringify(valid[0])) });
      expect(bare.status).toBe(415);
      expect((await post(path, valid[0], { 'content-type': 'Application/JSON; charset=utf-8', 'x-looks-api-key': WRITE_KEY })).status).toBe(path.endsWith('validate') ? 200 : 400);
    }
    // the write key
    const fresh = await signed(8);
    expect((await post('/api/v1/orders', fresh, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await post('/api/v1/orders', fresh, { 'content-type': 'application/json', 'x-looks-api-key': 'not-a-write-key' })).status).toBe(401);
    expect((await post('/api/v1/orders/validate', fresh, { 'content-type': 'application/json' })).status).toBe(200);
  });

  it('GET /orders/fulfillment with a chain: its example, offers, bad parameters, unknown and filled orders', async () => {
    // the same database behind an app with a local EVM as its chain (the demo's strategies whitelisted)
    const world = await startWorld();
    const strategies = net().strategies;
    const chained = await boot(
      loadConfig({
        SEED: '0', LOG_LEVEL: 'silent', SIGNATURE_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '0',
        CHAIN_ID: '31337', RPC_URL: world.evm.rpcUrl, EXCHANGE_ADDRESS: world.network.exchange, WETH_ADDRESS: world.network.weth,
        TRANSFER_MANAGER_ERC721_ADDRESS: world.network.transferManagerERC721, TRANSFER_MANAGER_ERC1155_ADDRESS: world.network.transferManagerERC1155,
        STRATEGY_STANDARD_SALE_ADDRESSES: strategies.standardSale.join(','), STRATEGY_COLLECTION_OFFER_ADDRESSES: strategies.collectionOffer.join(','),
      }),
      createLogger('silent'),
      { db: app.testDb.db, indexer: false, now: () => app.clock.now },
    );
    try {
      const route = '/api/v1/orders/fulfillment';
      const taker = DEMO_WALLETS[11]!.address;
      expect((await get(`${route}?${exampleQuery(route)}`, chained)).status).toBe(200);
      const all = (await get('/api/v1/orders?pagination[first]=150&status[]=VALID&status[]=EXECUTED&status[]=CANCELLED')).body.data as any[];
      const standard = (o: any) => strategies.standardSale.includes(o.strategy);
      const offer = all.find((o) => !o.isOrderAsk && o.status === 'VALID' && o.tokenId !== null && standard(o));
      const collectionOffer = all.find((o) => o.status === 'VALID' && o.tokenId === null);
      const listing = all.find((o) => o.isOrderAsk && o.status === 'VALID' && standard(o));
      const filled = all.find((o) => o.status === 'EXECUTED' || o.status === 'CANCELLED');
      for (const [url, status] of [
        [`${route}?hash=${listing.hash}&taker=${taker}&payWith=WETH`, 200],
        [`${route}?hash=${offer.hash}&taker=${taker.toLowerCase()}`, 200],
        [`${route}?hash=${collectionOffer.hash}&taker=${taker}&tokenId=3`, 200],
        [`${route}?hash=${collectionOffer.hash}&taker=${taker}`, 400],
        [`${route}?hash=${listing.hash}&taker=${taker}&tokenId=3`, 400],
        [`${route}?hash=${offer.hash}&taker=${taker}&payWith=ETH`, 400],
        [`${route}?hash=${listing.hash}&taker=${taker}&payWith=BTC`, 400],
        [`${route}?hash=${listing.hash}`, 400],
        [`${route}?hash=0x12&taker=nobody`, 400],
        [`${route}?hash=0x${'00'.repeat(32)}&taker=${taker}`, 404],
        [`${route}?hash=${filled.hash}&taker=${taker}`, 409],
      ] as const) {
        expect((await get(url, chained)).status, url).toBe(status);
      }
    } finally {
      await chained.close();
      await world.stop();
    }
  }, 60_000);

  it('rate limited: 429 with Retry-After on every operation', async () => {
    await get('/api/v1/indexer/status', limited); // uses the one request of the minute
    for (const { path, method, op } of checker.operations) {
      const res =
        method === 'post'
          ? await post(path, op.requestBody!.content['application/json']!.example, JSON_HEADERS, limited)
          : await get(`${path}?address=${demoCollectionAddress(0)}`, limited);
      expect(res.status, `${method} ${path}`).toBe(429);
    }
  });

  it('a failing database: 500 without internals; one that does not answer: 503 with Retry-After', async () => {
    const body = await signed(9);
    try {
      for (const mode of ['internal', 'unavailable'] as const) {
        fault = mode;
        for (const { path, method, op } of checker.operations) {
          // a keyed route is sent its own example (its body is checked before the database is asked)
          const own = keyed(op) || !path.startsWith('/api/v1/orders') ? op.requestBody?.content['application/json']?.example : undefined;
          const res =
            method === 'post'
              ? await post(path, own ?? body, JSON_HEADERS, faulty)
              : await get(`${path}?${exampleQuery(path) || `address=${demoCollectionAddress(0)}`}`, faulty, keyed(op) ? KEY_HEADERS : undefined);
          expect(res.status, `${method} ${path}`).toBe(mode === 'internal' ? 500 : 503);
          expect(JSON.stringify(res.body)).not.toMatch(/injected|ECONNREFUSED|5432/);
        }
      }
    } finally {
      fault = null;
    }
  });

  it('/webhooks: register, list, deliveries, pause, resume, rotate, delete; keys, bodies and ids', async () => {
    const created = await post('/api/v1/webhooks', { url: 'https://hooks.example.com/w', filter: { collection: demoCollectionAddress(0).toLowerCase(), types: ['SALE'] }, after: '0' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.endpoint.id as string;
    expect(created.body.data.endpoint.filter.collection).toBe(demoCollectionAddress(0));
    expect((await get('/api/v1/webhooks', app, KEY_HEADERS)).body.data.map((e: any) => e.id)).toContain(id);
    expect((await get(`/api/v1/webhooks/deliveries?id=2&first=5`, app, KEY_HEADERS)).status).toBe(200); // endpoint 2 stays: the reads are replayed at the end
    expect((await get(`/api/v1/webhooks/deliveries?id=1`, app, KEY_HEADERS)).status).toBe(404); // the demo key's
    for (const route of ['pause', 'resume', 'rotate-secret', 'delete']) expect((await post(`/api/v1/webhooks/${route}`, { id })).status, route).toBe(200);
    for (const route of ['pause', 'resume', 'rotate-secret', 'delete']) {
      const path = `/api/v1/webhooks/${route}`;
      expect((await post(path, { id })).status, route).toBe(404); // deleted
      expect((await post(path, { id: '1' }, { 'content-type': 'application/json' })).status, route).toBe(401);
      for (const bad of [{}, { id: 'one' }, { id: '1', extra: true }, []]) expect((await post(path, bad)).status, `${route} ${JSON.stringify(bad)}`).toBe(400);
      expect((await post(path, JSON.stringify({ id: '1', padding: 'x'.repeat(MAX_BODY_BYTES) }))).status).toBe(413);
      expect((await post(path, { id: '1' }, { 'content-type': 'text/plain', 'x-looks-api-key': WRITE_KEY })).status).toBe(415);
    }
    for (const headers of [undefined, { 'x-looks-api-key': 'not-a-known-key' }]) {
      expect((await get('/api/v1/webhooks', app, headers)).status).toBe(401);
      expect((await get('/api/v1/webhooks/deliveries?id=1', app, headers)).status).toBe(401);
    }
    for (const q of ['', '?id=abc', '?id=1&first=0', '?id=1&first=x']) expect((await get(`/api/v1/webhooks/deliveries${q}`, app, KEY_HEADERS)).status, q).toBe(400);
    expect((await get(`/api/v1/webhooks/deliveries?id=${id}`, app, KEY_HEADERS)).status).toBe(404);
    for (const body of [
      { url: 'ftp://example.com' },
      { url: 'http://127.0.0.1/x' },
      { url: 'https://example.com', filter: { tokenId: '1' } },
      { url: 'https://example.com', filter: { types: ['BID'] } },
      { url: 'https://example.com', after: 'x' },
      {},
    ]) {
      expect((await post('/api/v1/webhooks', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await post('/api/v1/webhooks', { url: 'https://example.com' }, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await post('/api/v1/webhooks', JSON.stringify({ url: 'x'.repeat(MAX_BODY_BYTES) }))).status).toBe(413);
    expect((await post('/api/v1/webhooks', { url: 'https://example.com' }, { 'content-type': 'text/plain', 'x-looks-api-key': WRITE_KEY })).status).toBe(415);
  });

  it("the server's own request handler (which answers some reads before yoga) gives the same reads", async () => {
    await replayOverHttp(app, gets);
  });

  it('every answer matched the document; every operation and every documented status was seen', () => {
    console.log(`OpenAPI contract (${backendName}): ${checker.checked.length} responses checked over ${checker.operations.length} operations, ${checker.mismatches.length} mismatches`);
    expect(checker.mismatches).toEqual([]);
    expect(checker.uncovered()).toEqual([]);
    expect(checker.checked.length).toBeGreaterThanOrEqual(100);
  });
});
