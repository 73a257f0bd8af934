// Cluster benchmark: what more gateway instances and a read replica buy on this machine.
//
//   npx tsx bench/cluster-bench.ts [--instances 3] [--duration 8] [--connections 16]
//                                  [--pg-url postgresql://postgres@127.0.0.1:5432/postgres]
//                                  [--orders 2000] [--skip-writes] [--skip-replica]
//
// 1. Reads and writes against 1..N instances (scripts/cluster, one PostgreSQL database created on
//    --pg-url with the demo seed, dropped at the end): autocannon drives every instance at once
//    (--connections split across them) with the REST order-book page and the nested GraphQL
//    orders query; then POST /api/v1/orders with pre-signed distinct orders (each instance
//    verifies the EIP-712 signature: the write path's CPU cost).
// 2. The replica's effect on the primary: a private primary + streaming replica
//    (test/helpers/pg-replica.ts), the same read load through 2 instances without and with
//    DATABASE_REPLICA_URL; prints the primary's pg_stat_database deltas (transactions, tuples
//    returned/fetched, buffer hits) and the replica's.
//
// The load generator runs in this process and shares the CPUs with the instances and
// PostgreSQL: on a 2-core machine the figures say where the curve flattens, not the capacity of
// a real deployment (where gateways, database and clients have their own machines).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Wallet } from 'ethers';
import pg from 'pg';
import { REPO_ROOT, startCluster, type Cluster } from '../scripts/cluster/start-cluster.js';
import { loadConfig } from '../src/config.js';
import { signWithEthers6 } from '../test/helpers/maker-orders.js';
import { pgReplicaUnavailable, startPrimaryWithReplica } from '../test/helpers/pg-replica.js';

const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    'pg-url': { type: 'string', default: process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres' },
    orders: { type: 'string', default: '2000' },
    'skip-writes': { type: 'boolean', default: false },
    'skip-replica': { type: 'boolean', default: false },
  },
});
const MAX = Number(values.instances);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const COLLECTION = '0xC9573CD9E8D6601AF3EcA06CEC3d7d4378fBAE56'; // the demo's first collection

const READS = {
  'REST orders page': {
    method: 'GET' as const,
    path: '/api/v1/orders?isOrderAsk=true&status%5B%5D=VALID&sort=PRICE_ASC&pagination%5Bfirst%5D=20',
  },
  'GraphQL orders+collection+stats': {
    method: 'POST' as const,
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `{ orders(first: 20, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) { edges { node { hash price status collection { name stats { floorPrice volume24h } } } } } }`,
    }),
  },
};

// Ctrl-C / kill: stop the instances and drop what was created, like a normal end.
const cleanups = new Set<() => Promise<unknown>>();
async function cleanUpAndExit(signal: string) {
  console.error(`\n${signal}: cleaning up`);
  for (const c of [...cleanups].reverse()) await c().catch(() => {});
  process.exit(130);
}
process.on('SIGINT', () => void cleanUpAndExit('SIGINT'));
process.on('SIGTERM', () => void cleanUpAndExit('SIGTERM'));

async function started(env: Record<string, string>, instances: number): Promise<Cluster> {
  const cluster = await startCluster({ instances, logDir: mkdtempSync(path.join(os.tmpdir(), 'cluster-bench-')), env });
  cleanups.add(cluster.stop);
  await new Promise((r) => setTimeout(r, 3000)); // signature workers and JIT settle after /readyz
  return cluster;
}
async function stopped(cluster: Cluster) {
  cleanups.delete(cluster.stop);
  await cluster.stop();
}

async function admin(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

function seed(databaseUrl: string) {
  execFileSync(process.execPath, ['scripts/run-built.mjs', 'seed'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', SIGNATURE_WORKERS: '0' },
    stdio: 'inherit',
  });
}

const baseEnv = (databaseUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  SEED: '0',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'warn',
  GRAPHIQL: 'false',
  DATABASE_POOL_SIZE: '8',
});

/** One autocannon per instance at once; total 2xx/s and the worst p99. */
async function load(cluster: Cluster, req: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string }, extra: Partial<autocannon.Options> = {}) {
  const per = Math.max(1, Math.round(CONNECTIONS / cluster.instances.length));
  const results = await Promise.all(
    cluster.instances.map((i) =>
      autocannon({ url: `${i.url}${req.path}`, method: req.method, headers: req.headers, body: req.body, connections: per, ...(extra.amount ? {} : { duration: DURATION }), ...extra }),
    ),
  );
  const ok = results.reduce((s, r) => s + r['2xx'], 0);
  const bad = results.reduce((s, r) => s + r.non2xx + r.errors + r.timeouts, 0);
  const seconds = Math.max(...results.map((r) => r.duration));
  return { rps: ok / seconds, p50: Math.max(...results.map((r) => r.latency.p50)), p99: Math.max(...results.map((r) => r.latency.p99)), bad };
}

const fmt = (n: number) => n.toFixed(0).padStart(7);

async function scaling() {
  const name = `mkt_cluster_bench_${randomBytes(3).toString('hex')}`;
  await admin(values['pg-url']!, `CREATE DATABASE ${name}`);
  const u = new URL(values['pg-url']!);
  u.pathname = `/${name}`;
  const url = u.toString();
  const drop = () => admin(values['pg-url']!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  cleanups.add(drop);
  try {
    seed(url);
    console.log(`\n== reads and writes vs. instances (${os.availableParallelism()} CPUs, ${CONNECTIONS} connections in all, ${DURATION} s each; noisy: shared machine)`);
    console.log('instances  scenario                          req/s    p50 ms   p99 ms  non-2xx');
    const config = loadConfig({});
    const net = config.network;
    const now = Math.floor(Date.now() / 1000);
    for (let n = 1; n <= MAX; n++) {
      const cluster = await started(baseEnv(url), n);
      try {
        for (const [label, req] of Object.entries(READS)) {
          await load(cluster, req, { duration: 3 }); // warm-up
          const r = await load(cluster, req);
          console.log(`${String(n).padStart(9)}  ${label.padEnd(32)} ${fmt(r.rps)} ${fmt(r.p50)} ${fmt(r.p99)} ${fmt(r.bad)}`);
        }
        if (!values['skip-writes']) {
          // Distinct pre-signed orders (a fresh wallet per instance count, one nonce each).
          const wallet = Wallet.createRandom();
          const bodies: string[] = [];
          for (let k = 0; k < Number(values.orders); k++) {
            const signed = await signWithEthers6(wallet as unknown as Wallet, net.chainId, net.exchange, {
              isOrderAsk: true, signer: wallet.address, collection: COLLECTION, price: String(10n ** 15n + BigInt(k)), tokenId: String(k), amount: '1',
              strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: String(k), startTime: now - 60, endTime: now + 86_400, minPercentageToAsk: 9800, params: [],
            });
            bodies.push(JSON.stringify(signed));
          }
          let next = 0;
          const r = await load(
            cluster,
            { method: 'POST', path: '/api/v1/orders', headers: { 'content-type': 'application/json' } },
            {
              amount: Math.floor(bodies.length / n), // per instance: each body is sent once
              requests: [{ method: 'POST', setupRequest: (req: any) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
            } as Partial<autocannon.Options>,
          );
          console.log(`${String(n).padStart(9)}  ${'POST /api/v1/orders (signed)'.padEnd(32)} ${fmt(r.rps)} ${fmt(r.p50)} ${fmt(r.p99)} ${fmt(r.bad)}`);
        }
      } finally {
        await stopped(cluster);
      }
    }
  } finally {
    cleanups.delete(drop);
    await drop();
  }
}

type DbStats = { xact_commit: string; tup_returned: string; tup_fetched: string; blks_hit: string; blks_read: string };
const STATS_SQL = `SELECT xact_commit, tup_returned, tup_fetched, blks_hit, blks_read FROM pg_stat_database WHERE datname = 'postgres'`;
async function snapshot(url: string): Promise<DbStats> {
  await admin(url, 'SELECT pg_stat_clear_snapshot()');
  return (await admin(url, STATS_SQL))[0] as DbStats;
}
const delta = (a: DbStats, b: DbStats) =>
  Object.fromEntries(Object.keys(a).map((k) => [k, Number(b[k as keyof DbStats]) - Number(a[k as keyof DbStats])])) as Record<keyof DbStats, number>;

async function replicaEffect() {
  if (pgReplicaUnavailable) {
    console.log(`\n== replica effect: skipped (${pgReplicaUnavailable})`);
    return;
  }
  const pgs = await startPrimaryWithReplica();
  cleanups.add(pgs.stop);
  try {
    seed(pgs.primaryUrl);
    await pgs.waitCaughtUp(60_000);
    console.log(`\n== the replica's effect on the primary (2 instances, REST orders page, ${DURATION} s; noisy: shared machine)`);
    console.log('setup            req/s  primary xact  primary tuples  primary buf hits  replica xact  replica tuples');
    for (const withReplica of [false, true]) {
      const env = { ...baseEnv(pgs.primaryUrl), ...(withReplica ? { DATABASE_REPLICA_URL: pgs.replicaUrl } : {}) };
      const cluster = await started(env, 2);
      try {
        await load(cluster, READS['REST orders page'], { duration: 3 });
        await new Promise((r) => setTimeout(r, 600)); // stats are flushed at most every 500 ms
        const [p0, r0] = [await snapshot(pgs.primaryUrl), await snapshot(pgs.replicaUrl)];
        const r = await load(cluster, READS['REST orders page']);
        await new Promise((r) => setTimeout(r, 600));
        const [p1, r1] = [await snapshot(pgs.primaryUrl), await snapshot(pgs.replicaUrl)];
        const dp = delta(p0, p1);
        const dr = delta(r0, r1);
        console.log(
          `${(withReplica ? 'with replica' : 'primary only').padEnd(14)} ${fmt(r.rps)} ${String(dp.xact_commit).padStart(13)} ${String(dp.tup_returned + dp.tup_fetched).padStart(15)} ${String(dp.blks_hit).padStart(17)} ${String(dr.xact_commit).padStart(13)} ${String(dr.tup_returned + dr.tup_fetched).padStart(15)}`,
        );
      } finally {
        await stopped(cluster);
      }
    }
    console.log('(primary xact with the replica: the lag probe, 2/s per instance, plus whatever the instances still read there)');
  } finally {
    cleanups.delete(pgs.stop);
    await pgs.stop();
  }
}

await scaling();
if (!values['skip-replica']) await replicaEffect();
