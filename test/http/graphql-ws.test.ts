// GraphQL over WebSocket (graphql-transport-ws) on /graphql beside SSE, with the clients
// integration teams use: the graphql-ws client and Apollo Client's GraphQLWsLink. An order event
// arrives after its REST 201, through one instance and across two instances sharing Redis (the
// latency is printed, not asserted); queries and mutations run over the socket under the same
// keys, limits and error codes as over HTTP; a drain completes subscriptions and closes sockets
// with 1001, and refuses new ones.
import { ApolloClient, gql, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Wallet } from 'ethers';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { listen, type ListeningApp } from '../helpers/listening-app.js';
import { spawnServerProcess } from '../helpers/server-process.js';
import { signWithEthers6, type MakerOrderBody } from '../helpers/maker-orders.js';
import { redisServerMissing, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const COLLECTION = '0x' + 'c7'.repeat(20);
const ADMIN_KEY = 'admin-key-0123456789';
const WRITE_KEY = 'write-key-0123456789';
const ORDER_EVENTS = 'subscription($s: Address) { orderEvents(filter: { signer: $s }) { kind hash signer newStatus } }';
/** how long a new subscription takes to be listening on the server (and on Redis), as the SSE tests allow */
const SETTLE_MS = 300;

const randomWallet = () => new Wallet(Wallet.createRandom().privateKey);

const started: { app: TestApp; server: ListeningApp }[] = [];
const clients: Client[] = [];
const children: ReturnType<typeof spawnServerProcess>[] = [];
afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  for (const c of clients) await c.dispose();
  for (const { app, server } of started) {
    await server.close();
    await app.close();
  }
});

async function instance(env: Record<string, string> = {}) {
  const app = await startTestApp(env);
  const server = await listen(app);
  started.push({ app, server });
  await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721' });
  return { app, server };
}

function wsClient(server: ListeningApp, connectionParams?: Record<string, unknown>, opts: Partial<Parameters<typeof createClient>[0]> = {}) {
  // one socket for the operations of a test (lazy: opened by the first, kept open a while after the last)
  const client = createClient({ url: server.wsUrl, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazyCloseTimeout: 5000, ...opts });
  clients.push(client);
  return client;
}

/** One operation over the socket: its single result, or the error message's GraphQL errors. */
function run(client: Client, query: string, variables?: Record<string, unknown>, extensions?: Record<string, unknown>): Promise<ExecutionResult<any>> {
  return new Promise((resolve, reject) => {
    let result: ExecutionResult<any> | undefined;
    client.subscribe(
      { query, variables, ...(extensions ? { extensions } : {}) },
      {
        next: (r) => (result = r as ExecutionResult<any>),
        error: (err) => (Array.isArray(err) ? resolve({ errors: err }) : reject(err)),
        complete: () => resolve(result!),
      },
    );
  });
}

/** Values as they arrive, with their arrival time. */
function collect<T>() {
  const seen: { value: T; at: number }[] = [];
  let wake = () => {};
  return {
    seen,
    push(value: T) {
      seen.push({ value, at: performance.now() });
      wake();
    },
    async first(timeoutMs = 5000): Promise<{ value: T; at: number }> {
      const deadline = Date.now() + timeoutMs;
      while (!seen.length) {
        if (Date.now() > deadline) throw new Error('no event before the timeout');
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      return seen[0]!;
    },
  };
}

let nonce = 0;
async function submitOrder(server: ListeningApp, app: TestApp, wallet: Wallet) {
  const net = app.config.network;
  const order: MakerOrderBody = {
    isOrderAsk: true, signer: wallet.address, collection: COLLECTION, price: '1000', tokenId: String(++nonce), amount: '1',
    strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: String(nonce), startTime: NOW - 10, endTime: NOW + 3600,
    minPercentageToAsk: 9800, params: [],
  };
  const body = await signWithEthers6(wallet, net.chainId, net.exchange, order);
  const sent = performance.now();
  const res = await fetch(`${server.url}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-looks-api-key': WRITE_KEY }, body: JSON.stringify(body) });
  const answered = performance.now();
  const json = (await res.json()) as { data: { hash: string } };
  expect(res.status, JSON.stringify(json)).toBe(201);
  return { hash: json.data.hash, sent, answered };
}

function report(label: string, event: number, order: { sent: number; answered: number }) {
  const after201 = event - order.answered;
  console.log(`${label}: event ${after201 >= 0 ? `${after201.toFixed(1)} ms after` : `${(-after201).toFixed(1)} ms before`} the 201 (${(event - order.sent).toFixed(1)} ms after the POST was sent)`);
}

async function viaGraphqlWs(subscriber: ListeningApp, creator: ListeningApp, creatorApp: TestApp, label: string) {
  const wallet = randomWallet();
  const events = collect<any>();
  const client = wsClient(subscriber);
  const done = new Promise<void>((resolve, reject) =>
    client.subscribe({ query: ORDER_EVENTS, variables: { s: wallet.address } }, { next: (r) => events.push(r.data!.orderEvents), error: reject, complete: resolve }),
  );
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const order = await submitOrder(creator, creatorApp, wallet);
  const { value, at } = await events.first();
  expect(value).toEqual({ kind: 'CREATED', hash: order.hash, signer: wallet.address, newStatus: 'VALID' });
  report(label, at, order);
  await client.dispose();
  await done;
}

async function viaApollo(subscriber: ListeningApp, creator: ListeningApp, creatorApp: TestApp, label: string) {
  const wallet = randomWallet();
  const events = collect<any>();
  const apollo = new ApolloClient({ link: new GraphQLWsLink(wsClient(subscriber)), cache: new InMemoryCache() });
  const sub = apollo.subscribe({ query: gql(ORDER_EVENTS), variables: { s: wallet.address } }).subscribe({
    next: (r) => events.push((r.data as { orderEvents?: unknown } | undefined)?.orderEvents),
    error: (err) => events.push({ error: String(err) }),
  });
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const order = await submitOrder(creator, creatorApp, wallet);
    const { value, at } = await events.first();
    expect(value).toMatchObject({ kind: 'CREATED', hash: order.hash, signer: wallet.address, newStatus: 'VALID' });
    report(label, at, order);
  } finally {
    sub.unsubscribe();
    apollo.stop();
  }
}

describe(`GraphQL over WebSocket, one instance (${backendName})`, () => {
  let one: { app: TestApp; server: ListeningApp };
  beforeAll(async () => {
    one = await instance({ ADMIN_API_KEY: ADMIN_KEY, WRITE_API_KEYS: WRITE_KEY, MAX_QUERY_DEPTH: '4' });
  });

  it('graphql-ws client: an order event after its REST 201', async () => {
    await viaGraphqlWs(one.server, one.server, one.app, 'graphql-ws, one instance');
  });

  it("Apollo Client's GraphQLWsLink: an order event after its REST 201", async () => {
    await viaApollo(one.server, one.server, one.app, 'Apollo GraphQLWsLink, one instance');
  });

  it('queries and mutations over the socket, with the keys taken from connection_init as from headers', async () => {
    const address = '0x' + 'ab'.repeat(20);
    const upsert = `mutation { upsertCollection(input: { address: "${address}", type: ERC721, owner: "${address}" }) { created } }`;
    const anonymous = wsClient(one.server);
    expect((await run(anonymous, '{ __typename }')).data).toEqual({ __typename: 'Query' });
    expect((await run(anonymous, upsert)).errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect((await run(wsClient(one.server, { 'x-api-key': 'wrong-key-0123456789' }), upsert)).errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN' });
    const admin = wsClient(one.server, { 'X-Api-Key': ADMIN_KEY });
    expect(await run(admin, upsert)).toEqual({ data: { upsertCollection: { created: true } } });
    // the same key nested under `headers`, as some clients send it
    expect(await run(wsClient(one.server, { headers: { 'x-api-key': ADMIN_KEY } }), upsert)).toEqual({ data: { upsertCollection: { created: false } } });

    // an order write needs a write key here (WRITE_API_KEYS): refused without it, accepted with it
    const wallet = randomWallet();
    const net = one.app.config.network;
    const signed = await signWithEthers6(wallet, net.chainId, net.exchange, {
      isOrderAsk: true, signer: wallet.address, collection: COLLECTION, price: '1000', tokenId: '1', amount: '1', strategy: net.strategies.standardSale[0]!,
      currency: net.weth, nonce: '0', startTime: NOW - 10, endTime: NOW + 3600, minPercentageToAsk: 9800, params: [],
    });
    const create = 'mutation($input: MakerOrderInput!) { createOrder(input: $input) { __typename ... on CreateOrderSuccess { order { hash } } } }';
    expect((await run(anonymous, create, { input: signed })).errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    const writer = await run(wsClient(one.server, { 'x-looks-api-key': WRITE_KEY }), create, { input: signed });
    expect(writer.errors, JSON.stringify(writer.errors)).toBeUndefined();
    expect(writer.data.createOrder.__typename).toBe('CreateOrderSuccess');
  });

  it('the same errors, codes and limits as over HTTP (no HTTP status inside them)', async () => {
    const client = wsClient(one.server);
    for (const [query, code] of [
      ['{ orders(', 'GRAPHQL_PARSE_FAILED'],
      ['{ nope }', 'GRAPHQL_VALIDATION_FAILED'],
      ['{ collection(address: "nope") { name } }', 'BAD_USER_INPUT'],
      ['{ orders(first: 1000) { totalCount } }', 'BAD_REQUEST'],
      // MAX_QUERY_DEPTH=4 here
      ['{ orders(first: 1) { edges { node { collection { stats { floorPrice } } } } } }', 'QUERY_TOO_COMPLEX'],
    ] as const) {
      const r = await run(client, query);
      const over = await one.app.gql(query);
      expect([query, r.errors?.map((e) => e.extensions?.code)]).toEqual([query, [code]]);
      expect(r.errors!.map((e) => e.message)).toEqual(over.errors!.map((e) => e.message));
      expect(JSON.stringify(r.errors)).not.toContain('"http"');
    }
    const bad = await run(client, 'query($a: Address!) { collection(address: $a) { name } }', { a: 'nope' });
    expect(bad.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', problems: [{ field: '$a', code: 'INVALID_ADDRESS' }] } });
  });

  it('ping/pong: the server answers a client ping', async () => {
    const pongs: number[] = [];
    const client = wsClient(one.server, undefined, { keepAlive: 100, on: { pong: (received) => received && pongs.push(performance.now()) } });
    expect((await run(client, '{ __typename }')).data).toEqual({ __typename: 'Query' });
    const open = new Promise<void>((resolve) =>
      client.subscribe({ query: ORDER_EVENTS, variables: { s: randomWallet().address } }, { next: () => {}, error: () => resolve(), complete: () => resolve() }),
    );
    while (pongs.length < 2) await new Promise((r) => setTimeout(r, 50));
    await client.dispose();
    await open;
  });

  it('refuses an upgrade elsewhere than /graphql, and a socket without the graphql-transport-ws subprotocol', async () => {
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(one.server.wsUrl.replace('/graphql', '/api/v1/orders'), 'graphql-transport-ws');
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
      ws.on('open', () => resolve(101));
    });
    expect(refused).toBe(404);
    const code = await new Promise<number>((resolve) => {
      const ws = new WebSocket(one.server.wsUrl);
      ws.on('close', (c) => resolve(c));
    });
    expect(code).toBe(4406);
  });

  it('queries and mutations carry extensions.indexedBlock and may wait for a block in their extensions; subscription events carry none', async () => {
    /** What an indexer batch does: its effects and the cursor, in one transaction (as test/http/consistency.test.ts). */
    const commitBatch = (block: number, name?: string) =>
      one.app.db.sql.exec(
        (name ? `UPDATE collections SET name = '${name}' WHERE lower(address) = '${COLLECTION}';\n` : '') +
          `INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash) VALUES ('main', ${one.app.config.network.chainId}, ${block}, '0x${block.toString(16).padStart(64, '0')}')
           ON CONFLICT (stream) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash;`,
      );
    const client = wsClient(one.server);
    const admin = wsClient(one.server, { 'x-api-key': ADMIN_KEY });
    const wallet = randomWallet();
    const events: unknown[] = [];
    const subscribed = new Promise<void>((resolve, reject) =>
      client.subscribe({ query: ORDER_EVENTS, variables: { s: wallet.address } }, { next: (r) => events.push(r), error: reject, complete: resolve }),
    );
    // nothing indexed yet: nothing to say, as over HTTP
    expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });

    await commitBatch(500);
    await one.app.services.indexedBlock.refresh();
    expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' }, extensions: { indexedBlock: 500 } });
    const upsert = `mutation { upsertCollection(input: { address: "${'0x' + 'cd'.repeat(20)}", type: ERC721 }) { created } }`;
    expect(await run(admin, upsert)).toEqual({ data: { upsertCollection: { created: true } }, extensions: { indexedBlock: 500 } });
    const refused = await run(client, '{ orders(first: 1000) { totalCount } }');
    expect(refused).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }], extensions: { indexedBlock: 500 } });

    // a read asking for a later block waits until a batch commits it, then shows the batch
    const pending = run(client, `{ collection(address: "${COLLECTION}") { name } }`, undefined, { minBlock: 501 });
    await new Promise((r) => setTimeout(r, 150));
    await commitBatch(501, 'Renamed at 501');
    expect(await pending).toEqual({ data: { collection: { name: 'Renamed at 501' } }, extensions: { indexedBlock: 501, consistency: { minBlock: 501, reached: true } } });
    // past its bound it is answered with what is indexed, and says so
    expect(await run(client, '{ __typename }', undefined, { minBlock: 600, maxWaitMs: 100 })).toEqual({
      data: { __typename: 'Query' },
      extensions: { indexedBlock: 501, consistency: { minBlock: 600, reached: false } },
    });
    const bad = await run(client, '{ __typename }', undefined, { minBlock: 'soon' });
    expect(bad.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST', problems: [{ field: 'extensions.minBlock', code: 'INVALID_NUMBER' }] } });
    expect(JSON.stringify(bad.errors)).not.toContain('"http"');

    // a subscription's events are not stamped
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const order = await submitOrder(one.server, one.app, wallet);
    while (!events.length) await new Promise((r) => setTimeout(r, 50));
    expect(events[0]).toEqual({ data: { orderEvents: { kind: 'CREATED', hash: order.hash, signer: wallet.address, newStatus: 'VALID' } } });
    await client.dispose();
    await subscribed;
  });
});

describe(`GraphQL over WebSocket, limits (${backendName})`, () => {
  it('an upgrade and every operation draw from the HTTP rate budget; over it, RATE_LIMITED', async () => {
    const { server } = await instance({ RATE_LIMIT_PER_MINUTE: '4' });
    const client = wsClient(server);
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) codes.push((await run(client, '{ __typename }')).errors?.[0]?.extensions?.code as string | undefined);
    // one upgrade + three operations within the budget of 4; the fourth operation is over it
    expect(codes).toEqual([undefined, undefined, undefined, 'RATE_LIMITED']);
    const upgrade = await new Promise<number>((resolve) => {
      const ws = new WebSocket(server.wsUrl, 'graphql-transport-ws');
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
      ws.on('open', () => resolve(101));
    });
    expect(upgrade).toBe(429);
  });

  it('with GRAPHQL_PERSISTED_ONLY only listed operations run over the socket too', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = `${mkdtempSync(`${tmpdir()}/mkt-ws-`)}/operations.json`;
    writeFileSync(file, JSON.stringify({ typename: '{ __typename }' }));
    const { server } = await instance({ GRAPHQL_PERSISTED_OPERATIONS: file, GRAPHQL_PERSISTED_ONLY: 'true' });
    const client = wsClient(server);
    expect((await run(client, '{ __typename }')).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    const byId = await new Promise<unknown>((resolve, reject) => {
      let result: unknown;
      client.subscribe({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: 'typename' } } }, { next: (r) => (result = r), error: reject, complete: () => resolve(result) });
    });
    expect(byId).toEqual({ data: { __typename: 'Query' } });
  });

  it('a drain completes subscriptions, closes every socket with 1001 and refuses new connections', async () => {
    const { app, server } = await instance();
    const raw = new WebSocket(server.wsUrl, 'graphql-transport-ws');
    const messages: any[] = [];
    raw.on('message', (m) => messages.push(JSON.parse(String(m))));
    const closed = new Promise<number>((resolve) => raw.on('close', (code) => resolve(code)));
    await new Promise((r) => raw.on('open', r));
    raw.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    while (!messages.some((m) => m.type === 'connection_ack')) await new Promise((r) => setTimeout(r, 10));
    raw.send(JSON.stringify({ id: 's1', type: 'subscribe', payload: { query: 'subscription { orderEvents { hash } }' } }));
    await new Promise((r) => setTimeout(r, SETTLE_MS));

    const t0 = performance.now();
    const drained = server.drain(5000);
    await app.endSubscriptions(); // what server.ts does beside the drain
    expect(await closed).toBe(1001);
    await drained;
    console.log(`drain: subscription completed and socket closed with 1001 in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(messages.filter((m) => m.id === 's1')).toEqual([{ id: 's1', type: 'complete' }]);
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(server.wsUrl, 'graphql-transport-ws');
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
      ws.on('open', () => resolve(101));
      ws.on('error', () => resolve(0));
    });
    expect(refused).toBe(503);
  });
});

describe.skipIf(redisServerMissing)(`GraphQL over WebSocket, two instances sharing Redis (${backendName})${redisServerMissing ? ` (skipped: ${redisServerMissing})` : ''}`, () => {
  let redis: PrivateRedis;
  let a: { app: TestApp; server: ListeningApp };
  let b: { app: TestApp; server: ListeningApp };
  beforeAll(async () => {
    redis = await startPrivateRedis();
    a = await instance({ REDIS_URL: redis.url });
    b = await instance({ REDIS_URL: redis.url });
    for (const i of [a, b]) while (i.app.services.deps.events.delivery() !== 'redis') await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('graphql-ws client on one instance: the event of an order created on the other', async () => {
    await viaGraphqlWs(b.server, a.server, a.app, 'graphql-ws, across two instances (Redis)');
  });

  it("Apollo Client's GraphQLWsLink on one instance: the event of an order created on the other", async () => {
    await viaApollo(b.server, a.server, a.app, 'Apollo GraphQLWsLink, across two instances (Redis)');
  });
});

describe('the server process: SIGTERM with a WebSocket open', () => {
  it('completes the subscription, closes the socket with 1001, refuses new connections and exits 0', async () => {
    const server = spawnServerProcess(['--import', 'tsx', 'src/server.ts'], {
      ...process.env, DATABASE_URL: '', DATA_DIR: 'memory', SEED: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SIGNATURE_WORKERS: '0', SHUTDOWN_TIMEOUT_MS: '5000',
    });
    children.push(server);
    const port = await server.ready;
    const url = `ws://127.0.0.1:${port}/graphql`;
    const closes: number[] = [];
    const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {}, on: { closed: (e) => closes.push((e as { code: number }).code) } });
    clients.push(client);
    expect((await run(client, '{ __typename }')).data).toEqual({ __typename: 'Query' });
    let completed = false;
    client.subscribe({ query: 'subscription { orderEvents { hash } }' }, { next: () => {}, error: () => {}, complete: () => (completed = true) });
    await new Promise((r) => setTimeout(r, SETTLE_MS));

    const t0 = performance.now();
    server.child.kill('SIGTERM');
    while (!closes.length && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
    console.log(`SIGTERM: socket closed with ${closes[0]} after ${(performance.now() - t0).toFixed(0)} ms`);
    expect(closes).toEqual([1001]);
    expect(completed).toBe(true);
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(url, 'graphql-transport-ws');
      ws.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? err.message));
      ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.on('open', () => resolve('open'));
    });
    expect(['ECONNREFUSED', '503']).toContain(refused);
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toContain('still running');
  }, 60_000);
});
