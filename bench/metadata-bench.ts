// Token metadata ingestion against the goal in docs/performance.md ("Token metadata ingestion"):
// a collection of --tokens tokens on a local EVM (TestERC721, tokenURI = base + id) whose documents
// sit behind a loopback server answering in 50-200 ms, with transient failures (500, 502, 503 or
// a dropped connection) and some 429s with Retry-After. The service runs its own metadata worker
// with its own settings (RPC_URL at the local EVM, METADATA_ALLOW_PRIVATE_TARGETS=true); the
// tokens arrive as the indexer writes a mint (token_transfers from the zero address, which the log
// turns into MINT events, and token_balances), so the worker discovers them itself. Meanwhile a
// steady book-page load (the 50 cheapest live asks with their collection) is timed at rest and
// during ingestion.
//
// Prints: tokens OK and ERROR by code, the time until every token was OK or ERROR with a code,
// tokens/s, the server's RSS at most, the book page's p50/p99 at rest and during ingestion, what
// the metadata server saw, and one MET / NOT MET line per goal.
//
//   npx tsx bench/metadata-bench.ts [--tokens 10000] [--db postgres|pglite|both] [--concurrency 64] [--per-host 32]
//        [--orders 20000] [--book-rate 100] [--book-connections 4] [--rest-seconds 15] [--timeout-seconds 240]
//        [--error-rate 0.02] [--rate-429 0.001] [--retry-after 1] [--rounds 1] [--compare DIR] [--root DIR] [--pg-url ...]
//        [--log-level silent] (the service's) [--cpu-prof DIR] (a CPU profile of the built server, written when it exits)
//
// PostgreSQL (the default) serves the built server as `npm start` does; on PGlite the service runs
// from the sources (tsx) in a child process that also answers the bench's SQL (the bench cannot
// reach an embedded database another process holds). --compare DIR adds the build of another checkout (a copy of this one with another
// worker, say), run in turn with this one in each of --rounds rounds, each round on a new database.
import { execFile, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import type { SqlRunner } from '../src/db/sql-runner.js';
import {
  BENCH_APP_ENV,
  bootBenchApp,
  cpuSeconds,
  createBenchDatabase,
  fixed,
  generateCollections,
  JSON_HEADERS,
  LoadDriver,
  loadMarket,
  machine,
  onCleanup,
  percentile,
  request,
  runBench,
  sampleRss,
  serveApp,
  SERVER_NODE_FLAGS,
  startBuiltServer,
  table,
  type DbKind,
  type LoadJob,
} from './helpers.js';
import { NESTED_QUERY } from './peer-queries.js';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const GOAL_SECONDS = 60;
const GOAL_RSS_MB = 300;
const GOAL_P99_RATIO = 1.5;
const ZERO = '0x0000000000000000000000000000000000000000';

// ---------------------------------------------------------------------------------------------
// The metadata host (a child process: its event loop is not the bench's)

interface HostConfig {
  minMs: number;
  maxMs: number;
  errorRate: number;
  rate429: number;
  retryAfterSeconds: number;
}

interface HostStats {
  requests: number;
  ok: number;
  http5xx: number;
  dropped: number;
  http429: number;
  maxInFlight: number;
  /** sum of request durations, ms (divided by wall time: the mean requests in flight) */
  busyMs: number;
}

/** 32-bit mix of (id, salt): the documents are the same on every run. */
function mix(id: number, salt: number): number {
  let x = (id ^ Math.imul(salt, 0x9e3779b9)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return (x ^ (x >>> 16)) >>> 0;
}
const TRAITS: [string, number][] = [
  ['Background', 8],
  ['Body', 12],
  ['Eyes', 20],
  ['Mouth', 15],
  ['Headwear', 30],
];
/** A generative-art document (about 800 bytes): five string traits with skewed rarity and a number. */
function documentOf(id: number): string {
  const attributes: object[] = TRAITS.map(([t, n], i) => {
    const u = mix(id, i + 1) / 2 ** 32;
    return { trait_type: t, value: `${t} ${Math.floor(n * u * u)}` };
  });
  attributes.push({ trait_type: 'Level', value: 1 + (mix(id, 9) % 100), display_type: 'number' });
  return JSON.stringify({
    name: `Bench Creature #${id}`,
    description: `Creature ${id} of a generated collection, drawn from ${TRAITS.length} layers of hand-made parts. Holders may use it as a profile picture.`,
    image: `ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/${id}.png`,
    external_url: `https://creatures.example/${id}`,
    attributes,
  });
}

function runMetadataHost(cfg: HostConfig) {
  const stats: HostStats = { requests: 0, ok: 0, http5xx: 0, dropped: 0, http429: 0, maxInFlight: 0, busyMs: 0 };
  let inFlight = 0;
  const server = createServer((req, res) => {
    const started = performance.now();
    stats.requests++;
    stats.maxInFlight = Math.max(stats.maxInFlight, ++inFlight);
    res.on('close', () => {
      inFlight--;
      stats.busyMs += performance.now() - started;
    });
    const m = /^\/meta\/(\d+)$/.exec(req.url ?? '');
    const roll = Math.random();
    setTimeout(
      () => {
        if (!m) return void res.writeHead(404).end();
        if (roll < cfg.rate429) {
          stats.http429++;
          return void res.writeHead(429, { 'retry-after': String(cfg.retryAfterSeconds) }).end();
        }
        if (roll < cfg.rate429 + cfg.errorRate) {
          const kind = Math.floor(((roll - cfg.rate429) / cfg.errorRate) * 4);
          if (kind === 3) {
            stats.dropped++;
            return void req.socket.destroy();
          }
          stats.http5xx++;
          return void res.writeHead([500, 502, 503][kind]!).end();
        }
        stats.ok++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(documentOf(Number(m[1])));
      },
      cfg.minMs + Math.random() * (cfg.maxMs - cfg.minMs),
    );
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: { stats?: boolean }) => m.stats && process.send!({ stats: { ...stats } }));
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// The local EVM (a child process: its CPU is not the bench's)

async function runEvm(baseUri: string) {
  const { startLocalEvm } = await import('../test/helpers/evm/local-evm.js');
  const { deployContract } = await import('../test/helpers/evm/deploy.js');
  type TestERC721 = import('../test/helpers/evm/deploy.js').TestERC721;
  const evm = await startLocalEvm();
  const nft = await deployContract<TestERC721>('TestERC721', evm.wallets[0]!, 'Bench Creatures', 'BCR');
  // tokenURI(id) = base + id, minted or not: the chain holds no 10,000 mints, the index does
  await (await nft.setBaseURI(baseUri)).wait();
  process.send!({ rpcUrl: evm.rpcUrl, collection: await nft.getAddress(), holder: evm.wallets[1]!.address });
  process.on('disconnect', () => void evm.stop().finally(() => process.exit(0)));
}

// ---------------------------------------------------------------------------------------------
// The service on PGlite (a child process: the embedded database lives in the service's process,
// so the bench reaches it through the service; from the sources through tsx, not dist/)

async function runService(env: Record<string, string>) {
  const running = await bootBenchApp({ kind: 'pglite', env: { DATA_DIR: process.env.DATA_DIR! }, describe: '' }, { env });
  const { base } = await serveApp(running.handle);
  process.on('message', (m: { sql?: string; params?: unknown[] }) => {
    if (!m.sql) return;
    running.db.sql.query(m.sql, m.params).then(
      (rows) => process.send!({ rows }),
      (err: Error) => process.send!({ error: err.message }),
    );
  });
  process.on('disconnect', () => void running.close().finally(() => process.exit(0)));
  process.send!({ port: Number(new URL(base).port) });
}

/** This script in another role; `niceness`: started under nice(1), every thread of it. */
function child<T>(args: string[], env: NodeJS.ProcessEnv = process.env, niceness = 0) {
  const c = fork(SELF, args, {
    ...(niceness ? { execPath: 'nice', execArgv: ['-n', String(niceness), process.execPath, ...process.execArgv] } : { execArgv: process.execArgv }),
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  onCleanup(() => void (c.exitCode === null && c.kill()));
  const waiters: ((m: any) => void)[] = [];
  const ready = new Promise<T>((resolve, reject) => {
    c.once('exit', (code) => reject(new Error(`${args[0]} exited (${code})`)));
    c.once('message', (m: T) => {
      c.on('message', (x) => waiters.shift()?.(x));
      resolve(m);
    });
  });
  return {
    ready,
    pid: c.pid!,
    ask: <R>(m: object) =>
      new Promise<R>((resolve) => {
        waiters.push(resolve);
        c.send(m);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (c.exitCode !== null) return resolve();
        c.once('exit', () => resolve());
        c.disconnect();
      }),
  };
}

/** CPU seconds the backends used that were connected to this database at `pids` time (from /proc; others' databases left out). */
function backendsCpuSeconds(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += cpuSeconds(pid);
    } catch {}
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// One round: a new database, the service, rest, ingestion

const { values: args } = parseArgs({
  options: {
    tokens: { type: 'string', default: '10000' },
    db: { type: 'string', default: 'postgres' },
    concurrency: { type: 'string', default: '64' },
    'per-host': { type: 'string', default: '32' },
    orders: { type: 'string', default: '20000' },
    collections: { type: 'string', default: '100' },
    'book-rate': { type: 'string', default: '100' },
    'book-connections': { type: 'string', default: '4' },
    'rest-seconds': { type: 'string', default: '15' },
    'timeout-seconds': { type: 'string', default: '240' },
    'error-rate': { type: 'string', default: '0.02' },
    'rate-429': { type: 'string', default: '0.001' },
    'retry-after': { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    root: { type: 'string' },
    compare: { type: 'string' },
    'pg-url': { type: 'string' },
    role: { type: 'string' },
    host: { type: 'string' },
    'base-uri': { type: 'string' },
    env: { type: 'string' },
    /** the service's LOG_LEVEL (silent by default, as every bench's) */
    'log-level': { type: 'string', default: 'silent' },
    /** a CPU profile of the built server per variant, written when it exits */
    'cpu-prof': { type: 'string' },
  },
  strict: false,
});
const TOKENS = Number(args.tokens);
const TIMEOUT_MS = Number(args['timeout-seconds']) * 1000;
const BOOK_RATE = Number(args['book-rate']);
const BOOK_CONNECTIONS = Number(args['book-connections']);
const REST_SECONDS = Number(args['rest-seconds']);
const SETTINGS = { METADATA_CONCURRENCY: String(args.concurrency), METADATA_PER_HOST_CONCURRENCY: String(args['per-host']) };

/** Chain 31337 has no address book: these stand in (no order is submitted or indexed here). */
const NETWORK_ENV = {
  CHAIN_ID: '31337',
  EXCHANGE_ADDRESS: '0x' + '1e'.repeat(20),
  WETH_ADDRESS: '0x' + '2e'.repeat(20),
  TRANSFER_MANAGER_ERC721_ADDRESS: '0x' + '3e'.repeat(20),
  TRANSFER_MANAGER_ERC1155_ADDRESS: '0x' + '4e'.repeat(20),
  STRATEGY_STANDARD_SALE_ADDRESSES: '0x' + '5a'.repeat(20),
  STRATEGY_COLLECTION_OFFER_ADDRESSES: '0x' + '6b'.repeat(20),
};

interface Sql {
  query<T = any>(text: string, params?: unknown[]): Promise<T[]>;
}

interface RoundResult {
  label: string;
  settledSeconds: number | null;
  settled: number;
  byCode: Map<string, number>;
  rssMaxMb: number;
  /** before ingestion, after it, and the two together (the figure the goal is judged on) */
  rest: { p50: number; p99: number; n: number; bad: number };
  restAfter: { p50: number; p99: number; n: number; bad: number };
  restBoth: { p50: number; p99: number; n: number; bad: number };
  during: { p50: number; p99: number; n: number; bad: number };
  cpuPercent: number;
  /** CPU % of one core during ingestion: the local EVM, the metadata host, PostgreSQL (this database's backends) */
  evmCpuPercent: number;
  hostCpuPercent: number;
  pgCpuPercent: number | null;
  /** the worker's statements (the book page's taken off) per token */
  statementsPerToken: number | null;
  bookChunks: string[];
  host: HostStats & { seconds: number };
  timeline: string[];
}

/**
 * A new database with the read benches' market, the collection registered and the log's cursor at
 * its end (the generated market's events name tokens of contracts that do not exist: as if
 * discovered long ago). On PostgreSQL the build that will serve it applies the migrations (another
 * checkout may have other ones) and the data is written over plain pg; PGlite is loaded through
 * this checkout's sources, which serve it too.
 */
async function prepareDatabase(kind: DbKind, root: string, collection: string) {
  const db = await createBenchDatabase(kind, { prefix: 'metadata', pgUrl: args['pg-url'] as string | undefined });
  const collections = await generateCollections(Number(args.collections));
  const network = loadConfig({ ...BENCH_APP_ENV, ...NETWORK_ENV }).network;
  let sql: Pick<SqlRunner, 'query' | 'exec'>;
  let close: () => Promise<void>;
  if (kind === 'postgres') {
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [path.join(root, 'scripts', 'run-built.mjs'), 'migrate'], { env: { ...process.env, ...BENCH_APP_ENV, ...db.env } }, (err, _out, stderr) =>
        err ? reject(new Error(`migrate (${root}): ${stderr}`)) : resolve(),
      ),
    );
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    sql = { query: async <T,>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[], exec: async (text: string) => void (await client.query(text)) };
    close = () => client.end();
  } else {
    const loader = await bootBenchApp(db, { env: NETWORK_ENV });
    sql = loader.db.sql;
    close = loader.close;
  }
  await loadMarket({ db: { sql: sql as SqlRunner }, services: { deps: { network } } }, collections, Number(args.orders));
  await sql.query(`INSERT INTO collections (address, owner, name, symbol, type) VALUES ($1, $2, 'Bench Creatures', 'BCR', 'ERC721')`, [collection, ZERO]);
  await sql.query(
    `UPDATE metadata_discovery_cursor c SET tx_id = l.tx_id, event_id = l.id FROM (SELECT tx_id, id FROM market_events ORDER BY tx_id DESC, id DESC LIMIT 1) l WHERE c.id = 1`,
  );
  await close();
  return { db, book: collections[0]!.address };
}

async function runRound(
  kind: DbKind,
  variant: { name: string; root: string },
  evm: { rpcUrl: string; collection: string; holder: string; pid: number },
  host: { ask: <R>(m: object) => Promise<R>; pid: number },
  driver: LoadDriver,
): Promise<RoundResult> {
  const { db, book } = await prepareDatabase(kind, variant.root, evm.collection);
  const serviceEnv = { ...NETWORK_ENV, RPC_URL: evm.rpcUrl, METADATA_ALLOW_PRIVATE_TARGETS: 'true', ...SETTINGS, INDEXER: 'off', WEBHOOKS: 'false', SIGNATURE_WORKERS: '0', LOG_LEVEL: String(args['log-level']) };
  let base: string;
  let pid: number;
  let sql: Sql;
  let statements: (() => Promise<number>) | null = null;
  let cpu: () => number;
  let stop: () => Promise<void>;
  if (kind === 'postgres') {
    const flags = args['cpu-prof'] ? [...SERVER_NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'] as string, variant.name)}`] : SERVER_NODE_FLAGS;
    const server = startBuiltServer({ ...db.env, NODE_ENV: 'production', ...serviceEnv }, flags, variant.root);
    base = await server.base();
    pid = server.pid;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    sql = { query: async (text, params) => (await client.query(text, params as unknown[])).rows };
    statements = () => server.statements();
    cpu = () => server.cpuSeconds();
    stop = async () => {
      await client.end();
      server.stop();
      await new Promise((r) => (server.child.exitCode === null ? server.child.once('exit', r) : r(null)));
    };
  } else {
    const service = child<{ port: number }>(['--role=service', `--env=${JSON.stringify({ ...serviceEnv, NODE_ENV: 'production' })}`], { ...process.env, ...db.env, NODE_ENV: 'production' });
    base = `http://127.0.0.1:${(await service.ready).port}`;
    pid = service.pid;
    sql = {
      query: async (text, params) => {
        const answer = await service.ask<{ rows?: any[]; error?: string }>({ sql: text, params });
        if (answer.error) throw new Error(answer.error);
        return answer.rows!;
      },
    };
    cpu = () => cpuSeconds(pid);
    stop = service.stop;
  }

  const job: Omit<LoadJob, 'duration'> = {
    url: `${base}/graphql`,
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ query: NESTED_QUERY, variables: { collection: book } }),
    expectPrefix: '{"data"',
    refuse: '"errors"',
    connections: BOOK_CONNECTIONS,
    overallRate: BOOK_RATE,
    keepTimes: true,
  };
  const check = await request(job.url, { method: 'POST', body: job.body });
  const rows = check.json?.data?.orders?.edges?.length ?? 0;
  if (!check.text.startsWith('{"data"') || rows === 0) throw new Error(`the book page answers ${check.text.slice(0, 300)}`);

  const rss = sampleRss(pid, 200);
  await driver.run({ ...job, duration: 3 });
  const restStatements0 = statements ? await statements() : 0;
  const rest = await driver.run({ ...job, duration: REST_SECONDS });
  // statements per book page (and the idle worker's polls) at rest: taken off the ingestion's count
  const restStatementsPerAnswer = statements ? ((await statements()) - restStatements0) / rest.times!.length : 0;

  // the mint, as the indexer writes it: transfers from the zero address (MINT events) and balances
  const host0 = await host.ask<{ stats: HostStats }>({ stats: true });
  const statements0 = statements ? await statements() : 0;
  const cpu0 = cpu();
  const backends = kind === 'postgres' ? (await sql.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).map((r) => r.pid) : [];
  const others0 = [cpuSeconds(evm.pid), cpuSeconds(host.pid), backendsCpuSeconds(backends)];
  const t0 = performance.now();
  await sql.query(
    `WITH t AS (
       INSERT INTO token_transfers (collection_address, token_id, from_address, to_address, amount, block_number, tx_hash, log_index, batch_index)
       SELECT $1, g, $2, $3, 1, 1000 + g / 100, '0x' || lpad(to_hex(1000 + g / 100), 64, '0'), g % 100, 0 FROM generate_series(1, $4::int) g RETURNING 1)
     INSERT INTO token_balances (collection_address, token_id, owner, balance) SELECT $1, g, $3, 1 FROM generate_series(1, $4::int) g`,
    [evm.collection, ZERO, evm.holder, TOKENS],
  );

  let settledAt: number | null = null;
  let settled = 0;
  const timeline: string[] = [];
  let nextReport = 5000;
  const counts = () =>
    sql.query<{ status: string; code: string | null; n: number }>(
      `SELECT status::text AS status, error_code AS code, count(*)::int AS n FROM token_metadata WHERE collection_address = $1 GROUP BY 1, 2`,
      [evm.collection],
    );
  const watching = (async () => {
    while (settledAt === null && performance.now() - t0 < TIMEOUT_MS) {
      await new Promise((r) => setTimeout(r, 250));
      const c = await counts();
      settled = c.filter((r) => r.status === 'OK' || (r.status === 'ERROR' && r.code !== null)).reduce((a, r) => a + r.n, 0);
      const elapsed = performance.now() - t0;
      if (settled >= TOKENS) settledAt = elapsed;
      if (elapsed >= nextReport) {
        timeline.push(`${fixed(elapsed / 1000, 0)} s: ${settled}`);
        nextReport += 5000;
      }
    }
  })();
  const during: number[] = [];
  /** the book page's p99 per 2 s of ingestion, at its end */
  const chunks: string[] = [];
  let duringBad = 0;
  while (settledAt === null && performance.now() - t0 < TIMEOUT_MS) {
    const r = await driver.run({ ...job, duration: 2 });
    during.push(...r.times!);
    duringBad += r.errors + r.timeouts + r.non2xx + r.mismatches;
    chunks.push(`${fixed((performance.now() - t0) / 1000, 0)} s: ${fixed(percentile(r.times!, 99), 0)}`);
  }
  await watching;
  const seconds = (performance.now() - t0) / 1000;
  const cpuPercent = ((cpu() - cpu0) / seconds) * 100;
  const [evmCpuPercent, hostCpuPercent, pgCpuPercent] = [cpuSeconds(evm.pid), cpuSeconds(host.pid), backendsCpuSeconds(backends)].map((x, i) => ((x - others0[i]!) / seconds) * 100);
  const statementsPerToken = statements ? ((await statements()) - statements0 - during.length * restStatementsPerAnswer) / TOKENS : null;
  const host1 = await host.ask<{ stats: HostStats }>({ stats: true });
  const byCode = new Map<string, number>();
  for (const r of await counts()) byCode.set(r.status === 'OK' ? 'OK' : `${r.status}${r.code ? ` ${r.code}` : ''}`, r.n);
  // at rest again (the worker's last ranking done): how far the machine alone moves a p99
  await new Promise((r) => setTimeout(r, 3000));
  const restAfter = await driver.run({ ...job, duration: REST_SECONDS });
  const memory = rss.stop();
  await stop();

  const hostDelta = Object.fromEntries(Object.entries(host1.stats).map(([k, v]) => [k, k === 'maxInFlight' ? v : v - (host0.stats as any)[k]])) as unknown as HostStats;
  const sortedDuring = Float64Array.from(during).sort();
  const summary = (times: ArrayLike<number>, bad: number) => ({ p50: percentile(times, 50), p99: percentile(times, 99), n: times.length, bad });
  return {
    label: `${variant.name} on ${kind}`,
    settledSeconds: settledAt === null ? null : settledAt / 1000,
    settled,
    byCode,
    rssMaxMb: memory.maxMb,
    rest: summary(rest.times!, rest.errors + rest.timeouts + rest.non2xx + rest.mismatches),
    restAfter: summary(restAfter.times!, restAfter.errors + restAfter.timeouts + restAfter.non2xx + restAfter.mismatches),
    restBoth: summary(Float64Array.from([...rest.times!, ...restAfter.times!]).sort(), 0),
    during: summary(sortedDuring, duringBad),
    cpuPercent,
    evmCpuPercent: evmCpuPercent!,
    hostCpuPercent: hostCpuPercent!,
    pgCpuPercent: kind === 'postgres' ? pgCpuPercent! : null,
    statementsPerToken,
    bookChunks: chunks,
    host: { ...hostDelta, seconds },
    timeline,
  };
}

function report(r: RoundResult) {
  const codes = [...r.byCode].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(', ');
  const done = r.settledSeconds !== null;
  console.log(`\n--- ${r.label}`);
  console.log(`tokens: ${codes || 'none'} (${r.settled} of ${TOKENS} OK or ERROR with a code)`);
  console.log(`progress (settled tokens): ${r.timeline.join(', ') || '-'}`);
  console.log(`book page p99 (ms) per 2 s of ingestion: ${r.bookChunks.join(', ')}`);
  console.log(
    `metadata host: ${r.host.requests} requests (${r.host.ok} 200, ${r.host.http5xx} 5xx, ${r.host.dropped} dropped, ${r.host.http429} 429), ` +
      `in flight ${fixed(r.host.busyMs / 1000 / r.host.seconds, 1)} on average, ${r.host.maxInFlight} at most`,
  );
  console.log(
    table(
      ['', 'all settled s', 'tokens/s', 'RSS max MB', 'service CPU %', 'worker SQL/token'],
      [
        [
          r.label,
          done ? fixed(r.settledSeconds!, 1) : `> ${fixed(TIMEOUT_MS / 1000, 0)}`,
          fixed(r.settled / (done ? r.settledSeconds! : r.host.seconds), 0),
          fixed(r.rssMaxMb, 0),
          fixed(r.cpuPercent, 0),
          r.statementsPerToken === null ? '-' : fixed(r.statementsPerToken, 2),
        ],
      ],
    ),
  );
  console.log(
    table(
      ['book page (ms)', 'answers', 'p50', 'p99'],
      [
        ['at rest, before', r.rest.n, fixed(r.rest.p50, 1), fixed(r.rest.p99, 1)],
        ['at rest, after', r.restAfter.n, fixed(r.restAfter.p50, 1), fixed(r.restAfter.p99, 1)],
        ['at rest, both', r.restBoth.n, fixed(r.restBoth.p50, 1), fixed(r.restBoth.p99, 1)],
        ['during ingestion', r.during.n, fixed(r.during.p50, 1), fixed(r.during.p99, 1)],
      ],
    ),
  );
  const bad = r.rest.bad + r.restAfter.bad + r.during.bad;
  console.log(
    `CPU during ingestion, % of one core: service ${fixed(r.cpuPercent, 0)}, PostgreSQL ${r.pgCpuPercent === null ? '-' : fixed(r.pgCpuPercent, 0)} (this database's backends), ` +
      `local EVM ${fixed(r.evmCpuPercent, 0)}, metadata host ${fixed(r.hostCpuPercent, 0)} (these two at nice 10); load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`,
  );
  if (bad) console.log(`book page: ${r.rest.bad + r.restAfter.bad} bad answers at rest, ${r.during.bad} during ingestion`);
  const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
  console.log(`Goal: every token OK or ERROR with a code within ${GOAL_SECONDS} s: ${verdict(done && r.settledSeconds! <= GOAL_SECONDS)} (${done ? `${fixed(r.settledSeconds!, 1)} s` : `${r.settled} of ${TOKENS} after ${fixed(r.host.seconds, 0)} s`})`);
  console.log(`Goal: RSS under ${GOAL_RSS_MB} MB: ${verdict(r.rssMaxMb < GOAL_RSS_MB)} (${fixed(r.rssMaxMb, 0)} MB)`);
  console.log(
    `Goal: book page p99 during ingestion within ${GOAL_P99_RATIO}x of its p99 at rest (before and after together): ${verdict(r.during.p99 <= GOAL_P99_RATIO * r.restBoth.p99 && bad === 0)} ` +
      `(${fixed(r.during.p99, 1)} ms against ${fixed(r.restBoth.p99, 1)} ms: ${fixed(r.during.p99 / r.restBoth.p99, 2)}x; the two rests alone ${fixed(r.rest.p99, 1)} and ${fixed(r.restAfter.p99, 1)} ms)`,
  );
}

async function main() {
  const kinds: DbKind[] = args.db === 'both' ? ['postgres', 'pglite'] : [args.db as DbKind];
  const variants = [{ name: args.compare ? 'this' : 'service', root: path.resolve((args.root as string | undefined) ?? ROOT) }];
  if (args.compare) variants.push({ name: 'compare', root: path.resolve(args.compare as string) });
  const hostCfg: HostConfig = { minMs: 50, maxMs: 200, errorRate: Number(args['error-rate']), rate429: Number(args['rate-429']), retryAfterSeconds: Number(args['retry-after']) };
  // the host and the EVM stand in for machines of their own (the collection's host, a node
  // provider): on this machine's two cores they yield to the service and PostgreSQL
  const host = child<{ port: number }>(['--role=host', `--host=${JSON.stringify(hostCfg)}`], process.env, 10);
  const origin = `http://127.0.0.1:${(await host.ready).port}`;
  const evmChild = child<{ rpcUrl: string; collection: string; holder: string }>(['--role=evm', `--base-uri=${origin}/meta/`], process.env, 10);
  const evm = { ...(await evmChild.ready), pid: evmChild.pid };
  console.log(
    `metadata bench: ${TOKENS} tokens of an ERC-721 on a local EVM, documents at ${origin} in ${hostCfg.minMs}-${hostCfg.maxMs} ms, ` +
      `${hostCfg.errorRate * 100}% transient failures (500, 502, 503, dropped connection), ${hostCfg.rate429 * 100}% 429 with Retry-After: ${hostCfg.retryAfterSeconds}; ` +
      `book page at ${BOOK_RATE} req/s over ${BOOK_CONNECTIONS} connections (${args.orders} orders, ${args.collections} collections), at rest ${REST_SECONDS} s; ${machine()}; ${new Date().toISOString()}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`,
  );
  console.log(
    `service settings: METADATA_CONCURRENCY=${SETTINGS.METADATA_CONCURRENCY} METADATA_PER_HOST_CONCURRENCY=${SETTINGS.METADATA_PER_HOST_CONCURRENCY}, ` +
      `METADATA_RETRIES and METADATA_TIMEOUT_MS at their defaults (3, 10000). The defaults (32 and 8) are polite for hosts on the internet and too few for this goal: ` +
      `8 reads in flight at 125 ms is at most 64 documents/s (${fixed(TOKENS / 64, 0)} s for ${TOKENS} tokens). A collection whose documents sit on one known host ` +
      `needs METADATA_PER_HOST_CONCURRENCY raised (32: about 256 documents/s before Retry-After pauses) and METADATA_CONCURRENCY about twice that ` +
      `(a token waiting for the chain or a retry's backoff holds a slot but no request)`,
  );
  for (const v of variants) console.log(`${v.name}: the build of ${v.root}`);
  const driver = new LoadDriver();
  const results: RoundResult[] = [];
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const kind of kinds) {
      for (const v of kind === 'pglite' ? [{ name: 'sources (tsx)', root: ROOT }] : variants) {
        const r = await runRound(kind, v, evm, host, driver);
        r.label = `${r.label}${Number(args.rounds) > 1 ? `, round ${round + 1}` : ''}`;
        report(r);
        results.push(r);
      }
    }
  }
  if (results.length > 1) {
    console.log(`\n=== summary, ${new Date().toISOString()}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log(
      table(
        ['run', 'all settled s', 'tokens/s', 'RSS max MB', 'book p99 rest before/after ms', 'p99 during ms', 'ratio to both rests'],
        results.map((r) => [
          r.label,
          r.settledSeconds === null ? `> ${fixed(TIMEOUT_MS / 1000, 0)}` : fixed(r.settledSeconds, 1),
          fixed(r.settled / (r.settledSeconds ?? r.host.seconds), 0),
          fixed(r.rssMaxMb, 0),
          `${fixed(r.rest.p99, 1)} / ${fixed(r.restAfter.p99, 1)}`,
          fixed(r.during.p99, 1),
          fixed(r.during.p99 / r.restBoth.p99, 2),
        ]),
      ),
    );
  }
}

if (args.role === 'service') await runService(JSON.parse(args.env as string));
else if (args.role === 'host') runMetadataHost(JSON.parse(args.host as string));
else if (args.role === 'evm') await runEvm(args['base-uri'] as string);
else await runBench(main);
