// Order submission benchmark (issue 3 acceptance): sustained POST /api/v1/orders per second on
// PostgreSQL (or PGlite) with every signature verified and every row written, and where the
// time goes.
//
//   npx tsx bench/submit-bench.ts [--orders 3000] [--concurrency 16] [--db postgres|pglite]
//                                 [--workers 0,2] [--runs 1] [--warmup 200] [--profile 200]
//                                 [--pg-url postgresql://postgres@127.0.0.1:5432/postgres]
//                                 [--retries 3] [--quiet-wait 900]
//
// --workers: comma-separated SIGNATURE_WORKERS values to compare (0 = verify on the main
// thread); unset = the configured default. Each (run, workers) pair gets its own database.
// The machine may be shared: each timed run first waits (up to --quiet-wait s) for the machine
// to be quiet, and is repeated (up to --retries times) when other processes took more than 15%
// of a core during it (the "other" column).
//
// Per measurement: a fresh database (a new PostgreSQL database mkt_subbench_<random>, dropped at
// the end, also on error or Ctrl-C; or PGlite in a temp folder), boot() of the real app (SEED=0,
// RATE_LIMIT_PER_MINUTE=0, no RPC_URL), a few ERC-721 collections, the app on node:http on an
// ephemeral port, and a load generator in a child process (fetch, keep-alive, --concurrency
// requests in flight) so it does not share the server's event loop. Orders are pre-signed
// before any timer (many signers, distinct nonces); each one is a distinct valid order.
//   1. warm-up: --warmup orders, then those rows are deleted again;
//   2. timed run: --orders orders; every response must be 201 with success=true and the
//      database must then hold exactly --orders orders. CPU is sampled around it: this
//      process (all threads), its main event loop, the load generator, the PostgreSQL server
//      processes (from /proc) and the whole machine;
//   3. profile (afterwards, in-process, one order at a time, --profile distinct orders): each
//      stage of the submission timed on its own (parse, hash, signature, the DB state query,
//      the insert transaction, recordFloor), the whole createOrder(), and the same number of
//      sequential HTTP requests, so HTTP + GraphQL overhead = HTTP - createOrder.
// Results also go to bench/results/submit-<db>-<timestamp>.json.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance as perf, type EventLoopUtilization } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const SELF = fileURLToPath(import.meta.url);
const RESULTS_DIR = path.join(path.dirname(SELF), 'results');
const SIGNERS = 50;
/** a timed run during which other processes took more than this (% of one core) is repeated */
const NOISY_OTHER_PCT = 15;
const COLLECTIONS = 4;
const CHECK_INLINE = 'checkSignature inline (digest + ecrecover)';
const VERIFY_IN_CREATE = 'signature verifier inside createOrder (as configured)';
const CREATE_TOTAL = 'createOrder() in-process, total';
const HTTP_SEQ = 'HTTP POST /api/v1/orders, one at a time';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

// ---------------------------------------------------------------------------------------------
// Load generator (child process): POSTs a range of the pre-signed bodies with N in flight.

interface DriveJob {
  id: number;
  url: string;
  from: number;
  to: number;
  concurrency: number;
}

interface DriveResult {
  id: number;
  wallMs: number;
  /** per request, in send order */
  latencies: number[];
  failures: string[];
  cpuUs: number;
}

async function runDriver() {
  let bodies: string[] = [];
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (m: { bodies?: string[]; job?: DriveJob }) => {
    if (m.bodies) {
      bodies = m.bodies;
      process.send!({ loaded: bodies.length });
      return;
    }
    const job = m.job!;
    const n = job.to - job.from;
    const latencies = new Array<number>(n).fill(NaN);
    const failures: string[] = [];
    let next = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const lane = async () => {
      for (;;) {
        const k = next++;
        if (k >= n) return;
        const s = performance.now();
        try {
          const res = await fetch(job.url, { method: 'POST', headers: JSON_HEADERS, body: bodies[job.from + k] });
          const text = await res.text();
          latencies[k] = performance.now() - s;
          if (res.status !== 201 || !text.startsWith('{"success":true')) failures.push(`#${job.from + k}: HTTP ${res.status} ${text.slice(0, 300)}`);
        } catch (err) {
          failures.push(`#${job.from + k}: ${String((err as Error)?.stack ?? err)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(job.concurrency, n) }, lane));
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const result: DriveResult = { id: job.id, wallMs, latencies, failures, cpuUs: cpu.user + cpu.system };
    process.send!(result);
  });
  process.send!({ ready: true });
}

class Driver {
  private child: ChildProcess;
  private nextId = 1;
  private waiting = new Map<number, { resolve: (r: DriveResult) => void; reject: (e: Error) => void }>();
  private ready: Promise<void>;
  private loaded: ((n: number) => void) | null = null;

  constructor() {
    this.child = fork(SELF, ['--load-driver'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.on('message', (m: { ready?: boolean; loaded?: number; id?: number }) => {
        if (m.ready) return resolve();
        if (m.loaded !== undefined) return this.loaded?.(m.loaded);
        const w = this.waiting.get(m.id!);
        if (!w) return;
        this.waiting.delete(m.id!);
        w.resolve(m as DriveResult);
      });
      this.child.once('exit', (code) => {
        const e = new Error(`load generator exited (${code})`);
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      });
    });
  }

  async load(bodies: string[]) {
    await this.ready;
    await new Promise<number>((resolve) => {
      this.loaded = resolve;
      this.child.send({ bodies });
    });
  }

  async run(job: Omit<DriveJob, 'id'>): Promise<DriveResult> {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ job: { ...job, id } });
    });
  }

  stop() {
    if (this.child.connected) this.child.disconnect();
    this.child.kill();
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics and CPU sampling

function percentile(values: number[], p: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
const median = (values: number[]) => percentile(values, 50);
const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / (values.length || 1);

const CLK_TCK = 100; // Linux USER_HZ; `getconf CLK_TCK` is 100 on every mainstream kernel

/**
 * CPU seconds used so far by the PostgreSQL server processes that work for this benchmark: its
 * database's backends and the shared ones (WAL writer, checkpointer, ...), not the backends of
 * other databases (other people's work on the same server). null off Linux.
 */
function postgresCpuSeconds(database: string | null): number | null {
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      let cmdline: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!stat.includes('(postgres)')) continue;
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // gone
      }
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      // a backend's title: "postgres: 15/main: <user> <database> <host>(<port>) <state>"
      const backend = /^postgres: \S+: \S+ (\S+) [^ ]+\(\d+\)/.exec(cmdline);
      if (backend && backend[1] !== database) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
    }
    return ticks / CLK_TCK;
  } catch {
    return null;
  }
}

/** Machine-wide CPU time from /proc/stat (ms): busy, total, and steal (taken by the hypervisor). */
function machineCpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f as [number, number, number, number, number, number, number, number];
    const busy = user + nice + system + irq + softirq;
    const tick = 1000 / CLK_TCK;
    return { busy: busy * tick, total: (busy + idle + iowait + (steal ?? 0)) * tick, steal: (steal ?? 0) * tick };
  } catch {
    let busy = 0;
    let total = 0;
    for (const c of os.cpus()) {
      const t = c.times;
      busy += t.user + t.nice + t.sys + t.irq;
      total += t.user + t.nice + t.sys + t.irq + t.idle;
    }
    return { busy, total, steal: 0 };
  }
}

// performance.eventLoopUtilization is in node:perf_hooks' Performance, not in the DOM lib's type
const elu = (a?: EventLoopUtilization, b?: EventLoopUtilization) => perf.eventLoopUtilization(a, b);

function sample(database: string | null) {
  return { t: performance.now(), cpu: process.cpuUsage(), elu: elu(), machine: machineCpu(), pg: postgresCpuSeconds(database) };
}

/**
 * Waits until the machine is quiet (other people's jobs share these cores): busy CPU below 30%
 * of one core over 2 s, this process and its load generator being idle. Gives up after maxMs.
 */
async function waitForQuiet(maxMs: number, log: (m: string) => void) {
  const t0 = performance.now();
  let told = false;
  for (;;) {
    const a = machineCpu();
    await new Promise((r) => setTimeout(r, 2000));
    const b = machineCpu();
    const busyPct = ((b.busy - a.busy) / (b.total - a.total)) * 100 * os.cpus().length;
    if (busyPct < 30) return;
    if (performance.now() - t0 > maxMs) {
      log(`the machine is still busy (${busyPct.toFixed(0)}% of one core) after ${Math.round(maxMs / 1000)} s; measuring anyway`);
      return;
    }
    if (!told) log(`waiting for a quiet machine (${busyPct.toFixed(0)}% of one core busy with other work)`);
    told = true;
  }
}

// ---------------------------------------------------------------------------------------------
// Orders, signed before any timer

interface Signed {
  body: string;
  hash: string;
  isOrderAsk: boolean;
}

async function signOrders(count: number, chainId: number, exchange: string, network: { weth: string; strategy: string }, collections: string[]) {
  const { Wallet, keccak256, toUtf8Bytes } = await import('ethers');
  const { exchangeDomain, MAKER_ORDER_TYPES, computeOrderHash } = await import('../src/domain/maker-order.js');
  const wallets = Array.from({ length: SIGNERS }, (_, i) => new Wallet(keccak256(toUtf8Bytes(`submit-bench-signer-${i}`))));
  const domain = exchangeDomain(chainId, exchange);
  const now = Math.floor(Date.now() / 1000);
  const nonces = new Array<number>(SIGNERS).fill(0);
  const out: Signed[] = [];
  for (let i = 0; i < count; i++) {
    const w = wallets[i % SIGNERS]!;
    const isOrderAsk = i % 5 !== 4; // 80% asks (they also update the floor), 20% bids
    const order = {
      isOrderAsk,
      signer: w.address,
      collection: collections[i % collections.length]!,
      price: (100_000_000_000_000_000n * BigInt(1 + ((i * 7919) % 1000))).toString(),
      tokenId: String(i + 1),
      amount: '1',
      strategy: network.strategy,
      currency: network.weth,
      nonce: String(nonces[i % SIGNERS]!++),
      startTime: now - 60,
      endTime: now + 7 * 86_400,
      minPercentageToAsk: 9800,
      params: [] as string[],
    };
    const value = { ...order, params: '0x' };
    const signature = await w.signTypedData(domain, MAKER_ORDER_TYPES, value);
    const hash = computeOrderHash({
      ...value,
      price: BigInt(value.price),
      tokenId: BigInt(value.tokenId),
      amount: 1n,
      nonce: BigInt(value.nonce),
      startTime: BigInt(value.startTime),
      endTime: BigInt(value.endTime),
      minPercentageToAsk: BigInt(value.minPercentageToAsk),
    });
    out.push({ body: JSON.stringify({ ...order, signature }), hash, isOrderAsk });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One measurement

interface Options {
  orders: number;
  concurrency: number;
  db: 'postgres' | 'pglite';
  workers: (number | null)[];
  runs: number;
  warmup: number;
  profile: number;
  pgUrl: string;
  retries: number;
  quietWaitS: number;
}

interface Measurement {
  run: number;
  workersSetting: number | null;
  verifier: string;
  describe: string;
  perSecond: number;
  wallMs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  meanMs: number;
  /** percent of one core over the timed run's wall time */
  /** other = machine - process - load generator - postgres: anything else running (should be ~0) */
  cpu: { process: number; mainLoop: number; loadGenerator: number; postgres: number | null; machine: number; other: number | null; steal: number };
  /** attempts made (a measurement disturbed by foreign load is repeated) */
  attempts?: number;
  /** per order, microseconds */
  cpuPerOrderUs: { process: number; mainLoop: number; loadGenerator: number; postgres: number | null };
  /** per stage: median per call, and total / number of profiled orders */
  profile: Record<string, { medianUs: number; perOrderUs: number; cpuPerOrderUs: number; calls: number }>;
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

async function measure(run: number, workers: number | null, opts: Options, driver: Driver, signed: Signed[], collections: string[]): Promise<Measurement> {
  const { boot } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { parseMakerOrderInput, toSignedMakerOrder } = await import('../src/domain/maker-order-input.js');
  const { computeOrderHash, computeOrderDigest, exchangeDomain } = await import('../src/domain/maker-order.js');
  const { checkSignature } = await import('../src/domain/order-signature.js');
  const pg = (await import('pg')).default;

  const mark = cleanups.length;
  const tag = `run ${run}, SIGNATURE_WORKERS=${workers ?? 'default'}`;
  const log = (msg: string) => console.log(`[${tag}] ${msg}`);

  // 1. the database
  const env: Record<string, string> = { SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', GRAPHIQL: '0' };
  if (workers !== null) env.SIGNATURE_WORKERS = String(workers);
  let dbName: string | null = null;
  if (opts.db === 'postgres') {
    const name = `mkt_subbench_${randomBytes(5).toString('hex')}`;
    dbName = name;
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
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mkt-subbench-pglite-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    env.DATA_DIR = dir;
  }

  // 2. boot, collections, HTTP
  const config = loadConfig(env);
  const running = await boot(config, createLogger('silent'));
  cleanups.push(() => running.close());
  const { db, services } = running;
  const pool = (services.deps as { signatures?: { threads?: number } }).signatures;
  const verifier = pool?.threads ? `${pool.threads} worker threads` : 'inline (main thread)';
  log(`booted on ${db.describe}; signatures verified ${verifier}`);
  for (const [i, address] of collections.entries()) {
    await services.collections.upsertCollection({ address, type: 'ERC721', name: `Bench ${i}` });
  }
  const server: Server = createServer(running.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/orders`;
  const countOrders = async () => Number((await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM orders'))[0]!.n);

  // Ranges of the pre-signed orders: warm-up, timed, profile (in-process), profile (HTTP).
  const W = opts.warmup;
  const N = opts.orders;
  const P = opts.profile;
  const timed = { from: W, to: W + N };
  const stagesSet = { from: W + N, to: W + N + P };
  const httpSet = { from: W + N + P, to: W + N + 2 * P };

  // 3. warm-up, then back to an empty order table
  if (W > 0) {
    const r = await driver.run({ url, from: 0, to: W, concurrency: opts.concurrency });
    if (r.failures.length) throw new Error(`warm-up: ${r.failures.length} failed requests:\n  ${r.failures.slice(0, 5).join('\n  ')}`);
    await db.sql.exec('DELETE FROM orders; DELETE FROM floor_history');
    log(`warm-up: ${W} orders in ${(r.wallMs / 1000).toFixed(1)} s (deleted again)`);
  }
  if ((await countOrders()) !== 0) throw new Error('the order table is not empty before the timed run');

  // 4. the timed run
  await waitForQuiet(opts.quietWaitS * 1000, log);
  const before = sample(dbName);
  const r = await driver.run({ url, ...timed, concurrency: opts.concurrency });
  const after = sample(dbName);
  if (r.failures.length) throw new Error(`timed run: ${r.failures.length} of ${N} requests failed:\n  ${r.failures.slice(0, 5).join('\n  ')}`);
  const rows = await countOrders();
  if (rows !== N) throw new Error(`timed run: ${rows} orders in the database, expected ${N}`);
  const wallS = (after.t - before.t) / 1000;
  const cpu = process.cpuUsage(before.cpu);
  const loop = elu(after.elu, before.elu);
  const procCpuS = (cpu.user + cpu.system) / 1e6;
  const mainBusyS = loop.active / 1000;
  const loadGenS = r.cpuUs / 1e6;
  const pgS = before.pg !== null && after.pg !== null && opts.db === 'postgres' ? after.pg - before.pg : null;
  const machinePct = ((after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)) * 100 * os.cpus().length;
  const stealPct = ((after.machine.steal - before.machine.steal) / (after.machine.total - before.machine.total)) * 100 * os.cpus().length;
  const pct = (s: number) => (s / wallS) * 100;
  const perOrder = (s: number) => (s * 1e6) / N;
  const perSecond = N / (r.wallMs / 1000);
  log(
    `load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${N} orders: ${perSecond.toFixed(1)} orders/s, p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms; ` +
      `${rows} rows; CPU: process ${pct(procCpuS).toFixed(0)}%, main loop ${pct(mainBusyS).toFixed(0)}%, machine ${machinePct.toFixed(0)}% of one core`,
  );

  // 5. profile, one order at a time
  const domain = exchangeDomain(config.network.chainId, config.network.exchange);
  const times: Record<string, number[]> = {};
  const cpuSum: Record<string, number> = {};
  const rec = (k: string, ms: number) => (times[k] ??= []).push(ms * 1000);
  // wall time and this process's CPU time (all threads) of one stage
  const start = () => ({ t: performance.now(), c: process.cpuUsage() });
  const stop = (k: string, s: ReturnType<typeof start>) => {
    const c = process.cpuUsage(s.c);
    rec(k, performance.now() - s.t);
    cpuSum[k] = (cpuSum[k] ?? 0) + c.user + c.system;
  };
  let capture = false;
  const sqlQuery = db.sql.query.bind(db.sql);
  db.sql.query = (async (text: string, params?: unknown[]) => {
    if (!capture) return sqlQuery(text, params);
    const s = start();
    try {
      return await sqlQuery(text, params);
    } finally {
      if (text.startsWith('SELECT (SELECT type::text FROM collections')) stop('db state query', s);
      else if (text.startsWith('WITH cur AS')) stop('recordFloor (asks only)', s);
      else stop(`other SQL: ${text.slice(0, 40)}`, s);
    }
  }) as typeof db.sql.query;
  const prismaAny = db.prisma as unknown as { $transaction: (...a: unknown[]) => Promise<unknown> };
  const tx = prismaAny.$transaction.bind(db.prisma);
  prismaAny.$transaction = async (...args: unknown[]) => {
    if (!capture) return tx(...args);
    const s = start();
    try {
      return await tx(...args);
    } finally {
      stop('insert transaction (lock, count, insert)', s);
    }
  };
  // The verifier the submission service was given (src/services/signature-pool.ts), when any.
  const verifier_ = (services.deps as { signatures?: { check: (...a: unknown[]) => Promise<unknown> } }).signatures;
  const check = verifier_?.check;
  if (verifier_ && check) {
    verifier_.check = async (...args: unknown[]) => {
      if (!capture) return check.apply(verifier_, args);
      const s = start();
      try {
        return await check.apply(verifier_, args);
      } finally {
        stop(VERIFY_IN_CREATE, s);
      }
    };
  }
  for (let i = stagesSet.from; i < stagesSet.to; i++) {
    const raw = JSON.parse(signed[i]!.body);
    let s = start();
    const parsed = parseMakerOrderInput(raw);
    stop('parseMakerOrderInput', s);
    if (!parsed.ok) throw new Error(`order #${i} does not parse: ${JSON.stringify(parsed.problems)}`);
    s = start();
    const order = toSignedMakerOrder(parsed.value);
    const hash = computeOrderHash(order);
    stop('toSignedMakerOrder + computeOrderHash', s);
    if (hash !== signed[i]!.hash) throw new Error(`order #${i}: hash mismatch`);
    s = start();
    computeOrderDigest(order, domain);
    stop('  EIP-712 digest alone', s);
    s = start();
    const sig = checkSignature(order, parsed.value.signature, domain);
    stop(CHECK_INLINE, s);
    if (sig.problems.length) throw new Error(`order #${i}: ${JSON.stringify(sig.problems)}`);
    capture = true;
    s = start();
    await services.submissions.createOrder(raw);
    stop(CREATE_TOTAL, s);
    capture = false;
  }
  db.sql.query = sqlQuery as typeof db.sql.query;
  prismaAny.$transaction = tx;
  if (verifier_ && check) verifier_.check = check;
  const seqCpu = process.cpuUsage();
  const seq = await driver.run({ url, ...httpSet, concurrency: 1 });
  const seqCpuUs = process.cpuUsage(seqCpu);
  cpuSum[HTTP_SEQ] = seqCpuUs.user + seqCpuUs.system;
  if (seq.failures.length) throw new Error(`sequential HTTP: ${seq.failures.length} failed:\n  ${seq.failures.slice(0, 5).join('\n  ')}`);
  for (const ms of seq.latencies) rec(HTTP_SEQ, ms);
  if ((await countOrders()) !== N + 2 * P) throw new Error('profile orders were not all stored');
  const profile: Measurement['profile'] = {};
  for (const [k, v] of Object.entries(times)) profile[k] = { medianUs: median(v), perOrderUs: v.reduce((a, b) => a + b, 0) / P, cpuPerOrderUs: (cpuSum[k] ?? NaN) / P, calls: v.length };

  // 6. clean up this database
  while (cleanups.length > mark) await cleanups.pop()!();
  return {
    run,
    workersSetting: workers,
    verifier,
    describe: db.describe,
    perSecond,
    wallMs: r.wallMs,
    p50: percentile(r.latencies, 50),
    p90: percentile(r.latencies, 90),
    p99: percentile(r.latencies, 99),
    max: percentile(r.latencies, 100),
    meanMs: mean(r.latencies),
    cpu: {
      process: pct(procCpuS),
      mainLoop: pct(mainBusyS),
      loadGenerator: pct(loadGenS),
      postgres: pgS === null ? null : pct(pgS),
      machine: machinePct,
      other: pgS === null ? null : machinePct - pct(procCpuS) - pct(loadGenS) - pct(pgS),
      steal: stealPct,
    },
    cpuPerOrderUs: { process: perOrder(procCpuS), mainLoop: perOrder(mainBusyS), loadGenerator: perOrder(loadGenS), postgres: pgS === null ? null : perOrder(pgS) },
    profile,
  };
}

// ---------------------------------------------------------------------------------------------
// Pure signature recovery on one core (and through the worker pool when there is one)

async function signatureRates(signed: Signed[], chainId: number, exchange: string, poolSizes: number[]) {
  const { createSignatureVerifier } = await import('../src/services/signature-pool.js');
  const { recoverAddress } = await import('ethers');
  const { parseMakerOrderInput, toSignedMakerOrder } = await import('../src/domain/maker-order-input.js');
  const { computeOrderDigest, exchangeDomain } = await import('../src/domain/maker-order.js');
  const { checkSignature } = await import('../src/domain/order-signature.js');
  const domain = exchangeDomain(chainId, exchange);
  const sample = signed.slice(0, Math.min(1000, signed.length)).map((s) => {
    const p = parseMakerOrderInput(JSON.parse(s.body));
    if (!p.ok) throw new Error('bad order');
    const order = toSignedMakerOrder(p.value);
    return { order, signature: p.value.signature, digest: computeOrderDigest(order, domain) };
  });
  // a short warm-up for the JIT
  for (const s of sample.slice(0, 100)) checkSignature(s.order, s.signature, domain);
  let t0 = performance.now();
  for (const s of sample) {
    if (checkSignature(s.order, s.signature, domain).problems.length) throw new Error('signature does not verify');
  }
  const check = sample.length / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (const s of sample) recoverAddress(s.digest, s.signature);
  const recover = sample.length / ((performance.now() - t0) / 1000);
  // The same checks through the worker pool, all queued at once (the main thread only dispatches).
  const pools: { threads: number; checkPerSecond: number; cpuPercent: number }[] = [];
  for (const threads of poolSizes) {
    const errors: unknown[] = [];
    const pool = createSignatureVerifier(threads, { onWorkerError: (e) => errors.push(e) });
    try {
      await Promise.all(sample.slice(0, 200).map((s) => pool.check(s.order, s.signature, domain))); // start-up and JIT
      const c0 = process.cpuUsage();
      t0 = performance.now();
      const results = await Promise.all(sample.map((s) => pool.check(s.order, s.signature, domain)));
      const secs = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      if (errors.length || results.some((r) => r.problems.length)) throw new Error(`pool of ${threads}: ${errors.length} worker errors`);
      pools.push({ threads, checkPerSecond: sample.length / secs, cpuPercent: ((c.user + c.system) / 1e6 / secs) * 100 });
    } finally {
      await pool.close();
    }
  }
  return { n: sample.length, checkPerSecond: check, recoverPerSecond: recover, pools };
}

// ---------------------------------------------------------------------------------------------
// Output

function table(header: string[], lines: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cols: string[]) => '| ' + cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  console.log(fmt(header));
  console.log('|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const l of lines) console.log(fmt(l));
}

const f0 = (v: number | null) => (v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(0));
const f1 = (v: number | null) => (v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(1));

function printResults(ms: Measurement[], opts: Options) {
  console.log(
    `\n=== Sustained submissions: ${opts.orders} orders per run, ${opts.concurrency} in flight, keep-alive HTTP, every response 201, ${opts.orders} rows written`,
  );
  console.log(
    `CPU columns: % of ONE core over the run (the machine has ${os.cpus().length} cores = ${os.cpus().length * 100}%); ` +
      `proc = the server process, all threads; postgres = this database's backends + shared server processes; ` +
      `other = machine - proc - load gen - postgres (foreign load); steal = taken by the hypervisor`,
  );
  table(
    ['verifier', 'run', 'orders/s', 'p50 ms', 'p99 ms', 'proc CPU', 'main loop', 'postgres', 'load gen', 'machine', 'other', 'steal'],
    ms.map((m) => [
      m.verifier,
      String(m.run),
      f1(m.perSecond),
      f1(m.p50),
      f1(m.p99),
      `${f0(m.cpu.process)}%`,
      `${f0(m.cpu.mainLoop)}%`,
      m.cpu.postgres === null ? 'n/a' : `${f0(m.cpu.postgres)}%`,
      `${f0(m.cpu.loadGenerator)}%`,
      `${f0(m.cpu.machine)}%`,
      m.cpu.other === null ? 'n/a' : `${f0(m.cpu.other)}%`,
      `${f0(m.cpu.steal)}%`,
    ]),
  );
  const modes = [...new Set(ms.map((m) => m.verifier))];
  if (ms.length > modes.length) {
    console.log(`\n=== Median of the runs per verifier`);
    table(
      ['verifier', 'runs', 'orders/s', 'p50 ms', 'p99 ms', 'proc CPU', 'main loop', 'postgres'],
      modes.map((v) => {
        const xs = ms.filter((m) => m.verifier === v);
        const md = (fn: (m: Measurement) => number | null) => median(xs.map((m) => fn(m) ?? NaN));
        return [v, String(xs.length), f1(md((m) => m.perSecond)), f1(md((m) => m.p50)), f1(md((m) => m.p99)), `${f0(md((m) => m.cpu.process))}%`, `${f0(md((m) => m.cpu.mainLoop))}%`, `${f0(md((m) => m.cpu.postgres))}%`];
      }),
    );
  }
  console.log(`\n=== CPU per order during the sustained run (µs, median of runs)`);
  table(
    ['verifier', 'process, all threads', 'main event loop busy', 'postgres server', 'load generator'],
    modes.map((v) => {
      const xs = ms.filter((m) => m.verifier === v);
      const md = (fn: (m: Measurement) => number | null) => median(xs.map((m) => fn(m) ?? NaN));
      return [v, f0(md((m) => m.cpuPerOrderUs.process)), f0(md((m) => m.cpuPerOrderUs.mainLoop)), f0(md((m) => m.cpuPerOrderUs.postgres)), f0(md((m) => m.cpuPerOrderUs.loadGenerator))];
    }),
  );
  console.log(`\n=== Where the time goes: one order at a time, in-process (${opts.profile} orders per run; µs, median of runs)`);
  console.log('wall = elapsed (includes waiting for PostgreSQL); CPU = this process, all threads; per order = total / orders (recordFloor runs for asks only)');
  const keys = [...new Set(ms.flatMap((m) => Object.keys(m.profile)))];
  const sorted = [
    ...[
      'parseMakerOrderInput',
      'toSignedMakerOrder + computeOrderHash',
      CHECK_INLINE,
      '  EIP-712 digest alone',
      VERIFY_IN_CREATE,
      'db state query',
      'insert transaction (lock, count, insert)',
      'recordFloor (asks only)',
      CREATE_TOTAL,
      HTTP_SEQ,
    ].filter((k) => keys.includes(k)),
    ...keys.filter((k) => k.startsWith('other SQL')),
  ];
  const header = ['stage'];
  for (const v of modes) header.push(`${v}: median per call`, `wall per order`, `CPU per order`);
  const lines = sorted.map((k) => {
    const l = [k];
    for (const v of modes) {
      const xs = ms.filter((m) => m.verifier === v && m.profile[k]);
      l.push(
        f0(median(xs.map((m) => m.profile[k]!.medianUs))),
        f0(median(xs.map((m) => m.profile[k]!.perOrderUs))),
        f0(median(xs.map((m) => m.profile[k]!.cpuPerOrderUs))),
      );
    }
    return l;
  });
  const derived = (name: string, fn: (p: Measurement['profile'], key: 'perOrderUs' | 'cpuPerOrderUs') => number) => {
    const l = [name];
    for (const v of modes) {
      const xs = ms.filter((m) => m.verifier === v);
      l.push('', f0(median(xs.map((m) => fn(m.profile, 'perOrderUs')))), f0(median(xs.map((m) => fn(m.profile, 'cpuPerOrderUs')))));
    }
    lines.push(l);
  };
  // Per-order means add up (recordFloor runs for asks only, so its per-order mean is smaller
  // than its per-call mean); medians do not.
  type P = Measurement['profile'];
  type K = 'perOrderUs' | 'cpuPerOrderUs';
  const per = (p: P, k: string, key: K) => p[k]?.[key] ?? 0;
  const verify = (p: P, key: K) => (p[VERIFY_IN_CREATE] ? per(p, VERIFY_IN_CREATE, key) : per(p, CHECK_INLINE, key));
  derived('= createOrder minus its timed stages (rules, glue)', (p, key) =>
    per(p, CREATE_TOTAL, key) - per(p, 'parseMakerOrderInput', key) - per(p, 'toSignedMakerOrder + computeOrderHash', key) - verify(p, key) -
    per(p, 'db state query', key) - per(p, 'insert transaction (lock, count, insert)', key) - per(p, 'recordFloor (asks only)', key),
  );
  derived('= HTTP + yoga + REST-to-GraphQL overhead (HTTP minus createOrder)', (p, key) => per(p, HTTP_SEQ, key) - per(p, CREATE_TOTAL, key));
  table(header, lines);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '3000' },
      concurrency: { type: 'string', default: '16' },
      db: { type: 'string', default: 'postgres' },
      workers: { type: 'string' },
      runs: { type: 'string', default: '1' },
      warmup: { type: 'string', default: '200' },
      profile: { type: 'string', default: '200' },
      'pg-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
      retries: { type: 'string', default: '3' },
      'quiet-wait': { type: 'string', default: '900' },
    },
  });
  const num = (name: string, v: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}, got "${v}"`);
    return n;
  };
  if (values.db !== 'postgres' && values.db !== 'pglite') throw new Error(`--db must be postgres or pglite, got "${values.db}"`);
  const opts: Options = {
    orders: num('orders', values.orders!, 1),
    concurrency: num('concurrency', values.concurrency!, 1),
    db: values.db,
    workers: values.workers === undefined ? [null] : values.workers.split(',').map((w) => num('workers', w.trim(), 0)),
    runs: num('runs', values.runs!, 1),
    warmup: num('warmup', values.warmup!, 0),
    profile: num('profile', values.profile!, 1),
    pgUrl: values['pg-url']!,
    retries: num('retries', values.retries!, 0),
    quietWaitS: num('quiet-wait', values['quiet-wait']!, 0),
  };

  const { loadConfig } = await import('../src/config.js');
  const network = loadConfig({}).network;
  const collections = Array.from({ length: COLLECTIONS }, (_, i) => `0x${(0xb0 + i).toString(16).repeat(20)}`);
  console.log(
    `submit benchmark on ${opts.db}: ${opts.orders} orders x ${opts.runs} run(s) x SIGNATURE_WORKERS ${opts.workers.map((w) => w ?? 'default').join('/')}, ` +
      `concurrency ${opts.concurrency}; node ${process.version}, ${os.cpus().length} CPUs (server, PostgreSQL and load generator share them)`,
  );

  const total = opts.warmup + opts.orders + 2 * opts.profile;
  let t0 = performance.now();
  const signed = await signOrders(total, network.chainId, network.exchange, { weth: network.weth!, strategy: network.strategies.standardSale[0]! }, collections);
  console.log(`pre-signed ${total} distinct orders (${SIGNERS} signers, distinct nonces) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const poolSizes = [...new Set(opts.workers.map((w) => w ?? loadConfig({}).signatureWorkers).filter((w) => w > 0))];
  await waitForQuiet(opts.quietWaitS * 1000, (m) => console.log(m));
  const rates = await signatureRates(signed, network.chainId, network.exchange, poolSizes);
  console.log(
    `signature recovery on one core (main thread, ${rates.n} orders): checkSignature ${rates.checkPerSecond.toFixed(0)}/s ` +
      `(${(1e6 / rates.checkPerSecond).toFixed(0)} µs), ecrecover alone ${rates.recoverPerSecond.toFixed(0)}/s (${(1e6 / rates.recoverPerSecond).toFixed(0)} µs)`,
  );
  for (const p of rates.pools) {
    console.log(`signature checks through the worker pool, ${p.threads} thread(s), all queued at once: ${p.checkPerSecond.toFixed(0)}/s (process CPU ${p.cpuPercent.toFixed(0)}% of one core)`);
  }

  const driver = new Driver();
  cleanups.push(() => driver.stop());
  t0 = performance.now();
  await driver.load(signed.map((s) => s.body));
  const results: Measurement[] = [];
  for (let run = 1; run <= opts.runs; run++) {
    for (const w of opts.workers) {
      for (let attempt = 1; ; attempt++) {
        const m = await measure(run, w, opts, driver, signed, collections);
        m.attempts = attempt;
        const noisy = m.cpu.other !== null && m.cpu.other > NOISY_OTHER_PCT;
        if (noisy && attempt <= opts.retries) {
          console.log(`  foreign load took ${m.cpu.other!.toFixed(0)}% of a core during that run: measuring it again`);
          continue;
        }
        if (noisy) console.log(`  foreign load took ${m.cpu.other!.toFixed(0)}% of a core during that run; kept after ${attempt} attempts`);
        results.push(m);
        break;
      }
    }
  }
  printResults(results, opts);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `submit-${opts.db}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        benchmark: 'submit',
        at: new Date().toISOString(),
        machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model },
        options: opts,
        signatureRates: rates,
        results,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
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
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error('\nBENCHMARK FAILED:', message.length > 3000 ? `${message.slice(0, 3000)}...` : message);
    await runCleanups();
    process.exit(1);
  }
}
