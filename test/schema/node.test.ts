// Global object identification: every entity type's `id` fetches the same object again through
// node(id:) and nodes(ids:), whichever path rendered it (the read engine or the resolvers); an id
// this API never issued answers null; and Apollo Client's default cache keeps one entry per
// object, so queries of different shapes over the same objects lose nothing and warn nothing.
import { format } from 'node:util';
import type { GraphQLInterfaceType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { MAX_NODE_IDS } from '../../src/schema/node.js';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 24);
  await app.db.sql.query(
    `INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash, strategy, is_taker_ask, block_number, tx_hash, log_index, timestamp)
     SELECT (ARRAY[$1, $2])[1 + g % 2], g, 1, g::numeric * 1000000000000000, $3, $3, $1, NULL, NULL, g % 2 = 0, 1000 + g,
            '0x' || lpad(to_hex(g / 2), 64, '0'), 1000 + g % 2, to_timestamp(${NOW} - g * 60)
       FROM generate_series(1, 6) g`,
    [fixtureCollections[0], fixtureCollections[1], fixtureCollections[0]!.toLowerCase()],
  );
});
afterAll(() => app?.close());

/** A query answered with no errors. */
async function data<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await app.gql(query, variables);
  expect(res.errors, query).toBeUndefined();
  return res.data as T;
}

const ORDER_FIELDS = 'id hash price status collection { id address }';
const COLLECTION_FIELDS = 'id address name symbol';
const STATS_FIELDS = 'id address countAll floorPrice';
const SALE_FIELDS = 'id txHash logIndex price buyer';
const AS_NODE = `__typename ... on Order { ${ORDER_FIELDS} } ... on Collection { ${COLLECTION_FIELDS} } ... on CollectionStats { ${STATS_FIELDS} } ... on Sale { ${SALE_FIELDS} }`;

/** One object of each entity type per list, read the usual way (connections, the engine's path). */
async function listed() {
  const d = await data(`{
    orders(first: 10) { edges { node { __typename ${ORDER_FIELDS} } } }
    collections(first: 10) { edges { node { __typename ${COLLECTION_FIELDS} stats { __typename ${STATS_FIELDS} } } } }
    sales(first: 10) { edges { node { __typename ${SALE_FIELDS} } } }
  }`);
  const orders = d.orders.edges.map((e: any) => e.node);
  const collections = d.collections.edges.map((e: any) => {
    const { stats: _stats, ...c } = e.node;
    return c;
  });
  const stats = d.collections.edges.map((e: any) => e.node.stats);
  const sales = d.sales.edges.map((e: any) => e.node);
  return { orders, collections, stats, sales, all: [...orders, ...collections, ...stats, ...sales] };
}

describe(`global ids (${backendName})`, () => {
  it('are base64 of Type:key, the key being the hash, the address, or the log of a sale', async () => {
    const { orders, collections, stats, sales } = await listed();
    expect(orders.length).toBe(10);
    expect(collections.length).toBe(2);
    expect(sales.length).toBe(6);
    for (const o of orders) expect(o.id).toBe(b64(`Order:${o.hash}`));
    for (const c of collections) expect(c.id).toBe(b64(`Collection:${c.address}`));
    for (const s of stats) expect(s.id).toBe(b64(`CollectionStats:${s.address}`));
    for (const s of sales) expect(s.id).toBe(b64(`Sale:${s.txHash}:${s.logIndex}`));
    // long keys: PostgreSQL's base64 breaks lines at 76 characters, an id never holds one
    expect(sales[0].id.length).toBeGreaterThan(76);
  });

  it('are the same from the read engine and from the resolvers', async () => {
    const query = `{ orders(first: 5) { edges { node { ... on Node { id } collection { ... on Node { id } } } } } sales(first: 3) { edges { node { ...n } } } }
      fragment n on Node { id }`;
    const engine = await data(query);
    app.services.deps.config.readEngine = false;
    try {
      expect(await data(query)).toEqual(engine);
    } finally {
      app.services.deps.config.readEngine = true;
    }
    expect(engine.orders.edges[0].node.id).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('round-trip every entity type through node(id:) and nodes(ids:)', async () => {
    const { all } = await listed();
    const byNodes = await data(`query($ids: [ID!]!) { nodes(ids: $ids) { ${AS_NODE} } }`, { ids: all.map((o) => o.id) });
    expect(byNodes.nodes).toEqual(all);
    for (const typename of ['Order', 'Collection', 'CollectionStats', 'Sale']) {
      const one = all.find((o) => o.__typename === typename)!;
      const byNode = await data(`query($id: ID!) { node(id: $id) { ${AS_NODE} } }`, { id: one.id });
      expect(byNode.node, typename).toEqual(one);
    }
  });

  it('answer null for an id this API never issued, and keep the others in nodes(ids:)', async () => {
    const { orders, collections } = await listed();
    const hash = orders[0].hash as string;
    const unknown = [
      'not base64!',
      '',
      b64('Order'),
      b64(`Order:0x${'0'.repeat(64)}`), // well formed, no such order
      b64(`Order:${hash.toUpperCase().replace('0X', '0x')}`), // another spelling of a known key
      b64(`Collection:${collections[0].address}`).replace(/=+$/, ''), // unpadded (53 bytes: one '=')
      b64(`Nope:${hash}`),
      b64(`PageInfo:${hash}`), // a type that is not a Node
      b64(`Collection:${collections[0].address.toLowerCase()}`),
      b64(`Sale:${hash}:99999999999`),
      b64('CollectionStats:0x000000000000000000000000000000000000dEaD'), // well formed, no such collection
      b64(`Sale:0x${'ab'.repeat(32)}:0`), // well formed, no such sale
      b64('Sale:1'),
    ];
    for (const id of unknown) {
      const res = await app.gql(`query($id: ID!) { node(id: $id) { id } }`, { id });
      expect({ id, status: res.status, errors: res.errors, data: res.data }).toEqual({ id, status: 200, errors: undefined, data: { node: null } });
    }
    const mixed = [orders[0].id, ...unknown, collections[0].id];
    const res = await data(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: mixed });
    expect(res.nodes).toEqual([{ id: orders[0].id }, ...unknown.map(() => null), { id: collections[0].id }]);
    // a literal id of another GraphQL kind is still an ID: an integer is an id no object has
    expect(await data(`{ node(id: 42) { id } }`)).toEqual({ node: null });
  });

  it(`refuse more than ${MAX_NODE_IDS} ids at once as a bad request`, async () => {
    const res = await app.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: Array.from({ length: MAX_NODE_IDS + 1 }, (_, i) => b64(`Nope:${i}`)) });
    expect(res.data).toBeNull();
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(res.errors?.[0]?.message).toBe(`Invalid argument ids: at most ${MAX_NODE_IDS} ids`);
  });
});

// ---- Apollo Client --------------------------------------------------------------------------

describe(`Apollo Client's default cache (${backendName})`, () => {
  type Apollo = typeof import('@apollo/client');
  let apollo: Apollo;
  const warnings: string[] = [];
  const restore: (() => void)[] = [];

  beforeAll(async () => {
    // Apollo's development checks (where "Cache data may be lost" lives) are on only when
    // __DEV__ is set before it loads; its messages are codes unless the dev messages are loaded.
    (globalThis as { __DEV__?: boolean }).__DEV__ = true;
    apollo = await import('@apollo/client');
    const dev = await import('@apollo/client/dev');
    dev.loadDevMessages();
    dev.loadErrorMessages();
    for (const level of ['warn', 'error', 'log', 'debug'] as const) {
      const original = console[level];
      console[level] = (...args: unknown[]) => void warnings.push(format(...args));
      restore.push(() => (console[level] = original));
    }
  });
  afterAll(() => restore.forEach((r) => r()));

  function client(cacheOptions: ConstructorParameters<Apollo['InMemoryCache']>[0] = {}) {
    const link = new apollo.HttpLink({ uri: 'http://test/graphql', fetch: (async (input: string, init: RequestInit) => app.yoga.fetch(input, init)) as typeof fetch });
    return new apollo.ApolloClient({ link, cache: new apollo.InMemoryCache(cacheOptions) });
  }
  const query = async (c: ReturnType<typeof client>, text: string, variables?: Record<string, unknown>) => {
    const res = await c.query({ query: apollo.gql(text), variables, fetchPolicy: 'network-only' });
    expect(res.error, text).toBeUndefined();
    return res.data as any;
  };

  it('warns about an object without an id read in two shapes (the check is live)', async () => {
    warnings.length = 0;
    const c = client();
    await query(c, '{ indexerStatus { chainId } }');
    await query(c, '{ indexerStatus { confirmations } }');
    expect(warnings.join('\n')).toContain('Cache data may be lost when replacing the indexerStatus field of a Query object');
  });

  it('keeps one entry per object across queries of different shapes, and warns about nothing', async () => {
    warnings.length = 0;
    const c = client();
    const address = fixtureCollections[0]!;
    const first = await query(c, 'query($a: Address!) { collection(address: $a) { id name } }', { a: address });
    await query(c, 'query($a: Address!) { collection(address: $a) { id symbol stats { id floorPrice countAll } } }', { a: address });
    await query(c, 'query($a: Address!) { collection(address: $a) { id isVerified stats { id volumeAll } topBid { id price } } }', { a: address });
    const page = await query(c, '{ orders(first: 6) { edges { node { id hash price collection { id name } } } } }');
    await query(c, '{ orders(first: 6, sort: PRICE_ASC) { edges { node { id status collection { id owner stats { id totalSupply } } } } } }');
    const hash = page.orders.edges[0].node.hash;
    await query(c, 'query($h: Hash!) { order(hash: $h) { id nonce signer collection { id type } } }', { h: hash });
    const sales = await query(c, '{ sales(first: 4) { edges { node { id price collection { id name } } } } }');
    await query(c, 'query($id: ID!) { node(id: $id) { id ... on Sale { txHash buyer } } }', { id: sales.sales.edges[0].node.id });
    await query(c, 'query($id: ID!) { node(id: $id) { id ... on Collection { websiteLink } } }', { id: first.collection.id });
    await query(c, 'query($id: ID!) { node(id: $id) { id ... on Order { amount } } }', { id: page.orders.edges[1].node.id });
    expect(warnings).toEqual([]);

    const cache = c.cache.extract() as Record<string, Record<string, unknown>>;
    const entries = Object.keys(cache).filter((k) => k !== 'ROOT_QUERY');
    // every entry is an entity under its own id, once
    for (const key of entries) expect(key).toBe(`${cache[key]!.__typename}:${cache[key]!.id}`);
    expect(new Set(entries).size).toBe(entries.length);
    // the collection read six ways is one entry holding every field any of them read
    const collection = cache[`Collection:${first.collection.id}`]!;
    for (const f of ['name', 'symbol', 'isVerified', 'owner', 'type', 'websiteLink']) expect(collection, f).toHaveProperty(f);
    expect(collection.stats).toEqual({ __ref: `CollectionStats:${b64(`CollectionStats:${address}`)}` });
    const stats = cache[`CollectionStats:${b64(`CollectionStats:${address}`)}`]!;
    for (const f of ['floorPrice', 'countAll', 'volumeAll', 'totalSupply']) expect(stats, f).toHaveProperty(f);
    const order = cache[`Order:${b64(`Order:${hash}`)}`]!;
    for (const f of ['price', 'nonce', 'signer']) expect(order, f).toHaveProperty(f);
    expect(entries.filter((k) => k.startsWith('Collection:')).length).toBeLessThanOrEqual(2);
    c.stop();
  });

  it('reads objects of several types from nodes(ids:) with the possibleTypes of Node, as Apollo asks for any interface', async () => {
    // Apollo cannot tell on its own that `... on Order` never applies to a Collection: it asks for
    // the interface's implementations (possibleTypes, generated from the schema).
    const node = schema.getType('Node') as GraphQLInterfaceType;
    const c = client({ possibleTypes: { Node: schema.getPossibleTypes(node).map((t) => t.name) } });
    warnings.length = 0;
    const { all } = await listed();
    const text = `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Collection { name } ... on Order { amount } ... on Sale { price } ... on CollectionStats { countAll } } }`;
    const first = await query(c, text, { ids: all.map((o) => o.id) });
    expect(first.nodes.map((n: { id: string }) => n.id)).toEqual(all.map((o) => o.id));
    await query(c, text.replace('{ name }', '{ symbol }').replace('{ amount }', '{ nonce }'), { ids: all.map((o) => o.id) });
    expect(warnings).toEqual([]);
    const entries = Object.keys(c.cache.extract() as Record<string, unknown>).filter((k) => k !== 'ROOT_QUERY');
    expect(entries.sort()).toEqual(all.map((o) => `${o.__typename}:${o.id}`).sort());
    c.stop();
  });
});
