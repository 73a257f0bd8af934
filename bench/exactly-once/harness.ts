// The exactly-once run, shared by bench/exactly-once.ts and its short form in the tests: two built
// instances (as `npm run cluster` starts them) on one PostgreSQL database and a private
// redis-server, the chain indexer on in both over a local EVM, a randomized market
// (market-driver.ts), stream clients that drop and switch at random (stream-client.ts), and
// instance restarts and Redis outages (chaos.ts). At the end every client's ids are compared with
// the log (check.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startCluster, type Cluster } from '../../scripts/cluster/start-cluster.js';
import { normalizeAddress } from '../../src/domain/address.js';
import { prng } from '../../src/demo/prng.js';
import { startWorld, worldEnv, type World } from '../../test/helpers/indexer-world.js';
import { startPrivateRedis, type PrivateRedis } from '../../test/helpers/private-redis.js';
import { chaosSchedule, runChaos, type Outage } from './chaos.js';
import { compareDelivery, readWholeLog, type Verdict } from './check.js';
import { startHeldWriter } from './held-writer.js';
import { createMarketDriver, type DriverStats } from './market-driver.js';
import { startStreamClient, type ClientSpec, type ClientStats } from './stream-client.js';

export interface ExactlyOnceOptions {
  /** an empty PostgreSQL database (the instances migrate it) */
  databaseUrl: string;
  durationMs: number;
  seed?: number;
  /** mean ms between a client's own drops */
  meanDropMs?: number;
  /** mean ms between two market actions */
  meanGapMs?: number;
  log?: (line: string) => void;
}

export interface ClientResult {
  spec: ClientSpec;
  stats: ClientStats;
  verdict: Verdict;
  /** the longest time from an off-chain event's created_at to its first receipt, ms */
  longestDelayMs: number;
}

export interface ExactlyOnceReport {
  durationMs: number;
  logEvents: number;
  /** events the log's order puts after an event with a higher id (ids commit out of order) */
  inversions: number;
  eventTypes: Map<string, number>;
  driver: DriverStats;
  /** events appended by transactions held open (held-writer.ts) */
  heldEvents: number;
  outages: Outage[];
  clients: ClientResult[];
  met: boolean;
  logDir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runExactlyOnce(opts: ExactlyOnceOptions): Promise<ExactlyOnceReport> {
  const log = opts.log ?? (() => {});
  const rnd = prng(opts.seed ?? 1);
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const world: World = await startWorld();
    cleanups.push(() => world.stop());
    const redis: PrivateRedis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const logDir = mkdtempSync(path.join(tmpdir(), 'exactly-once-'));
    const cluster: Cluster = await startCluster({
      instances: 2,
      logDir,
      env: {
        ...worldEnv(world),
        DATABASE_URL: opts.databaseUrl,
        DATABASE_POOL_SIZE: '6',
        REDIS_URL: redis.url,
        INDEXER: 'on',
        INDEXER_START_BLOCK: '0',
        INDEXER_CONFIRMATIONS: '0',
        INDEXER_BATCH_SIZE: '20',
        INDEXER_POLL_MS: '100',
        SEED: '0',
        RATE_LIMIT_PER_MINUTE: '0',
        SIGNATURE_WORKERS: '0',
        WEBHOOKS: 'false',
        GRAPHIQL: 'false',
        LOG_LEVEL: 'warn',
        SHUTDOWN_TIMEOUT_MS: '3000',
      },
    });
    cleanups.push(() => cluster.stop());
    const db = new pg.Pool({ connectionString: opts.databaseUrl, max: 6 });
    cleanups.push(() => db.end());
    const sql = { query: async <T>(text: string, values?: unknown[]) => (await db.query(text, values)).rows as T[] };
    const { erc721, erc1155 } = world.c.addresses;
    await db.query(
      `INSERT INTO collections (address, owner, name, type) VALUES ($1, $1, 'Exactly-once 721', 'ERC721'), ($2, $2, 'Exactly-once 1155', 'ERC1155') ON CONFLICT DO NOTHING`,
      [normalizeAddress(erc721), normalizeAddress(erc1155)],
    );

    const bases = cluster.instances.map((i) => i.url);
    const specs: ClientSpec[] = [
      { name: 'SSE, every event', transport: 'sse', filter: {} },
      { name: 'SSE, one collection', transport: 'sse', filter: { collection: normalizeAddress(erc721) } },
      { name: 'graphql-ws, every event', transport: 'ws', filter: {} },
      { name: 'graphql-ws, sales and listings', transport: 'ws', filter: { types: ['LIST', 'SALE', 'CANCEL_LIST'] } },
    ];
    const clientOpts = { instances: bases, rnd, meanDropMs: opts.meanDropMs ?? 8000, switchChance: 0.4 };
    const clients = specs.map((s) => startStreamClient(s, clientOpts));
    cleanups.push(async () => clients.forEach((c) => c.close()));

    const indexedBlock = async () => Number((await db.query(`SELECT block_number::text AS n FROM indexer_cursor WHERE stream = 'main'`)).rows[0]?.n ?? -1);
    const driver = createMarketDriver(world, () => bases, rnd, indexedBlock);
    await driver.setup();
    const t0 = performance.now();
    driver.start(opts.meanGapMs ?? 150);
    const held = startHeldWriter(db, normalizeAddress(erc721)!, rnd);
    const schedule = chaosSchedule(opts.durationMs, rnd);
    log(`outages (${schedule.length}):`);
    const outages = await runChaos(schedule, { cluster, redis }, rnd, log);
    const left = opts.durationMs - (performance.now() - t0);
    if (left > 0) await sleep(left);
    await Promise.all([driver.stop(), held.stop()]);
    const durationMs = performance.now() - t0;

    // the end: the indexer has every block, the clients stop dropping and catch up
    const head = await world.evm.provider.getBlockNumber();
    for (const deadline = Date.now() + 60_000; ; ) {
      if ((await indexedBlock()) >= head) break;
      if (Date.now() > deadline) throw new Error(`the indexer did not reach block ${head} within 60 s`);
      await sleep(100);
    }
    for (const c of clients) c.settle();
    const expected = await Promise.all(specs.map((s) => readWholeLog(sql, s.filter as never)));
    let stableSince = Date.now();
    let lastCounts = '';
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const counts = clients.map((c) => c.stats.ids.length).join(',');
      if (counts !== lastCounts) [lastCounts, stableSince] = [counts, Date.now()];
      const caughtUp = clients.every((c, i) => c.stats.ids.length >= expected[i]!.length);
      if ((caughtUp && Date.now() - stableSince > 1000) || Date.now() - stableSince > 10_000) break;
      await sleep(100);
    }
    for (const c of clients) c.close();

    const all = await readWholeLog(sql, {});
    // where the log's reading order (commit order) puts a lower id after a higher one
    let inversions = 0;
    let highest = 0n;
    for (const e of all) {
      const id = BigInt(e.id);
      if (id < highest) inversions++;
      else highest = id;
    }
    const eventTypes = new Map<string, number>();
    for (const e of all) eventTypes.set(e.type, (eventTypes.get(e.type) ?? 0) + 1);
    const createdAt = new Map(all.filter((e) => e.blockNumber === null).map((e) => [e.id, e.createdAt.getTime()]));
    const results: ClientResult[] = clients.map((c, i) => {
      let longestDelayMs = 0;
      const first = new Set<string>();
      c.stats.ids.forEach((id, k) => {
        if (first.has(id)) return;
        first.add(id);
        const made = createdAt.get(id);
        if (made !== undefined) longestDelayMs = Math.max(longestDelayMs, performance.timeOrigin + c.stats.at[k]! - made);
      });
      return { spec: c.spec, stats: c.stats, verdict: compareDelivery(expected[i]!.map((e) => e.id), c.stats.ids), longestDelayMs };
    });
    return {
      durationMs,
      logEvents: all.length,
      inversions,
      eventTypes,
      driver: driver.stats,
      heldEvents: held.written(),
      outages,
      clients: results,
      met: results.every((r) => r.verdict.exact && r.stats.idMismatches === 0) && outages.length > 0,
      logDir,
    };
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  }
}
