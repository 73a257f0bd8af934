// The read lane against yoga on real sockets: the same request sent to a server wired as
// src/server.ts wires it (the lane first) and to one that hands everything to yoga gets the same
// status, headers (but Date and the generated X-Request-Id) and bytes; the lane answers only what
// the read engine plans whole and hands the rest, body and all, to yoga.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/http/metrics.js';
import { CONSISTENCY_RESPONSE_HEADERS } from '../../src/http/consistency.js';
import { createReadLane, responseMediaType } from '../../src/http/read-lane.js';
import { schema } from '../../src/schema/index.js';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
let app: TestApp;
const servers: Server[] = [];
let laneUrl: string;
let yogaUrl: string;
/** requests the lane handed to yoga */
let handedOn = 0;

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 40);
  const yoga = (req: IncomingMessage, res: ServerResponse) => void app.yoga(req, res);
  const lane = createReadLane({
    schema,
    services: app.services,
    logger: createLogger('silent'),
    yoga: (req, res) => {
      handedOn++;
      yoga(req, res);
    },
    graphqlEndpoint: '/graphql',
    maxBodyBytes: app.config.maxBodyBytes,
    validationRules: [],
    cors: { origin: '*', credentials: false, exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', ...CONSISTENCY_RESPONSE_HEADERS] },
    rateLimit: null,
    registry: (await import('prom-client')).register,
    httpMetrics: createMetrics(false),
    graphql: true,
  });
  laneUrl = await serve(lane);
  yogaUrl = await serve(yoga);
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await app?.close();
});

const BOOK = `query Book($collection: Address!, $first: Int) {
  orders(first: $first, sort: PRICE_ASC, filter: { collection: $collection, isOrderAsk: true }) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { hash price tokenId params collection { name symbol } } }
  }
}`;

interface Sent {
  body?: string;
  headers?: Record<string, string>;
  method?: string;
  path?: string;
}

async function both(req: Sent) {
  const send = async (base: string) => {
    const before = handedOn;
    const res = await fetch(base + (req.path ?? '/graphql'), {
      method: req.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...req.headers },
      body: req.body,
    });
    // yoga streams REST answers (chunked), the lane gives their length: the same bytes either way
    const framing = (k: string) => (req.path ?? '').startsWith('/api/') && (k === 'content-length' || k === 'transfer-encoding');
    const headers = [...res.headers].filter(([k]) => k !== 'date' && !framing(k) && (k !== 'x-request-id' || req.headers?.['x-request-id']));
    return { status: res.status, headers, text: await res.text(), handedOn: handedOn - before };
  };
  const lane = await send(laneUrl);
  const yoga = await send(yogaUrl);
  expect({ status: lane.status, headers: lane.headers, text: lane.text }).toEqual({ status: yoga.status, headers: yoga.headers, text: yoga.text });
  return lane;
}

const body = (query: string, variables?: Record<string, unknown>, extra: Record<string, unknown> = {}) => JSON.stringify({ query, variables, ...extra });

describe('read lane', () => {
  it('answers a document the engine plans whole, byte for byte as yoga', async () => {
    for (const first of [1, 5, 50]) {
      const r = await both({ body: body(BOOK, { collection: fixtureCollections[0], first }) });
      expect(r.status).toBe(200);
      expect(r.text).toContain('"edges"');
      expect(r.handedOn).toBe(0);
    }
  });

  it('gives the same media type and CORS headers as yoga for each Accept and Origin', async () => {
    const accepts = [undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', 'application/json, application/graphql-response+json', 'application/*'];
    for (const accept of accepts) {
      for (const origin of [undefined, 'https://wallet.example']) {
        const headers: Record<string, string> = {};
        if (accept) headers.accept = accept;
        if (origin) headers.origin = origin;
        const r = await both({ body: body(BOOK, { collection: fixtureCollections[1], first: 3 }), headers });
        expect(r.handedOn, `accept ${accept}`).toBe(0);
      }
    }
  });

  it('keeps a sane X-Request-Id the client sent', async () => {
    const r = await both({ body: body(BOOK, { collection: fixtureCollections[0], first: 2 }), headers: { 'x-request-id': 'trace-123' } });
    expect(r.headers).toContainEqual(['x-request-id', 'trace-123']);
  });

  it('hands on, with its body, what the engine does not answer whole', async () => {
    const cases: Sent[] = [
      // a root field the engine does not plan, alone
      { body: body('{ nonce(address: "0x0000000000000000000000000000000000000001") }') },
      // validation, syntax and variable errors: yoga's errors and statuses
      { body: body('{ orders(first: 1) { nope } }') },
      { body: body('{ orders(first: ') },
      { body: body(BOOK, { collection: 'not an address' }) },
      { body: body(BOOK, { collection: fixtureCollections[0], first: -1 }) },
      { body: body(BOOK, { collection: fixtureCollections[0] }, { operationName: 'Other' }) },
      { body: body('query A { orders(first: 1) { totalCount } } query B { orders(first: 2) { totalCount } }', undefined, { operationName: 'B' }) },
      // not plain JSON GraphQL: the refusals and media types stay yoga's
      { body: '{"query": 1}' },
      { body: 'not json' },
      { body: body(BOOK, { collection: fixtureCollections[0] }), headers: { accept: 'text/event-stream' } },
      { body: body(BOOK, { collection: fixtureCollections[0] }), headers: { 'content-type': 'text/plain' } },
      { body: body('{ orders(first: 1) { totalCount } }', undefined, { extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } }) },
      { method: 'GET', path: `/graphql?query=${encodeURIComponent('{ orders(first: 1) { totalCount } }')}`, headers: { accept: 'application/json' } },
    ];
    for (const c of cases) {
      const r = await both(c);
      expect(r.handedOn, c.body ?? c.path).toBe(1);
    }
    // a document with two operations: the named one answers
    const named = await both(cases[6]!);
    expect(JSON.parse(named.text)).toEqual({ data: { orders: { totalCount: expect.any(Number) } } });
  });

  it('answers root fields the engine does not plan beside the ones it plans', async () => {
    const docs = [
      `{ a: orders(first: 2) { totalCount edges { node { hash } } } n: nonce(address: "0x0000000000000000000000000000000000000001") }`,
      `query P($c: Address!) { collection(address: $c) { name stats { floorPrice volume24h } } listingRewards { points collection { address name } } indexerStatus { running } }`,
    ];
    for (const doc of docs) {
      const r = await both({ body: body(doc, { c: fixtureCollections[0] }) });
      expect(r.status).toBe(200);
      expect(r.handedOn, doc).toBe(0);
    }
  });

  it('answers the named operation of a document it plans whole', async () => {
    const doc = 'query A { orders(first: 1) { totalCount } } query B { orders(first: 2) { edges { node { hash } } } }';
    const r = await both({ body: body(doc, undefined, { operationName: 'A' }) });
    expect(r.status).toBe(200);
  });
});

describe('REST reads', () => {
  it('answers every GET route as yoga does, errors included', async () => {
    const c = fixtureCollections[0]!;
    const paths = [
      `/api/v1/orders?collection=${c}&isOrderAsk=true&pagination[first]=5`,
      `/api/v1/orders?collection=${c}&isOrderAsk=false&sort=PRICE_DESC`,
      `/api/v1/orders?collection=${c}&status[]=VALID&status[]=EXPIRED&pagination[first]=3`,
      '/api/v1/orders?isOrderAsk=maybe',
      '/api/v1/orders?pagination[cursor]=nope',
      `/api/v1/orders/nonce?address=${c}`,
      '/api/v1/orders/nonce?address=0x12',
      `/api/v1/collections?address=${c}`,
      `/api/v1/collections/stats?address=${c}`,
      '/api/v1/collections?address=0x0000000000000000000000000000000000000bad',
      '/api/v1/collections/listing-rewards',
      '/api/v1/indexer/status',
      '/api/v1/orders/',
    ];
    for (const path of paths) {
      for (const headers of [{}, { origin: 'https://bot.example' }] as Record<string, string>[]) {
        const r = await both({ method: 'GET', path, headers });
        expect(r.handedOn, path).toBe(0);
      }
    }
  });

  it('leaves what is not a REST read to yoga', async () => {
    for (const [method, path] of [['GET', '/api/v1/nope'], ['GET', '/api/v1/orders/validate'], ['OPTIONS', '/api/v1/orders'], ['HEAD', '/api/v1/orders'], ['GET', '/healthz']] as const) {
      const r = await both({ method, path });
      expect(r.handedOn, `${method} ${path}`).toBe(1);
    }
  });
});

describe('the rate limit, wired as the server wires it', () => {
  it('charges each request once and lets yoga write the refusal', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
    const url = await serve(limited.handle);
    try {
      const statuses: number[] = [];
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${url}/api/v1/orders/nonce?address=${fixtureCollections[0]}`);
        statuses.push(res.status);
        remaining.push(res.headers.get('ratelimit-remaining'));
      }
      const gql = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(BOOK, { collection: fixtureCollections[0], first: 1 }) });
      const rest = await fetch(`${url}/api/v1/orders?collection=${fixtureCollections[0]}`);
      expect(statuses).toEqual([200, 200, 200]);
      expect(remaining).toEqual(['2', '1', '0']);
      expect(gql.status).toBe(429);
      expect(await gql.json()).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED' } }] });
      expect(rest.status).toBe(429);
      expect(await rest.json()).toMatchObject({ success: false, data: null });
      expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});

describe('the consistency stamp', () => {
  it('stamps and waits as yoga does: the same headers and extensions, bad values left to yoga', async () => {
    await app.db.sql.exec(`INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash) VALUES ('main', ${app.config.network.chainId}, 77, '0x${'77'.repeat(32)}')`);
    await app.services.indexedBlock.refresh();
    const book = body(BOOK, { collection: fixtureCollections[0], first: 3 });
    for (const headers of [{}, { 'x-min-block': '10' }, { 'x-min-block': '1000', 'x-max-wait-ms': '50' }] as Record<string, string>[]) {
      const r = await both({ body: book, headers });
      expect(r.handedOn).toBe(0);
      expect(r.headers).toContainEqual(['x-indexed-block', '77']);
      expect(JSON.parse(r.text).extensions.indexedBlock).toBe(77);
    }
    const ext = await both({ body: body(BOOK, { collection: fixtureCollections[0], first: 3 }, { extensions: { minBlock: 10 } }) });
    expect([ext.handedOn, JSON.parse(ext.text).extensions]).toEqual([0, { indexedBlock: 77, consistency: { minBlock: 10, reached: true } }]);
    const bad = await both({ body: book, headers: { 'x-min-block': 'soon' } });
    expect([bad.handedOn, bad.status]).toEqual([1, 400]);
    for (const headers of [{ 'x-min-block': '10' }, { 'x-min-block': 'soon' }] as Record<string, string>[]) {
      const r = await both({ method: 'GET', path: `/api/v1/orders?collection=${fixtureCollections[0]}`, headers });
      expect(r.handedOn).toBe(0);
      expect(r.headers).toContainEqual(['x-indexed-block', '77']);
    }
  });
});

describe('responseMediaType', () => {
  it('picks what yoga picks, or nothing when the answer would not be JSON', () => {
    expect(responseMediaType(undefined)).toBe('application/json');
    expect(responseMediaType('*/*')).toBe('application/json');
    expect(responseMediaType('application/graphql-response+json, application/json;q=0.9')).toBe('application/graphql-response+json');
    expect(responseMediaType('application/json, application/graphql-response+json')).toBe('application/json');
    expect(responseMediaType('text/event-stream')).toBeNull();
    expect(responseMediaType('application/json; charset=latin1')).toBeNull();
  });
});
