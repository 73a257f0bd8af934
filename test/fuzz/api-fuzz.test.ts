// Property-based fuzzing of every REST route's parameters and bodies and of GraphQL variables
//. Every generated request must get: no 5xx; the v1 envelope (REST) or typed errors
// (GraphQL: every error has an extensions.code); and a refused input writes no row.
//
// Default `npm test` runs a short pass. The long mode runs at least 10,000 inputs:
//   FUZZ=long npx vitest run test/fuzz            (FUZZ_RUNS=N sets the per-property count)
// A failure prints fast-check's seed and shrunk input; replay with FUZZ_SEED=<seed>.
import fc from 'fast-check';
import qs from 'qs';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWithEthers6, standardAsk } from '../helpers/maker-orders.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const LONG = process.env.FUZZ === 'long';
const PROPERTIES = 7;
// long: 7 properties x 1,500 = 10,500 generated requests
const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 1500 : 40));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true } as const;
const timeout = LONG ? 1_800_000 : 120_000;

const ADMIN_KEY = 'fuzz-admin-key-0123456789';
const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const COLLECTION = '0x' + 'a7'.repeat(20);

let app: TestApp;
let validOrder: Record<string, unknown> = {};

beforeAll(async () => {
  app = await startTestApp({ ADMIN_API_KEY: ADMIN_KEY, MAX_BODY_BYTES: String(64 * 1024) });
  await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721', name: 'Seven' });
  const net = app.config.network;
  validOrder = { ...(await signWithEthers6(wallet, net.chainId, net.exchange, standardAsk(net, { signer: wallet.address, collection: COLLECTION, nonce: 5, now: NOW }))) };
}, 60_000);
afterAll(() => app?.close());

// ---- values that break things: out-of-range numbers, wrong types, huge strings, deep nesting
const bigDigits = fc.integer({ min: 1, max: 120 }).chain((n) => fc.stringMatching(new RegExp(`^-?[0-9]{${n}}$`)));
const hex = fc.integer({ min: 0, max: 140 }).chain((n) => fc.stringMatching(new RegExp(`^0x[0-9a-fA-F]{${n}}$`)));
const scalar = fc.oneof(
  fc.constantFrom(0, -1, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 64, 1e300, -1e300, 0.5, Number.MIN_VALUE, NaN, Infinity),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  bigDigits,
  hex,
  fc.constantFrom('', ' ', 'null', 'true', '0x', '1e3', '-0', '0x' + '1'.repeat(40), '0x' + 'ab'.repeat(32), 'VALID', 'PRICE_ASC', '__proto__', 'constructor', '{"first":5}', '["VALID"]'),
  fc.nat({ max: 300_000 }).map((n) => 'x'.repeat(n)),
);
const nested: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 })),
})).value;
const deep = fc.integer({ min: 1, max: 3000 }).map((d) => {
  let v: unknown = 1;
  for (let i = 0; i < d; i++) v = i % 2 ? { a: v } : [v];
  // fast-check's reporter would overflow the stack printing it; JSON.stringify ignores symbols
  Object.defineProperty(v, fc.toStringMethod, { value: () => `deep(${d})` });
  return v;
});
const anyValue = fc.oneof({ weight: 5, arbitrary: scalar }, { weight: 3, arbitrary: nested }, { weight: 1, arbitrary: deep });

// ---- the assertions every request shares
async function restCall(path: string, init?: RequestInit) {
  const res = await app.yoga.fetch(`http://fuzz${path}`, init ?? {});
  const text = await res.text();
  expect(res.status, `${init?.method ?? 'GET'} ${path.slice(0, 300)} -> ${text.slice(0, 300)}`).toBeLessThan(500);
  const body = JSON.parse(text);
  expect(typeof body.success).toBe('boolean');
  expect('data' in body && 'message' in body).toBe(true);
  if (!body.success) expect(typeof body.message).toBe('string');
  return { status: res.status, body };
}
async function gqlCall(query: string, variables: unknown, headers: Record<string, string> = {}) {
  const res = await app.yoga.fetch('http://fuzz/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  expect(res.status, `${query.slice(0, 80)} ${JSON.stringify(variables)?.slice(0, 300)} -> ${text.slice(0, 300)}`).toBeLessThan(500);
  const body = JSON.parse(text);
  for (const e of body.errors ?? []) {
    expect(typeof e.extensions?.code, text.slice(0, 300)).toBe('string');
    expect(e.extensions.code).not.toBe('INTERNAL');
  }
  return { status: res.status, body };
}
const rows = async () => ({
  orders: await app.db.prisma.order.count(),
  collections: await app.db.prisma.collection.count(),
  marketData: await app.db.prisma.globalMarketData.count(),
});

const GET_ROUTES: Record<string, string[]> = {
  '/api/v1/orders': ['isOrderAsk', 'collection', 'tokenId', 'signer', 'strategy', 'currency', 'nonce', 'price', 'startTime', 'endTime', 'status', 'sort', 'pagination'],
  '/api/v1/orders/nonce': ['address'],
  '/api/v1/collections': ['address'],
  '/api/v1/collections/stats': ['address'],
  '/api/v1/collections/listing-rewards': [],
};

function rawText(v: unknown): string {
  try {
    return String(v);
  } catch {
    return JSON.stringify(v) ?? '';
  }
}

describe(`API fuzz (${backendName}, ${RUNS} runs per property${LONG ? ', long mode' : ''})`, () => {
  it('GET routes: any parameters, bracket-style or JSON-encoded', async () => {
    const route = fc.constantFrom(...Object.keys(GET_ROUTES));
    const query = route.chain((r) =>
      fc.tuple(
        fc.constant(r),
        fc.dictionary(fc.oneof(fc.constantFrom(...(GET_ROUTES[r]!.length ? GET_ROUTES[r]! : ['x'])), fc.string({ maxLength: 10 })), anyValue, { maxKeys: 6 }),
        fc.constantFrom('brackets', 'json', 'raw'),
      ),
    );
    await fc.assert(
      fc.asyncProperty(query, async ([path, q, style]) => {
        let search = '';
        const asJson = () => Object.entries(q).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(JSON.stringify(v) ?? '')}`).join('&');
        if (style === 'brackets') {
          try {
            search = qs.stringify(q, { arrayFormat: 'brackets', allowDots: false });
          } catch {
            search = asJson(); // qs itself recurses too deep on the deepest values
          }
        } else if (style === 'json') search = Object.entries(q).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(JSON.stringify(v) ?? '')}`).join('&');
        // String() throws on an object whose generated `toString` key is not a function: such a value is sent as JSON
        else search = Object.entries(q).map(([k, v]) => `${k}=${rawText(v)}`).join('&');
        await restCall(`${path}?${search.slice(0, 20_000)}`);
      }),
      params,
    );
  }, timeout);

  it('POST /orders and /orders/validate: a valid order with fields replaced, added or removed', async () => {
    const fields = Object.keys({ ...validOrder, hash: 1, status: 1, collectionAddress: 1 });
    const mutation = fc.tuple(
      fc.constantFrom('/api/v1/orders', '/api/v1/orders/validate'),
      fc.dictionary(fc.constantFrom(...fields), fc.option(anyValue, { nil: undefined }), { minKeys: 1, maxKeys: 4 }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async ([path, over]) => {
        const before = await rows();
        const body = { ...validOrder, ...over, nonce: over.nonce ?? String(1000 + Math.floor(Math.random() * 1e9)) };
        const res = await restCall(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const after = await rows();
        if (res.status !== 201) expect(after).toEqual(before);
        else expect(after.orders).toBe(before.orders + 1);
      }),
      params,
    );
  }, timeout);

  it('POST bodies that are not orders: any JSON, broken JSON, wrong content types', async () => {
    const body = fc.oneof(
      anyValue.map((v) => JSON.stringify(v) ?? 'undefined'),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('', '{', '[', '{"a":', 'null', '"x"', '{"__proto__":{"polluted":1}}', '\u0000', '\uFEFF{}'),
    );
    const req = fc.tuple(
      fc.constantFrom('/api/v1/orders', '/api/v1/orders/validate', '/api/v1/orders/nonce', '/api/v1/collections', '/api/v1', '/api/v1/nope'),
      fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'GET'),
      body,
      fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
    );
    await fc.assert(
      fc.asyncProperty(req, async ([path, method, text, type]) => {
        const before = await rows();
        const init: RequestInit = { method, headers: type ? { 'content-type': type } : {} };
        if (method !== 'GET') init.body = text;
        const res = await restCall(path, init);
        if (res.status !== 201) expect(await rows()).toEqual(before);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      params,
    );
  }, timeout);

  it('GraphQL reads: any variables', async () => {
    const docs = [
      'query($address: Address!) { collection(address: $address) { name stats { floorPrice volumeAll } } }',
      'query($address: Address!) { collectionStats(address: $address) { floorPrice countAll } }',
      'query($address: Address!) { nonce(address: $address) }',
      'query($hash: Hash!) { order(hash: $hash) { hash status } }',
      'query($first: Int, $last: Int, $after: String, $before: String, $filter: OrderFilterInput, $sort: OrderSort) { orders(first: $first, last: $last, after: $after, before: $before, filter: $filter, sort: $sort) { edges { cursor node { hash price } } pageInfo { hasNextPage endCursor } } }',
      '{ listingRewards { points collection { name } } }',
    ];
    const names = ['address', 'hash', 'first', 'last', 'after', 'before', 'filter', 'sort'];
    const filter = fc.dictionary(
      fc.constantFrom('collection', 'currency', 'endTime', 'isOrderAsk', 'nonce', 'price', 'signer', 'startTime', 'status', 'strategy', 'tokenId', 'other'),
      anyValue,
      { maxKeys: 5 },
    );
    const vars = fc.dictionary(fc.constantFrom(...names), fc.oneof(anyValue, filter), { maxKeys: 6 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...docs), vars, async (doc, v) => {
        await gqlCall(doc, v);
      }),
      params,
    );
  }, timeout);

  it('GraphQL order mutations: createOrder, createOrders and validateOrder with mutated inputs', async () => {
    const fields = Object.keys(validOrder);
    const mutated = fc.dictionary(fc.constantFrom(...fields, 'extra'), fc.option(anyValue, { nil: undefined }), { minKeys: 1, maxKeys: 4 }).map((over) => ({
      ...validOrder,
      ...over,
      nonce: over.nonce ?? String(2_000_000_000 + Math.floor(Math.random() * 1e9)),
    }));
    const call = fc.oneof(
      mutated.map((input) => ['mutation($input: MakerOrderInput!) { createOrder(input: $input) { __typename ... on OrderRejected { code problems { code field } } } }', { input }] as const),
      mutated.map((input) => ['query($input: MakerOrderInput!) { validateOrder(input: $input) { valid problems { code field } } }', { input }] as const),
      fc.array(mutated, { maxLength: 3 }).map((inputs) => ['mutation($inputs: [MakerOrderInput!]!) { createOrders(inputs: $inputs) { __typename } }', { inputs }] as const),
      anyValue.map((input) => ['mutation($input: MakerOrderInput!) { createOrder(input: $input) { __typename } }', { input }] as const),
    );
    await fc.assert(
      fc.asyncProperty(call, async ([doc, v]) => {
        const before = await rows();
        const res = await gqlCall(doc, v);
        const created = JSON.stringify(res.body.data ?? {}).match(/CreateOrderSuccess/g)?.length ?? 0;
        const after = await rows();
        expect(after.orders).toBe(before.orders + created);
        expect(after.collections).toBe(before.collections);
      }),
      params,
    );
  }, timeout);

  it('GraphQL admin mutations: upsertCollection and upsertMarketData, with and without the key', async () => {
    const collectionInput = fc.record(
      {
        address: fc.oneof(fc.constant(COLLECTION), fc.constant('0x' + 'c3'.repeat(20)), anyValue),
        name: fc.oneof(fc.string({ maxLength: 40 }), anyValue),
        type: fc.oneof(fc.constantFrom('ERC721', 'ERC1155'), anyValue),
        websiteLink: anyValue,
        logoURI: anyValue,
        isVerified: anyValue,
      },
      { requiredKeys: [] },
    );
    const marketInput = fc.array(
      fc.record({ collection: fc.oneof(fc.constant(COLLECTION), anyValue), floorGlobal: anyValue, volume24hGlobal: anyValue, observedAt: anyValue }, { requiredKeys: [] }),
      { maxLength: 3 },
    );
    const call = fc.tuple(
      fc.oneof(
        collectionInput.map((input) => ['mutation($input: UpsertCollectionInput!) { upsertCollection(input: $input) { __typename } }', { input }, 'upsertCollection'] as const),
        marketInput.map((input) => ['mutation($input: [MarketDataInput!]!) { upsertMarketData(input: $input) { __typename } }', { input }, 'upsertMarketData'] as const),
      ),
      fc.constantFrom(ADMIN_KEY, 'wrong-key', null),
    );
    await fc.assert(
      fc.asyncProperty(call, async ([[doc, v, field], key]) => {
        const before = await rows();
        const res = await gqlCall(doc, v, key ? { 'x-api-key': key } : {});
        const ok = res.body.data?.[field] != null && !res.body.errors?.length;
        if (!ok || key !== ADMIN_KEY) expect(await rows()).toEqual(before);
      }),
      params,
    );
  }, timeout);

  it('GraphQL documents and request shapes: any query text, operation name and extensions', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{', '{ __typename', 'query { orders(first: 99999999999) { edges { cursor } } }', '{ orders(first: -1) { edges { cursor } } }', '{ a: __typename b: __typename }', 'subscription { sales { txHash } }', 'mutation { __typename }'),
      fc.integer({ min: 1, max: 2000 }).map((n) => `{ ${'orders(first: 1) { edges { node { collection { '.repeat(Math.min(n, 60))} }`),
      fc.integer({ min: 1, max: 5000 }).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`),
    );
    const body = fc.record({ query: fc.oneof(text, anyValue), variables: anyValue, operationName: anyValue, extensions: anyValue }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await app.yoga.fetch('http://fuzz/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(b) });
        const raw = await res.text();
        expect(res.status, `${JSON.stringify(b).slice(0, 300)} -> ${raw.slice(0, 300)}`).toBeLessThan(500);
        const parsed = JSON.parse(raw);
        for (const e of parsed.errors ?? []) {
          expect(typeof e.extensions?.code, raw.slice(0, 300)).toBe('string');
          expect(e.extensions.code).not.toBe('INTERNAL');
        }
      }),
      params,
    );
  }, timeout);

  it(`runs ${PROPERTIES} properties (${PROPERTIES * RUNS} generated requests)`, () => {
    if (LONG) expect(PROPERTIES * RUNS).toBeGreaterThanOrEqual(10_000);
  });
});
