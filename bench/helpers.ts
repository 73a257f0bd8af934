// What every benchmark shares: a throwaway database (PostgreSQL or PGlite) and cleanup on exit
// or Ctrl-C, generated market data (collections and orders with a realistic price and status
// spread) bulk-inserted through the app's SQL runner, serving an app (in this process or as a
// child process), autocannon in a child process (the load generator must not share the
// server's event loop), resident-memory sampling from /proc, sequential timing and tables.
// Run as a script only as the load driver (`--load-driver`, forked by LoadDriver).
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { START_NODE_FLAGS } from '../scripts/start-node-flags.js';
import type { SqlRunner } from '../src/db/sql-runner.js';
import { answerCapture, countPgStatementsOnTheWire, type WireCounter, type WireStatement } from './pg-wire-count.mjs';

const SELF = fileURLToPath(import.meta.url);
export const DEFAULT_PG_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
export type DbKind = 'postgres' | 'pglite';

// ---------------------------------------------------------------------------------------------
// Cleanup

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];
export const onCleanup = (fn: Cleanup) => cleanups.push(fn);

export async function runCleanups() {
  while (cleanups.length) {
    try {
      await cleanups.pop()!();
    } catch (err) {
      console.error('cleanup failed:', err);
    }
  }
}

/** Runs a bench's main: cleanups on success, failure and Ctrl-C; a clear message and exit 1 on failure. */
export async function runBench(main: () => Promise<void>) {
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
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error('\nBENCHMARK FAILED:', message.length > 3000 ? `${message.slice(0, 3000)}...` : message);
    await runCleanups();
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Databases

async function adminQuery(pgUrl: string, sql: string) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  kind: DbKind;
  /** environment for loadConfig: DATABASE_URL or DATA_DIR */
  env: Record<string, string>;
  url?: string;
  describe: string;
}

/**
 * A new PostgreSQL database mkt_<prefix>_<random> (dropped on cleanup, WITH (FORCE)) or a PGlite
 * data folder in a temp directory (removed on cleanup); `memory` for an in-memory PGlite; `keep`
 * leaves the PostgreSQL database for a later run to reuse.
 */
export async function createBenchDatabase(kind: DbKind, opts: { prefix: string; pgUrl?: string; memory?: boolean; keep?: boolean }): Promise<BenchDatabase> {
  if (kind === 'postgres') {
    const admin = opts.pgUrl ?? DEFAULT_PG_URL;
    const name = `mkt_${opts.prefix}_${randomBytes(5).toString('hex')}`;
    await adminQuery(admin, `CREATE DATABASE ${name}`);
    if (!opts.keep) onCleanup(() => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return { kind, env: { DATABASE_URL: url.toString() }, url: url.toString(), describe: `PostgreSQL database ${name}` };
  }
  if (opts.memory) return { kind, env: { DATA_DIR: 'memory' }, describe: 'PGlite in memory' };
  const dir = mkdtempSync(path.join(os.tmpdir(), `mkt-${opts.prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return { kind, env: { DATA_DIR: dir }, describe: `PGlite in ${dir}` };
}

/** Environment for a benchmarked app: no seed, no rate limit, no logs, no GraphiQL, no indexer. */
export const BENCH_APP_ENV = { SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', GRAPHIQL: '0', MAX_QUERY_COMPLEXITY: '100000' };

/** Boots the real app in this process over the bench database (pinned clock optional). */
export async function bootBenchApp(db: BenchDatabase, opts: { now?: () => Date; env?: Record<string, string> } = {}) {
  const { boot } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const running = await boot(loadConfig({ ...BENCH_APP_ENV, ...db.env, ...opts.env }), createLogger('silent'), { now: opts.now, indexer: false });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= running.close());
  onCleanup(close);
  return { ...running, close };
}

// ---------------------------------------------------------------------------------------------
// Generated market data

/** Deterministic pseudo-random numbers (the app's seed PRNG). */
export async function benchPrng(seed: number) {
  const { prng } = await import('../src/demo/prng.js');
  return prng(seed);
}

const hex = (n: number, bytes: number, salt: number) => {
  // deterministic, distinct, cheap: not real hashes (a read benchmark never checks them)
  let s = '';
  let x = (n * 2654435761 + salt * 40503) >>> 0;
  while (s.length < bytes * 2) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += x.toString(16).padStart(8, '0');
  }
  return `${n.toString(16).padStart(8, '0')}${s}`.slice(0, bytes * 2);
};

export interface GeneratedCollection {
  address: string;
  name: string | null;
  symbol: string;
  type: 'ERC721' | 'ERC1155';
  isVerified: boolean;
  floorWei: bigint;
  supply: number;
}

/** `count` collections: addresses 0xc0..., 10% without a name (the API shows the default), 20% verified, 15% ERC1155. */
export async function generateCollections(count: number, seed = 1): Promise<GeneratedCollection[]> {
  const { normalizeAddress } = await import('../src/domain/address.js');
  const rnd = await benchPrng(seed);
  return Array.from({ length: count }, (_, i) => ({
    address: normalizeAddress('0x' + (0xc0110000 + i).toString(16).padStart(40, '0'))!,
    name: rnd.next() < 0.1 ? null : `Bench Collection ${i}`,
    symbol: `BC${i}`,
    type: rnd.next() < 0.15 ? 'ERC1155' : 'ERC721',
    isVerified: rnd.next() < 0.2,
    // floors from 0.001 to ~50 ETH, log-spread
    floorWei: BigInt(Math.round(10 ** (rnd.next() * 4.7) * 1e3)) * 10n ** 12n,
    supply: rnd.int(100, 10_000),
  }));
}

export async function insertCollections(sql: SqlRunner, list: GeneratedCollection[]) {
  await sql.query(
    `INSERT INTO collections (address, owner, name, symbol, type, is_verified)
     SELECT a, '0x0000000000000000000000000000000000000000', n, s, t::"CollectionType", v
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[]) AS u(a, n, s, t, v)`,
    [list.map((c) => c.address), list.map((c) => c.name), list.map((c) => c.symbol), list.map((c) => c.type), list.map((c) => c.isVerified)],
  );
}

/** Operator market data for the first 20 verified collections (listing rewards) and a supply row for every collection. */
export async function insertMarketData(sql: SqlRunner, collections: GeneratedCollection[]) {
  const verified = collections.filter((c) => c.isVerified).slice(0, 20);
  await sql.query(
    `INSERT INTO global_market_data (collection_address, volume_24h_global, floor_global, observed_at)
     SELECT a, v::numeric, f::numeric, now() FROM unnest($1::text[], $2::text[], $3::text[]) AS u(a, v, f)`,
    [verified.map((c) => c.address), verified.map((_c, i) => String(10n ** 21n * BigInt(100 - i))), verified.map((c) => c.floorWei.toString())],
  );
  await sql.query(
    `INSERT INTO collection_supply (collection_address, total_supply, count_owners)
     SELECT a, s::numeric, o FROM unnest($1::text[], $2::text[], $3::int[]) AS u(a, s, o)`,
    [collections.map((c) => c.address), collections.map((c) => String(c.supply)), collections.map((c) => Math.ceil(c.supply / 3))],
  );
}

/**
 * The read benches' market in a booted app's database: the collections, `orders` generated orders
 * (the network's last standard-sale and collection-offer strategies, WETH), market data, then
 * ANALYZE so the planner sees the real sizes.
 */
export async function loadMarket(
  running: { db: { sql: SqlRunner }; services: { deps: { network: { strategies: { standardSale: string[]; collectionOffer: string[] }; weth: string } } } },
  collections: GeneratedCollection[],
  orders: number,
  onProgress?: (done: number) => void,
) {
  const { sql } = running.db;
  const network = running.services.deps.network;
  await insertCollections(sql, collections);
  await insertGeneratedOrders(sql, collections, orders, {
    strategy: network.strategies.standardSale.at(-1)!,
    collectionOfferStrategy: network.strategies.collectionOffer.at(-1)!,
    currency: network.weth,
    onProgress,
  });
  await insertMarketData(sql, collections);
  await sql.exec('ANALYZE');
}

/**
 * `count` orders over the collections, Zipf-like (collection i gets weight 1/(i+1)^0.8: a few
 * hot collections, a long tail). Per order: ask/bid, price on a 1% grid of the collection floor
 * (asks 100-250%, bids 40-95%: ties), about 74% live VALID, 8% expired by time (VALID stored,
 * endTime past), 6% EXECUTED, 6% CANCELLED, 6% approval/ownership/balance problems; 12% of bids
 * are collection offers (tokenId null). Every 500th order carries a uint256 beyond 2^53 as
 * price, nonce and tokenId. Hashes and signatures are synthetic (never verified by reads).
 * Inserted oldest first, so ids follow creation like NEWEST expects.
 */
export async function insertGeneratedOrders(
  sql: SqlRunner,
  collections: GeneratedCollection[],
  count: number,
  opts: {
    seed?: number;
    nowSeconds?: number;
    chunk?: number;
    /** index of the first order (to add more orders to a database later: hashes stay unique) */
    from?: number;
    onProgress?: (done: number) => void;
    strategy: string;
    collectionOfferStrategy: string;
    currency: string;
  },
) {
  const rnd = await benchPrng(opts.seed ?? 424242);
  const { normalizeAddress } = await import('../src/domain/address.js');
  const signers = Array.from({ length: 2000 }, (_, i) => normalizeAddress('0x' + hex(i, 20, 7))!);
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const DAY = 86_400;
  const span = 60 * DAY;
  const weights = collections.map((_c, i) => 1 / (i + 1) ** 0.8);
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  weights.reduce((acc, w, i) => (cumulative[i] = acc + w / total), 0);
  const pick = () => {
    const r = rnd.next();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return collections[lo]!;
  };
  const chunk = opts.chunk ?? 10_000;
  const cols: string[][] = Array.from({ length: 18 }, () => []);
  const flush = async () => {
    if (!cols[0]!.length) return;
    await sql.query(INSERT_ORDERS_SQL, cols);
    for (const c of cols) c.length = 0;
  };
  const big = (2n ** 200n + 12345n).toString();
  const from = opts.from ?? 0;
  for (let g = from; g < from + count; g++) {
    const c = pick();
    const isOrderAsk = rnd.next() < 0.6;
    const collectionOffer = !isOrderAsk && rnd.next() < 0.12;
    const startTime = now - span + Math.floor((span * (g - from)) / count);
    let endTime = now + rnd.int(1, 90) * DAY;
    let status = 'VALID';
    const roll = rnd.next();
    if (roll < 0.08) endTime = startTime + 1 + Math.floor((now - startTime - 2) * rnd.next());
    else if (roll < 0.14) status = 'EXECUTED';
    else if (roll < 0.2) status = 'CANCELLED';
    else if (roll < 0.23) status = isOrderAsk ? 'ERC_APPROVAL' : 'ERC20_APPROVAL';
    else if (roll < 0.26) status = isOrderAsk ? 'INVALID_OWNER' : 'ERC20_BALANCE';
    const pct = isOrderAsk ? rnd.int(100, 250) : rnd.int(40, 95);
    const huge = g % 500 === 499;
    const h = hex(g, 32, 1);
    const values = [
      '0x' + h,
      c.address,
      collectionOffer ? null : huge ? big : String(rnd.int(1, c.supply)),
      String(isOrderAsk),
      signers[rnd.int(0, signers.length - 1)]!,
      collectionOffer ? opts.collectionOfferStrategy : opts.strategy,
      opts.currency,
      c.type === 'ERC1155' && isOrderAsk ? String(rnd.int(1, 5)) : '1',
      huge ? big : ((c.floorWei * BigInt(pct)) / 100n).toString(),
      huge ? big : String(1_000_000 + g),
      String(startTime),
      String(endTime),
      '9800',
      status,
      '0x' + hex(g, 65, 3),
      '27',
      '0x' + hex(g, 32, 4),
      '0x' + hex(g, 32, 5),
    ];
    for (let i = 0; i < values.length; i++) cols[i]!.push(values[i] as string);
    if (cols[0]!.length >= chunk) {
      await flush();
      opts.onProgress?.(g + 1 - from);
    }
  }
  await flush();
}

const ORDER_INSERT_COLUMNS: [string, string][] = [
  ['hash', 'text'],
  ['collection_address', 'text'],
  ['token_id', 'numeric'],
  ['is_order_ask', 'boolean'],
  ['signer', 'text'],
  ['strategy', 'text'],
  ['currency_address', 'text'],
  ['amount', 'numeric'],
  ['price', 'numeric'],
  ['nonce', 'numeric'],
  ['start_time', 'bigint'],
  ['end_time', 'bigint'],
  ['min_percentage_to_ask', 'integer'],
  ['status', '"OrderStatus"'],
  ['signature', 'text'],
  ['v', 'integer'],
  ['r', 'text'],
  ['s', 'text'],
];
const INSERT_ORDERS_SQL = `INSERT INTO orders (${ORDER_INSERT_COLUMNS.map(([c]) => c).join(', ')})
SELECT ${ORDER_INSERT_COLUMNS.map(([, t], i) => `u.c${i}::${t}`).join(', ')}
FROM unnest(${ORDER_INSERT_COLUMNS.map((_c, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${ORDER_INSERT_COLUMNS.map((_c, i) => `c${i}`).join(', ')})`;

// ---------------------------------------------------------------------------------------------
// Serving

/** Serves a Yoga app on an ephemeral port of 127.0.0.1; closed on cleanup. */
export async function serveApp(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** What a child server reports besides its statement count (bench/server-probe.mjs): MB. */
export interface ChildMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** V8 heap spaces by name: their reserved size */
  spaces: Record<string, number>;
}

/** A server in a child process: it sends {port} over IPC when listening, answers {stats} with its statement count. */
export class ChildServer {
  readonly child: ChildProcess;
  private ready: Promise<string>;
  private waiters: ((m: any) => void)[] = [];

  /** execArgv: the child's Node flags (default: this process's, e.g. tsx's loader) */
  constructor(script: string, args: string[], env: Record<string, string>, execArgv: string[] = process.execArgv) {
    this.child = fork(script, args, { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    onCleanup(() => this.stop());
    this.ready = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('exit', (code) => reject(new Error(`${path.basename(script)} ${args.join(' ')} exited (${code})`)));
      this.child.on('message', (m: any) => {
        if (m.port) resolve(`http://127.0.0.1:${m.port}`);
        else this.waiters.shift()?.(m);
      });
    });
  }

  base(): Promise<string> {
    return this.ready;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** SQL statements the child sent so far (counted at its pg driver). */
  async statements(): Promise<number> {
    return (await this.stats()).statements;
  }

  /** Its statement count and, from a built server (bench/server-probe.mjs), its memory breakdown. */
  async stats(): Promise<{ statements: number; memory?: ChildMemory }> {
    await this.ready;
    return new Promise((resolve) => {
      this.waiters.push((m) => resolve(m));
      this.child.send({ stats: true });
    });
  }

  /** The statements the child sends to PostgreSQL while `fn` runs (text and bound values; bench/pg-wire-count.mjs). */
  async capture(fn: () => Promise<unknown>): Promise<WireStatement[]> {
    await this.ready;
    const ask = (what: 'start' | 'stop') =>
      new Promise<any>((resolve) => {
        this.waiters.push(resolve);
        this.child.send({ capture: what });
      });
    await ask('start');
    const done = await fn().then(
      () => null,
      (err: unknown) => ({ err }),
    );
    const captured = ((await ask('stop')).captured ?? []) as WireStatement[];
    if (done) throw done.err;
    return captured;
  }

  /** CPU seconds (user + system) the child has used so far, from /proc. */
  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  stop() {
    if (this.child.exitCode === null && !this.child.killed) this.child.kill();
  }
}

const ROOT = path.resolve(path.dirname(SELF), '..');
/** Node flags `npm start` gives the server (scripts/run-built.mjs runs dist/server.js in-process). */
export const SERVER_NODE_FLAGS: string[] = START_NODE_FLAGS;

/**
 * This service as `npm start` serves it: scripts/run-built.mjs (rebuilds dist/ when a source is
 * newer) running dist/server.js with plain Node, the probe preloaded, on a free port of 127.0.0.1.
 * `nodeFlags` replaces SERVER_NODE_FLAGS (to weigh a flag against the default); `root` serves
 * another checkout's build (to weigh a change against the code before it, in one run).
 */
export function startBuiltServer(env: Record<string, string>, nodeFlags: string[] = SERVER_NODE_FLAGS, root = ROOT): ChildServer {
  const probe = path.join(ROOT, 'bench', 'server-probe.mjs');
  return new ChildServer(path.join(root, 'scripts', 'run-built.mjs'), ['server'], { ...BENCH_APP_ENV, PORT: '0', HOST: '127.0.0.1', ...env }, [
    '--import',
    probe,
    ...nodeFlags,
  ]);
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[11] utime, fields[12] stime (the 14th and 15th of the line), in clock ticks
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** Counts the statements this process sends to PostgreSQL, on the wire (every copy of pg: Prisma's too). */
export function countPgStatements(pgPort = 5432): WireCounter {
  return countPgStatementsOnTheWire(pgPort);
}

/** For a child server: answer the parent's {stats} and {capture} requests and tell it the port. */
export function reportToParent(port: number, counter: WireCounter) {
  process.on('message', (m: any) => {
    if (answerCapture(counter, m)) return;
    if (m?.stats) process.send!({ statements: counter.count });
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ port });
}

// ---------------------------------------------------------------------------------------------
// Resident memory

/** RSS of a process in MB, from /proc (Linux). */
export function rssMb(pid = process.pid): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Samples a process's RSS every `everyMs` until stopped: max and mean in MB. */
export function sampleRss(pid: number, everyMs = 100) {
  const samples: number[] = [];
  const t = setInterval(() => {
    try {
      samples.push(rssMb(pid));
    } catch {}
  }, everyMs);
  return {
    stop() {
      clearInterval(t);
      return { maxMb: Math.max(...samples), meanMb: samples.reduce((a, b) => a + b, 0) / (samples.length || 1), samples: samples.length };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Load (autocannon in a child process)

export interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
  /** a response body must start with this (anything else counts as a mismatch) */
  expectPrefix: string;
  /** and must not contain this */
  refuse?: string;
  /** requests per second over all connections (autocannon overallRate); unset: as fast as answered */
  overallRate?: number;
  /** return every response time (ms) in `times` */
  keepTimes?: boolean;
}

export interface LoadResult {
  seconds: number;
  responses: number;
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  /** every response time in ms, sorted (with keepTimes) */
  times?: number[];
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

async function runDriver() {
  const { default: autocannon } = await import('autocannon');
  process.on('disconnect', () => process.exit(0));
  process.on('message', (job: LoadJob & { id: number }) => {
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
        overallRate: job.overallRate,
        timeout: 30,
        // nothing to check (an empty prefix, nothing refused): bodies are not turned into text at all
        verifyBody:
          job.expectPrefix || job.refuse
            ? (body) => {
                const s = String(body ?? '');
                return s.startsWith(job.expectPrefix) && !(job.refuse && s.includes(job.refuse));
              }
            : undefined,
      },
      (err, r) => {
        if (err) return void process.send!({ id: job.id, error: String(err?.stack ?? err) });
        const seconds = (performance.now() - started) / 1000;
        const sorted = Float64Array.from(times).sort();
        const result: LoadResult & { id: number } = {
          id: job.id,
          seconds,
          responses: times.length,
          reqPerSec: r['2xx'] / seconds,
          p50: percentile(sorted, 50),
          p90: percentile(sorted, 90),
          p99: percentile(sorted, 99),
          max: sorted.length ? sorted[sorted.length - 1]! : NaN,
          errors: r.errors,
          timeouts: r.timeouts,
          non2xx: r.non2xx,
          mismatches: r.mismatches,
          times: job.keepTimes ? Array.from(sorted) : undefined,
        };
        process.send!(result);
      },
    );
    instance.on('response', (_c: unknown, _s: number, _b: number, responseTime: number) => times.push(responseTime));
  });
  process.send!({ ready: true });
}

/** autocannon in its own process; exact percentiles over every response time. */
export class LoadDriver {
  private child: ChildProcess;
  private nextId = 1;
  private waiting = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  private ready: Promise<void>;

  constructor() {
    this.child = fork(SELF, ['--load-driver'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    onCleanup(() => this.stop());
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

  async run(job: LoadJob): Promise<LoadResult> {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ ...job, id });
    });
  }

  /** warm-up then the measured run; fails on any error, timeout, non-2xx or bad body */
  async measure(job: Omit<LoadJob, 'duration'>, opts: { duration: number; warmup: number }): Promise<LoadResult> {
    if (opts.warmup > 0) await this.run({ ...job, duration: opts.warmup });
    const r = await this.run({ ...job, duration: opts.duration });
    const bad = r.errors + r.timeouts + r.non2xx + r.mismatches;
    if (bad) throw new Error(`${job.method} ${job.url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.mismatches} bad bodies under load`);
    return r;
  }

  /** the load generator's process (its CPU: /proc) */
  get pid(): number {
    return this.child.pid!;
  }

  stop() {
    if (this.child.exitCode === null && !this.child.killed) this.child.kill();
  }
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** One request; the body as text and parsed JSON. */
export async function request(url: string, init: { method?: string; body?: string } = {}) {
  const res = await fetch(url, { method: init.method ?? 'GET', headers: init.body ? JSON_HEADERS : { accept: 'application/json' }, body: init.body });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json };
}

// ---------------------------------------------------------------------------------------------
// Timing and tables

/** Sequential timing of n calls after `warmup` calls: p50/p99/mean in ms. */
export async function timeIt(n: number, fn: (i: number) => Promise<unknown>, warmup = Math.min(20, n)) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times[i] = performance.now() - t0;
  }
  times.sort();
  return { p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / n };
}

/** A markdown table: first column left-aligned, the rest right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const lines = rows.map((r) => r.map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cols: string[]) => '| ' + cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  return [fmt(header), '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|', ...lines.map(fmt)].join('\n');
}

export const fixed = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

export function machine(): string {
  return `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GB`;
}

if (process.argv[1] === SELF && process.argv.includes('--load-driver')) await runDriver();
