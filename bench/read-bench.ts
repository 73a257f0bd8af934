// Read benchmark (issue 2): req/s and p50/p99 latency of GET /api/v1/orders and of the nested
// GraphQL order query, on the embedded PGlite and on PostgreSQL, over >= 100,000 orders.
//
//   npx tsx bench/read-bench.ts [--db pglite|postgres|both] [--orders 100000] [--duration 10]
//                               [--connections 8] [--warmup 2] [--pg-url postgresql://...]
//                               [--explain]
//
// Per database: a fresh database (PGlite in a temp folder / a new PostgreSQL database
// mkt_bench_<random>, dropped at the end, also on error or Ctrl-C), boot() of the real app,
// the demo seed, then bulk-inserted orders up to --orders, ANALYZE, an HTTP server on an
// ephemeral port and autocannon (in a child process, so the load generator does not share the
// server's event loop) for each scenario. Latency percentiles are exact (every response time
// is kept), req/s is 2xx responses / measured seconds. Any error, timeout, non-2xx or bad
// body fails the run. Results also go to bench/results/read-<db>-<timestamp>.json.
//
// Only a pool of 2,000 orders is signed with EIP-712 (about 1-2 ms each); the rest copy a
// pooled order's signature with other token/price/nonce/times and a recomputed order hash, so
// their signatures do not verify. That does not matter for a read benchmark. The recomputed
// hash is the same struct hash as computeOrderHash (checked against it on every 50th order).
// The generated rows are built once per process and inserted into each database with
// multi-row INSERTs (unnest of one text[] per column) through the app's SQL runner.
//
// --explain: opens the database with Prisma query logging, runs every scenario once more after
// the load and prints EXPLAIN (ANALYZE, BUFFERS) of each SQL statement it sent. Query logging
// costs time, so take numbers from a run without --explain.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SELF = fileURLToPath(import.meta.url);
const RESULTS_DIR = path.join(path.dirname(SELF), 'results');
const POOL_SIZE = 2000;
const HASH_CHECK_EVERY = 50;
const INSERT_CHUNK = 5000;

// ---------------------------------------------------------------------------------------------
// Load driver (child process): runs autocannon jobs sent by the parent.

type Kind = 'rest' | 'graphql';

interface LoadJob {
  id: number;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  kind: Kind;
  connections: number;
  duration: number;
}

interface LoadResult {
  id: number;
  seconds: number;
  responses: number;
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  autocannon: { requestsAverage: number; latencyP50: number; latencyP99: number; total: number };
}

function okBody(kind: Kind, body: string): boolean {
  if (kind === 'rest') return body.startsWith('{"success":true');
  return body.startsWith('{"data":') && !body.includes('"errors"');
}

function percentile(sorted: Float64Array, p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

async function runDriver() {
  const { default: autocannon } = await import('autocannon');
  process.on('disconnect', () => process.exit(0));
  process.on('message', (job: LoadJob) => {
    const times: number[] = [];
    const started = performance.now();
    const instance = autocannon(
      {
        url: job.url,
        method: job.method,
        headers: job.headers,
        body: job.body,
        connections: job.connections,
        duration: job.duration,
        timeout: 30,
        verifyBody: (body) => okBody(job.kind, String(body ?? '')),
      },
      (err, r) => {
        if (err) {
          process.send!({ id: job.id, error: String(err?.stack ?? err) });
          return;
        }
        const seconds = (performance.now() - started) / 1000;
        const sorted = Float64Array.from(times).sort();
        const mean = times.reduce((s, t) => s + t, 0) / (times.length || 1);
        const result: LoadResult = {
          id: job.id,
          seconds,
          responses: times.length,
          reqPerSec: r['2xx'] / seconds,
          p50: percentile(sorted, 50),
          p90: percentile(sorted, 90),
          p99: percentile(sorted, 99),
          max: sorted.length ? sorted[sorted.length - 1]! : NaN,
          mean,
          errors: r.errors,
          timeouts: r.timeouts,
          non2xx: r.non2xx,
          mismatches: r.mismatches,
          autocannon: { requestsAverage: r.requests.average, latencyP50: r.latency.p50, latencyP99: r.latency.p99, total: r.requests.total },
        };
        process.send!(result);
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      times.push(responseTime);
    });
  });
  process.send!({ ready: true });
}

class Driver {
  private child: ChildProcess;
  private nextId = 1;
  private waiting = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  private ready: Promise<void>;

  constructor() {
    this.child = fork(SELF, ['--load-driver'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.on('message', (m: { ready?: boolean; id?: number; error?: string }) => {
        if (m.ready) return resolve();
        const w = this.waiting.get(m.id!);
        if (!w) return;
        this.waiting.delete(m.id!);
        if (m.error) w.reject(new Error(`load driver: ${m.error}`));
        else w.resolve(m as LoadResult);
      });
      this.child.once('exit', (code) => {
        const e = new Error(`load driver exited (${code})`);
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      });
    });
  }

  async run(job: Omit<LoadJob, 'id'>): Promise<LoadResult> {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ ...job, id });
    });
  }

  stop() {
    if (this.child.exitCode === null && !this.child.killed) this.child.kill();
  }
}

// ---------------------------------------------------------------------------------------------
// Data set

const { prng } = await import('../src/db/prng.js');

type App = typeof import('../src/app.js');
type Services = import('../src/services/index.js').Services;
type OrderRow = Awaited<ReturnType<typeof import('../src/db/signed-order-row.js').signedOrderRow>>;

interface Generated {
  rows: OrderRow[];
  signMs: number;
  deriveMs: number;
  signed: number;
}

/**
 * `count` order rows spread over the demo collections: asks, token offers and collection
 * offers; about 74% live VALID, the rest expired by time, EXECUTED, CANCELLED or failing an
 * approval/ownership/balance check; prices on a 1% grid of each collection's floor (ties).
 * Oldest first (ids follow insertion, which NEWEST sorts by).
 */
async function generateOrders(services: Services, count: number): Promise<Generated> {
  const { exchangeDomain, computeOrderHash, MAKER_ORDER_TYPEHASH } = await import('../src/domain/maker-order.js');
  const { keccak256 } = await import('ethers');
  const { encodeParams } = await import('../src/domain/order-params.js');
  const { signedOrderRow } = await import('../src/db/signed-order-row.js');
  const { DEMO_COLLECTIONS, DEMO_WALLETS, demoCollectionAddress } = await import('../src/db/seed-demo.js');
  type MakerOrder = import('../src/domain/maker-order.js').MakerOrder;
  type Status = import('../src/domain/order-status.js').OrderStatusName;

  const network = services.deps.network;
  const domain = exchangeDomain(network.chainId, network.exchange);
  const standard = network.strategies.standardSale.at(-1)!;
  const collectionOffer = network.strategies.collectionOffer.at(-1)!;
  const collections = DEMO_COLLECTIONS.map((c, i) => ({
    ...c,
    address: demoCollectionAddress(i),
    floorWei: (BigInt(Math.round(c.floorEth * 1e6)) * 10n ** 18n) / 1_000_000n,
  }));
  const rnd = prng(424242);
  const DAY = 86_400;
  const now = Math.floor(Date.now() / 1000);
  const span = 60 * DAY;
  const emptyParams = encodeParams([]);

  /** Per global index: times and status; price and token. */
  function variant(g: number, isOrderAsk: boolean, c: (typeof collections)[number]) {
    const startTime = now - span + Math.floor((span * g) / count);
    let endTime = now + rnd.int(1, 90) * DAY;
    let status: Status = 'VALID';
    const roll = rnd.next();
    if (roll < 0.08) endTime = startTime + 1 + Math.floor((now - startTime - 2) * rnd.next()); // past: reads EXPIRED
    else if (roll < 0.14) status = 'EXECUTED';
    else if (roll < 0.2) status = 'CANCELLED';
    else if (roll < 0.23) status = isOrderAsk ? 'ERC_APPROVAL' : 'ERC20_APPROVAL';
    else if (roll < 0.26) status = isOrderAsk ? 'INVALID_OWNER' : 'ERC20_BALANCE';
    const pct = isOrderAsk ? rnd.int(100, 250) : rnd.int(40, 95);
    return {
      startTime: BigInt(startTime),
      endTime: BigInt(endTime),
      status,
      price: (c.floorWei * BigInt(pct)) / 100n,
      tokenId: BigInt(rnd.int(1, c.supply)),
      createdAt: new Date(startTime * 1000),
    };
  }

  // computeOrderHash (ethers AbiCoder) costs about 0.45 ms per order here; every field of the
  // struct is static, so abi.encode is 14 32-byte words. This equivalent is 4x faster and is
  // checked against computeOrderHash on every HASH_CHECK_EVERY-th order.
  const word = (v: bigint) => v.toString(16).padStart(64, '0');
  const addressWord = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');
  const paramsHash = new Map<string, string>();
  const orderHash = (o: MakerOrder) => {
    let ph = paramsHash.get(o.params);
    if (!ph) paramsHash.set(o.params, (ph = keccak256(o.params).slice(2)));
    return keccak256(
      '0x' + MAKER_ORDER_TYPEHASH.slice(2) + word(o.isOrderAsk ? 1n : 0n) + addressWord(o.signer) + addressWord(o.collection) +
        word(o.price) + word(o.tokenId) + word(o.amount) + addressWord(o.strategy) + addressWord(o.currency) + word(o.nonce) +
        word(o.startTime) + word(o.endTime) + word(o.minPercentageToAsk) + ph,
    );
  };
  const checkedHash = (o: MakerOrder) => {
    const h = computeOrderHash(o);
    if (orderHash(o) !== h) throw new Error(`bench order hash differs from computeOrderHash for ${JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
    return h;
  };

  const rows: OrderRow[] = [];
  const pool: { order: MakerOrder; row: OrderRow; collectionOfferOrder: boolean }[] = [];
  const poolSize = Math.min(POOL_SIZE, count);

  const t0 = performance.now();
  for (let g = 0; g < poolSize; g++) {
    const c = collections[g % collections.length]!;
    const roll = rnd.next();
    const isOrderAsk = roll < 0.6;
    const collectionOfferOrder = roll >= 0.88;
    const v = variant(g, isOrderAsk, c);
    const signer = DEMO_WALLETS[rnd.int(0, DEMO_WALLETS.length - 1)]!;
    const order: MakerOrder = {
      isOrderAsk,
      signer: signer.address,
      collection: c.address,
      price: v.price,
      tokenId: collectionOfferOrder ? 0n : v.tokenId,
      amount: c.type === 'ERC1155' && isOrderAsk ? BigInt(rnd.int(1, 5)) : 1n,
      strategy: collectionOfferOrder ? collectionOffer : standard,
      currency: network.weth,
      nonce: 1_000_000n + BigInt(g),
      startTime: v.startTime,
      endTime: v.endTime,
      minPercentageToAsk: 9800n,
      params: emptyParams,
    };
    const row = await signedOrderRow(signer, domain, order, {
      tokenId: collectionOfferOrder ? null : v.tokenId,
      status: v.status,
      createdAt: v.createdAt,
    });
    pool.push({ order, row, collectionOfferOrder });
    rows.push(row);
  }
  const signMs = performance.now() - t0;

  const t1 = performance.now();
  for (let g = poolSize; g < count; g++) {
    const base = pool[g % poolSize]!;
    const c = collections.find((x) => x.address === base.order.collection)!;
    const v = variant(g, base.order.isOrderAsk, c);
    const order: MakerOrder = {
      ...base.order,
      price: v.price,
      tokenId: base.collectionOfferOrder ? 0n : v.tokenId,
      nonce: 1_000_000n + BigInt(g),
      startTime: v.startTime,
      endTime: v.endTime,
    };
    rows.push({
      ...base.row,
      hash: g % HASH_CHECK_EVERY === 0 ? checkedHash(order) : orderHash(order),
      tokenId: base.collectionOfferOrder ? null : v.tokenId.toString(),
      price: v.price.toString(),
      nonce: order.nonce.toString(),
      startTime: v.startTime,
      endTime: v.endTime,
      status: v.status,
      createdAt: v.createdAt,
    });
  }
  return { rows, signMs, deriveMs: performance.now() - t1, signed: poolSize };
}

/** The order columns, the SQL type of each and how to read it from a row as text. */
const ORDER_COLUMNS: [column: string, sqlType: string, value: (r: OrderRow) => string | null][] = [
  ['hash', 'text', (r) => r.hash],
  ['collection_address', 'text', (r) => r.collectionAddress],
  ['token_id', 'numeric', (r) => r.tokenId],
  ['is_order_ask', 'boolean', (r) => String(r.isOrderAsk)],
  ['signer', 'text', (r) => r.signer],
  ['strategy', 'text', (r) => r.strategy],
  ['currency_address', 'text', (r) => r.currencyAddress],
  ['amount', 'numeric', (r) => r.amount],
  ['price', 'numeric', (r) => r.price],
  ['nonce', 'numeric', (r) => r.nonce],
  ['start_time', 'bigint', (r) => r.startTime.toString()],
  ['end_time', 'bigint', (r) => r.endTime.toString()],
  ['min_percentage_to_ask', 'integer', (r) => String(r.minPercentageToAsk)],
  ['params', 'text', (r) => r.params],
  ['params_list', 'jsonb', (r) => JSON.stringify(r.paramsList)],
  ['status', '"OrderStatus"', (r) => r.status],
  ['signature', 'text', (r) => r.signature],
  ['v', 'integer', (r) => String(r.v)],
  ['r', 'text', (r) => r.r],
  ['s', 'text', (r) => r.s],
  ['created_at', 'timestamptz', (r) => r.createdAt!.toISOString()],
];

// Every column travels as one text[] parameter (both pg and PGlite serialise those) and is
// cast in the SELECT.
const INSERT_ORDERS_SQL = `INSERT INTO orders (${ORDER_COLUMNS.map(([c]) => `"${c}"`).join(', ')})
SELECT ${ORDER_COLUMNS.map(([, t], i) => `u.c${i + 1}::${t}`).join(', ')}
FROM unnest(${ORDER_COLUMNS.map((_c, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${ORDER_COLUMNS.map((_c, i) => `c${i + 1}`).join(', ')})`;

/** One multi-row INSERT (unnest of one array per column) through the SQL runner both backends share. */
async function insertOrders(sql: import('../src/db/sql-runner.js').SqlRunner, rows: OrderRow[]) {
  await sql.query(
    INSERT_ORDERS_SQL,
    ORDER_COLUMNS.map(([, , value]) => rows.map(value)),
  );
}

// ---------------------------------------------------------------------------------------------
// Scenarios

const NESTED_QUERY = `query BenchNested {
  orders(first: 50, filter: { status: [VALID] }) {
    edges { node { hash price status collection { name address stats { floorPrice volume24h volume7d countAll } } } }
  }
}`;

interface Scenario {
  name: string;
  kind: Kind;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** number of orders a correct answer holds */
  expect: number;
}

const restScenario = (name: string, pathAndQuery: string, expect: number): Scenario => ({ name, kind: 'rest', method: 'GET', path: pathAndQuery, expect });

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

async function request(base: string, s: Pick<Scenario, 'method' | 'path' | 'body'>) {
  const res = await fetch(base + s.path, {
    method: s.method,
    headers: s.method === 'POST' ? JSON_HEADERS : { accept: 'application/json' },
    body: s.body,
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json };
}

/** One request: 200, success/no errors, the expected number of orders. Returns the orders. */
async function check(base: string, s: Scenario): Promise<any[]> {
  const r = await request(base, s);
  const list: any[] | undefined = s.kind === 'rest' ? r.json?.data : r.json?.data?.orders?.edges;
  const good =
    r.status === 200 &&
    okBody(s.kind, r.text) &&
    (s.kind === 'rest' ? r.json?.success === true : !r.json?.errors) &&
    Array.isArray(list) &&
    list.length === s.expect;
  if (!good) throw new Error(`pre-check of "${s.name}" failed: HTTP ${r.status}, expected ${s.expect} orders: ${r.text.slice(0, 600)}`);
  return list!;
}

async function buildScenarios(base: string, collection: string): Promise<Scenario[]> {
  const filter = `status[]=VALID&sort=PRICE_ASC&collection=${collection}`;
  const a = restScenario('REST PRICE_ASC, VALID, 1 collection, first 20', `/api/v1/orders?pagination[first]=20&${filter}`, 20);
  const b = restScenario('REST NEWEST, no filter, first 50', `/api/v1/orders?pagination[first]=50&sort=NEWEST`, 50);
  const c: Scenario = {
    name: 'GraphQL 50 orders + collection + stats',
    kind: 'graphql',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: NESTED_QUERY }),
    expect: 50,
  };
  // (d): the page after the 40th order of a 50-order page with (a)'s filter and sort.
  const page50 = await check(base, restScenario('cursor source', `/api/v1/orders?pagination[first]=50&${filter}`, 50));
  const cursor = page50[39].hash as string;
  const d = restScenario(
    'REST PRICE_ASC cursor page (after #40), first 20',
    `/api/v1/orders?pagination[first]=20&pagination[cursor]=${cursor}&${filter}`,
    20,
  );
  const scenarios = [a, b, c, d];
  for (const s of scenarios) await check(base, s);
  // The cursor page must continue the 50-order page exactly (keyset paging, price ties).
  const dPage = await check(base, d);
  const want = page50.slice(40).map((o) => o.hash);
  const got = dPage.slice(0, 10).map((o: any) => o.hash);
  if (want.join() !== got.join()) throw new Error(`cursor page does not continue the 50-order page: want ${want.join()} got ${got.join()}`);
  return scenarios;
}

// ---------------------------------------------------------------------------------------------
// One database

interface Options {
  orders: number;
  duration: number;
  connections: number;
  warmup: number;
  pgUrl: string;
  explain: boolean;
}

interface ScenarioResult extends Omit<LoadResult, 'id'> {
  scenario: string;
  method: string;
  path: string;
}

interface DbReport {
  db: 'pglite' | 'postgres';
  describe: string;
  totalOrders: number;
  load: Record<string, number>;
  scenarios: ScenarioResult[];
  failed: string[];
}

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];

async function runCleanups() {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (err) {
      console.error('cleanup failed:', err);
    }
  }
}

let generatedCache: { forOrders: number; data: Generated } | undefined;

async function benchDatabase(kind: 'pglite' | 'postgres', opts: Options, driver: Driver): Promise<DbReport> {
  const { boot } = (await import('../src/app.js')) as App;
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { openDatabase } = await import('../src/db/database.js');
  const { seedDemo, demoCollectionAddress } = await import('../src/db/seed-demo.js');
  const pg = (await import('pg')).default;

  const mark = cleanups.length;
  const log = (msg: string) => console.log(`[${kind}] ${msg}`);
  const load: Record<string, number> = {};
  const tStart = performance.now();

  // 1. the database
  const env: Record<string, string> = { SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', GRAPHIQL: '0' };
  if (kind === 'postgres') {
    const name = `mkt_bench_${randomBytes(5).toString('hex')}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: opts.pgUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await admin(`CREATE DATABASE ${name}`);
    cleanups.push(async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      log(`dropped database ${name}`);
    });
    const url = new URL(opts.pgUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    log(`created database ${name}`);
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mkt-bench-pglite-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    env.DATA_DIR = dir;
    log(`data folder ${dir}`);
  }

  // 2. boot
  const config = loadConfig(env);
  const captured: { sql: string; params: unknown[]; via: 'prisma' | 'sql'; ms?: number }[] = [];
  let capturing = false;
  let bootOpts = {};
  if (opts.explain) {
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, onQuery: () => {} });
    (db.prisma as any).$on('query', (ev: { query: string; params: string; duration: number }) => {
      if (capturing) captured.push({ sql: ev.query, params: JSON.parse(ev.params), via: 'prisma', ms: ev.duration });
    });
    const query = db.sql.query.bind(db.sql);
    db.sql = {
      ...db.sql,
      query: (sql: string, params?: unknown[]) => {
        if (capturing) captured.push({ sql, params: params ?? [], via: 'sql' });
        return query(sql, params);
      },
    } as typeof db.sql;
    bootOpts = { db };
  }
  const tBoot = performance.now();
  const running = await boot(config, createLogger('silent'), bootOpts);
  cleanups.push(() => running.close());
  load.bootMs = performance.now() - tBoot;
  const { db, services } = running;
  log(`booted on ${db.describe} in ${Math.round(load.bootMs)} ms`);

  // 3. data: demo seed, then generated orders up to opts.orders, then ANALYZE
  const tSeed = performance.now();
  const seeded = await seedDemo(services);
  load.seedDemoMs = performance.now() - tSeed;
  log(`demo seed: ${seeded.collections} collections, ${seeded.orders} orders, ${seeded.sales} sales in ${Math.round(load.seedDemoMs)} ms`);

  const extra = Math.max(0, opts.orders - seeded.orders);
  if (!generatedCache || generatedCache.forOrders !== extra) {
    const data = await generateOrders(services, extra);
    generatedCache = { forOrders: extra, data };
    log(`generated ${extra} orders: ${data.signed} signed (${Math.round(data.signMs)} ms), the rest derived (${Math.round(data.deriveMs)} ms)`);
    load.generatedHere = 1;
    load.signMs = data.signMs;
    load.deriveMs = data.deriveMs;
  } else {
    log(`reusing the ${extra} generated orders of the previous database`);
    load.generatedHere = 0;
    load.signMs = 0;
    load.deriveMs = 0;
  }
  const rows = generatedCache.data.rows;
  const tInsert = performance.now();
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await insertOrders(db.sql, rows.slice(i, i + INSERT_CHUNK));
    if ((i / INSERT_CHUNK) % 10 === 9) log(`  inserted ${Math.min(i + INSERT_CHUNK, rows.length)} / ${rows.length}`);
  }
  load.insertMs = performance.now() - tInsert;
  for (let i = 0; i < 7; i++) await services.stats.recordFloor(demoCollectionAddress(i));
  const tAnalyze = performance.now();
  await db.sql.exec('ANALYZE');
  load.analyzeMs = performance.now() - tAnalyze;
  const totalOrders = await db.prisma.order.count();
  load.dataLoadMs = performance.now() - tSeed;
  log(`inserted ${rows.length} orders in ${Math.round(load.insertMs)} ms, ANALYZE ${Math.round(load.analyzeMs)} ms; ${totalOrders} orders in total`);
  if (totalOrders < opts.orders) throw new Error(`only ${totalOrders} orders, wanted ${opts.orders}`);

  // 4. HTTP
  // The app's own node listener, wrapped only to see requests still being handled: when a run
  // ends autocannon closes its sockets, but the server still finishes what it accepted; the next
  // run (or EXPLAIN capture) starts once that work is done. A request counts as done when its
  // listener settles or its response headers went out (the app's work is over then).
  // @whatwg-node/server 0.11.0 leaves the listener pending forever when the client disconnects
  // during the body write (safeWrite waits for a 'drain' a destroyed socket never emits).
  const inFlight = new Set<{ url: string; started: number; res: import('node:http').ServerResponse }>();
  const server: Server = createServer(async (req, res) => {
    const entry = { url: req.url ?? '', started: performance.now(), res };
    inFlight.add(entry);
    try {
      await running.yoga(req, res);
    } finally {
      inFlight.delete(entry);
    }
  });
  const idle = async () => {
    const t0 = performance.now();
    const working = () => [...inFlight].filter((e) => !e.res.headersSent).length;
    while (working() > 0) {
      if (performance.now() - t0 > 60_000) {
        const now = performance.now();
        const detail = [...inFlight].filter((e) => !e.res.headersSent).map(
          (e) =>
            `  ${Math.round(now - e.started)} ms ${e.url.slice(0, 80)} headersSent=${e.res.headersSent} writableEnded=${e.res.writableEnded} ` +
            `destroyed=${e.res.destroyed} socketDestroyed=${e.res.socket?.destroyed ?? 'no socket'}`,
        );
        let activity = '';
        if (kind === 'postgres') {
          const rows = await db.sql.query<{ state: string; n: string }>(
            'SELECT state, count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY state',
          );
          activity = `\n  pg_stat_activity of the bench database: ${JSON.stringify(rows)}`;
        }
        const probe = await request(base, { method: 'GET', path: '/api/v1/orders?pagination[first]=1' }).then(
          (r) => `a new request answers HTTP ${r.status}`,
          (e) => `a new request fails: ${e}`,
        );
        throw new Error(`server still works on ${working()} requests after 60 s:\n${detail.join('\n')}${activity}\n  ${probe}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scenarios = await buildScenarios(base, demoCollectionAddress(0));
  log(`serving on ${base}; every scenario answered 200 with the expected orders`);

  // 5. load
  const results: ScenarioResult[] = [];
  const failed: string[] = [];
  for (const s of scenarios) {
    const job = {
      url: base + s.path,
      method: s.method,
      headers: s.method === 'POST' ? JSON_HEADERS : { accept: 'application/json' },
      body: s.body,
      kind: s.kind,
      connections: opts.connections,
    };
    await idle();
    if (opts.warmup > 0) await driver.run({ ...job, duration: opts.warmup });
    await idle();
    const { id: _id, ...r } = await driver.run({ ...job, duration: opts.duration });
    results.push({ scenario: s.name, method: s.method, path: s.path, ...r });
    const bad = r.errors + r.timeouts + r.non2xx + r.mismatches;
    if (bad > 0) failed.push(`${s.name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.mismatches} bad bodies`);
    log(`${s.name}: ${r.reqPerSec.toFixed(1)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${bad ? `  FAILED (${bad} bad)` : ''}`);
  }

  if (opts.explain) {
    await idle();
    for (const s of scenarios) {
      captured.length = 0;
      capturing = true;
      await request(base, s);
      capturing = false;
      console.log(`\n===== EXPLAIN [${kind}] ${s.name}: ${captured.length} statements =====`);
      for (const q of [...captured]) {
        console.log(`\n-- via ${q.via}${q.ms !== undefined ? `, ${q.ms} ms as logged by Prisma` : ''}\n${q.sql}\n-- params ${JSON.stringify(q.params)}`);
        try {
          const plan = await db.sql.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, q.params);
          console.log(plan.map((p) => Object.values(p)[0]).join('\n'));
        } catch (err) {
          console.log(`(EXPLAIN failed: ${(err as Error).message})`);
        }
      }
    }
  }

  load.totalMs = performance.now() - tStart;
  const report: DbReport = { db: kind, describe: db.describe, totalOrders, load, scenarios: results, failed };
  while (cleanups.length > mark) {
    const fn = cleanups.pop()!;
    await fn();
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// Output

function printReport(r: DbReport, opts: Options, generated: number, signed: number) {
  const s = (ms: number | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;
  console.log(`\n=== ${r.db === 'pglite' ? 'PGlite (embedded, in-process WASM)' : 'PostgreSQL'}: ${r.describe}`);
  console.log(
    `orders: ${r.totalOrders.toLocaleString('en-US')} total (demo seed + ${generated.toLocaleString('en-US')} generated; ` +
      `${signed} of those EIP-712 signed, the rest derived with recomputed hashes and non-matching signatures — fine for a read benchmark)`,
  );
  const generation = r.load.generatedHere
    ? `sign ${s(r.load.signMs)}, derive ${s(r.load.deriveMs)}`
    : 'orders generated for the previous database reused';
  console.log(
    `data load: ${s(r.load.dataLoadMs)} (demo seed ${s(r.load.seedDemoMs)}, ${generation}, ` +
      `insert ${s(r.load.insertMs)}, ANALYZE ${s(r.load.analyzeMs)}); boot ${s(r.load.bootMs)}`,
  );
  console.log(`load: autocannon, ${opts.connections} connections, ${opts.duration} s per scenario after ${opts.warmup} s warm-up; latency over every response`);
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors/non-2xx'];
  const lines = r.scenarios.map((x) => [
    x.scenario,
    x.reqPerSec.toFixed(1),
    x.p50.toFixed(2),
    x.p99.toFixed(2),
    String(x.responses),
    `${x.errors + x.timeouts}/${x.non2xx}${x.mismatches ? ` (+${x.mismatches} bad body)` : ''}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cols: string[]) => '| ' + cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  console.log(fmt(header));
  console.log('|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const l of lines) console.log(fmt(l));
}

function writeJson(r: DbReport, opts: Options, generated: number, signed: number): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(RESULTS_DIR, `read-${r.db}-${stamp}.json`);
  const doc = {
    benchmark: 'read',
    at: new Date().toISOString(),
    machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model },
    options: { duration: opts.duration, connections: opts.connections, warmup: opts.warmup, orders: opts.orders },
    dataset: {
      totalOrders: r.totalOrders,
      generatedOrders: generated,
      eip712Signed: signed,
      note: 'generated orders beyond the signed pool reuse a pooled signature with a recomputed hash; their signatures do not verify',
    },
    ...r,
  };
  writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
  return file;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'both' },
      orders: { type: 'string', default: '100000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '2' },
      'pg-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
      explain: { type: 'boolean', default: false },
    },
  });
  const num = (name: string, v: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}, got "${v}"`);
    return n;
  };
  const opts: Options = {
    orders: num('orders', values.orders!, 1),
    duration: num('duration', values.duration!, 1),
    connections: num('connections', values.connections!, 1),
    warmup: num('warmup', values.warmup!, 0),
    pgUrl: values['pg-url']!,
    explain: values.explain!,
  };
  const dbs: ('pglite' | 'postgres')[] | null =
    values.db === 'both' ? ['pglite', 'postgres'] : values.db === 'pglite' || values.db === 'postgres' ? [values.db] : null;
  if (!dbs) throw new Error(`--db must be pglite, postgres or both, got "${values.db}"`);

  console.log(
    `read benchmark: ${dbs.join(' then ')}, >= ${opts.orders} orders, ${opts.duration} s x ${opts.connections} connections per scenario; ` +
      `node ${process.version}, ${os.cpus().length} CPUs (server, database and load generator share them)`,
  );
  const driver = new Driver();
  cleanups.push(() => driver.stop());
  const reports: DbReport[] = [];
  for (const kind of dbs) {
    const r = await benchDatabase(kind, opts, driver);
    reports.push(r);
    const generated = generatedCache?.data.rows.length ?? 0;
    const signed = generatedCache?.data.signed ?? 0;
    printReport(r, opts, generated, signed);
    console.log(`results: ${path.relative(process.cwd(), writeJson(r, opts, generated, signed))}`);
  }
  const failed = reports.flatMap((r) => r.failed.map((f) => `${r.db}: ${f}`));
  if (failed.length) throw new Error(`requests failed under load:\n  ${failed.join('\n  ')}`);
}

if (process.argv.includes('--load-driver')) {
  await runDriver();
} else {
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${sig}: cleaning up`);
    void runCleanups().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await main();
    await runCleanups();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error('\nBENCHMARK FAILED:', message.length > 2000 ? `${message.slice(0, 2000)}... (${message.length} characters)` : message);
    await runCleanups();
    process.exit(1);
  }
}
