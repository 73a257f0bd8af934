// Peer benchmark (issue 9): in one run on one PostgreSQL database with the same generated data,
// this service's nested GraphQL query against PostGraphile v5 (amber preset) answering the
// equivalent query over the same tables and the hand-written SQL floor through pg; also GET
// /api/v1/orders and the collection page (collection + stats + orders + listing rewards) on
// this service. Prints req/s, p50, p99, ratios, SQL statements per request (counted on the wire
// to PostgreSQL in each server) and resident memory idle and under load, then the same for this service
// on the embedded PGlite. Every server runs in its own process; autocannon in another. This
// service runs as `npm start` runs it: dist/ through scripts/run-built.mjs, plain Node, no tsx
// (bench/server-probe.mjs preloaded to count statements and report memory); the peers through tsx.
//
//   npm run bench:peer -- [--orders 100000] [--collections 1000] [--duration 10] [--warmup 3]
//                         [--connections 8] [--rounds 3] [--pg-url postgresql://...] [--no-pglite]
//                         [--app built|tsx] [--app-flags='--max-old-space-size=1024']
// --app tsx serves this service's sources through tsx instead (how it was measured before);
// --app-flags gives its process other Node flags than the start path's (to weigh one).
//
// The three nested-query servers are measured in --rounds interleaved rounds (A B C, A B C, ...)
// and each is reported by its median round, so a burst of other load on a shared machine
// does not land on one server only.
//
// Before load, the answers are checked: the floor's JSON equals this service's, PostGraphile
// returns the same orders. The numbers are only comparable within one run (same machine load).
import { isDeepStrictEqual, parseArgs } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bootBenchApp,
  ChildServer,
  createBenchDatabase,
  DEFAULT_PG_URL,
  fixed,
  generateCollections,
  JSON_HEADERS,
  LoadDriver,
  loadMarket,
  machine,
  request,
  rssMb,
  runBench,
  sampleRss,
  startBuiltServer,
  table,
  type ChildMemory,
  type BenchDatabase,
  type LoadJob,
} from './helpers.js';
import { FLOOR_NESTED_SQL, NESTED_QUERY, PAGE_QUERY, PEER_SETUP_SQL, POSTGRAPHILE_QUERY, restOrdersPath } from './peer-queries.js';

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'peer-servers.ts');
// Every server runs as in production: graphql-js skips its development-only checks
// (instanceOf across realms) and Grafast its development mode.
const SERVER_ENV = { NODE_ENV: 'production', GRAPHILE_ENV: 'production' };

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '100000' },
    collections: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    rounds: { type: 'string', default: '3' },
    'no-pglite': { type: 'boolean', default: false },
    /** built: as `npm start` (dist/, plain Node); tsx: the sources through tsx (the old way) */
    app: { type: 'string', default: 'built' },
    /** Node flags for this service's process instead of the start path's (space-separated) */
    'app-flags': { type: 'string' },
  },
});
const opts = {
  orders: Number(values.orders),
  collections: Number(values.collections),
  duration: Number(values.duration),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
  rounds: Number(values.rounds),
};
const log = (m: string) => console.log(`[peer-bench] ${m}`);

/** This service as `npm start` runs it (dist/, plain Node; the peers run through tsx), or through tsx. */
function startApp(env: Record<string, string>): ChildServer {
  if (values.app === 'tsx') return new ChildServer(SERVERS, ['app'], { ...env, ...SERVER_ENV });
  if (values.app !== 'built') throw new Error(`--app: built or tsx, not ${values.app}`);
  const flags = values['app-flags']?.split(' ').filter(Boolean);
  return startBuiltServer({ ...env, ...SERVER_ENV }, flags);
}

/** Loads collections, orders, supply and market data through a booted app; returns the hot collection. */
async function loadData(db: BenchDatabase) {
  const running = await bootBenchApp(db);
  const t0 = performance.now();
  const collections = await generateCollections(opts.collections);
  await loadMarket(running, collections, opts.orders, (n) => n % 50_000 === 0 && log(`  ${n} orders inserted`));
  log(`${db.describe}: ${opts.collections} collections, ${opts.orders} orders loaded in ${fixed((performance.now() - t0) / 1000)} s`);
  await running.close();
  return collections[0]!.address;
}

interface Row {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  statements: number;
  rssIdle: number;
  rssLoad: number;
  /** server CPU (user + system) per response, ms */
  cpuMs: number;
  /** the built server's memory breakdown at the end of the run */
  memory?: ChildMemory;
}

async function measure(driver: LoadDriver, server: ChildServer, name: string, job: Omit<LoadJob, 'duration' | 'connections'>, rssIdle: number): Promise<Row> {
  if (opts.warmup > 0) await driver.run({ ...job, connections: opts.connections, duration: opts.warmup });
  const before = await server.statements();
  const cpu0 = server.cpuSeconds();
  const rss = sampleRss(server.pid);
  const r = await driver.measure({ ...job, connections: opts.connections }, { duration: opts.duration, warmup: 0 });
  const mem = rss.stop();
  const cpuMs = ((server.cpuSeconds() - cpu0) * 1000) / r.responses;
  const after = await server.stats();
  log(`${name}: ${fixed(r.reqPerSec)} req/s, p50 ${fixed(r.p50, 2)} ms, p99 ${fixed(r.p99, 2)} ms, ${fixed(cpuMs, 2)} ms CPU/request, RSS max ${fixed(mem.maxMb, 0)} MB (load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  return { name, reqPerSec: r.reqPerSec, p50: r.p50, p99: r.p99, statements: (after.statements - before) / r.responses, rssIdle, rssLoad: mem.maxMb, cpuMs, memory: after.memory };
}

const gqlJob = (base: string, query: string, variables: Record<string, unknown>) => ({
  url: `${base}/graphql`,
  method: 'POST' as const,
  headers: JSON_HEADERS,
  body: JSON.stringify({ query, variables }),
  expectPrefix: '{"data"',
  refuse: '"errors"',
});

async function checkAnswers(app: string, peer: string, floor: string, collection: string) {
  const ours = await request(`${app}/graphql`, { method: 'POST', body: JSON.stringify({ query: NESTED_QUERY, variables: { collection } }) });
  const floorAnswer = await request(`${floor}/graphql`, { method: 'POST', body: JSON.stringify({ variables: { collection } }) });
  const theirs = await request(`${peer}/graphql`, { method: 'POST', body: JSON.stringify({ query: POSTGRAPHILE_QUERY, variables: { collection } }) });
  const edges = ours.json?.data?.orders?.edges;
  if (!Array.isArray(edges) || edges.length !== 50) throw new Error(`this service did not answer 50 orders: ${ours.text.slice(0, 500)}`);
  if (!isDeepStrictEqual(ours.json, floorAnswer.json)) throw new Error(`the SQL floor's JSON differs from this service's:\n${floorAnswer.text.slice(0, 500)}\n${ours.text.slice(0, 500)}`);
  const nodes = theirs.json?.data?.allBenchLiveOrders?.nodes;
  if (!Array.isArray(nodes)) throw new Error(`PostGraphile did not answer: ${theirs.text.slice(0, 800)}`);
  const same = nodes.length === 50 && nodes.every((n: any, i: number) => n.hash === edges[i].node.hash && n.price === edges[i].node.price && n.collectionByCollectionAddress.symbol === edges[i].node.collection.symbol);
  if (!same) throw new Error(`PostGraphile answered other orders: ${theirs.text.slice(0, 500)}`);
  log(`answers checked: floor JSON = ours, PostGraphile has the same 50 orders (${ours.text.length} / ${theirs.text.length} bytes)`);
}

async function main() {
  console.log(`this service: ${values.app === 'tsx' ? 'sources through tsx' : `dist/ as npm start runs it${values['app-flags'] ? `, node ${values['app-flags']}` : ''}`}`);
  console.log(`peer benchmark: ${opts.orders} orders, ${opts.collections} collections, ${opts.duration} s x ${opts.connections} connections after ${opts.warmup} s warm-up; ${machine()}; ${new Date().toISOString()}`);
  const driver = new LoadDriver();
  const db = await createBenchDatabase('postgres', { prefix: 'peer_bench', pgUrl: values['pg-url'] });
  const collection = await loadData(db);
  const { default: pg } = await import('pg');
  const setup = new pg.Client({ connectionString: db.url });
  await setup.connect();
  await setup.query(PEER_SETUP_SQL);
  await setup.end();

  const app = startApp(db.env);
  const peer = new ChildServer(SERVERS, ['postgraphile'], { ...db.env, ...SERVER_ENV });
  const floor = new ChildServer(SERVERS, ['floor'], { ...db.env, ...SERVER_ENV });
  const [appBase, peerBase, floorBase] = await Promise.all([app.base(), peer.base(), floor.base()]);
  await checkAnswers(appBase, peerBase, floorBase, collection);
  const appIdle = rssMb(app.pid);

  const trio = [
    { server: app, name: 'this service: nested query', job: gqlJob(appBase, NESTED_QUERY, { collection }), idle: appIdle },
    { server: peer, name: 'PostGraphile v5: same query', job: gqlJob(peerBase, POSTGRAPHILE_QUERY, { collection }), idle: rssMb(peer.pid) },
    { server: floor, name: 'SQL floor (pg, JSON in SQL)', job: { ...gqlJob(floorBase, '', { collection }), refuse: undefined }, idle: rssMb(floor.pid) },
  ];
  const rounds: Row[][] = trio.map(() => []);
  for (let round = 0; round < opts.rounds; round++) {
    for (const [i, t] of trio.entries()) rounds[i]!.push(await measure(driver, t.server, `${t.name} (round ${round + 1})`, t.job, t.idle));
  }
  const rows: Row[] = rounds.map((list, i) => {
    const median = [...list].sort((a, b) => a.reqPerSec - b.reqPerSec)[Math.floor(list.length / 2)]!;
    return { ...median, name: trio[i]!.name, rssLoad: Math.max(...list.map((r) => r.rssLoad)) };
  });
  console.log(`\nper round req/s: ${rounds.map((list, i) => `${trio[i]!.name}: ${list.map((r) => fixed(r.reqPerSec)).join(' / ')}`).join('; ')}`);
  rows.push(
    await measure(driver, app, 'this service: GET /api/v1/orders (20)', { url: appBase + restOrdersPath(collection), method: 'GET', expectPrefix: '{"success":true' }, rssMb(app.pid)),
  );
  rows.push(await measure(driver, app, 'this service: collection page', gqlJob(appBase, PAGE_QUERY, { collection }), rssMb(app.pid)));
  app.stop();
  peer.stop();
  floor.stop();

  if (!values['no-pglite']) {
    const lite = await createBenchDatabase('pglite', { prefix: 'peer-bench-pglite' });
    const liteCollection = await loadData(lite);
    const liteApp = startApp(lite.env);
    const liteBase = await liteApp.base();
    const idle = rssMb(liteApp.pid);
    const r = await measure(driver, liteApp, 'this service on PGlite: nested query', gqlJob(liteBase, NESTED_QUERY, { collection: liteCollection }), idle);
    rows.push({ ...r, statements: NaN });
    liteApp.stop();
  }

  const [ours, theirs, sqlFloor] = rows;
  const ratios = rounds[0]!.map((r, i) => `${fixed(r.reqPerSec / rounds[1]![i]!.reqPerSec, 2)}x`);
  console.log(`\n=== peer benchmark, ${new Date().toISOString()}, ${machine()}`);
  console.log(table(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'SQL/request', 'RSS idle MB', 'RSS load MB'],
    rows.map((r) => [r.name, fixed(r.reqPerSec), fixed(r.p50, 2), fixed(r.p99, 2), fixed(r.cpuMs, 2), fixed(r.statements, 2), fixed(r.rssIdle, 0), fixed(r.rssLoad, 0)]),
  ));
  for (const r of rows.filter((x) => x.memory)) {
    const m = r.memory!;
    console.log(`memory after "${r.name}": rss ${m.rss}, V8 heap ${m.heapTotal} (used ${m.heapUsed}; new ${m.spaces.new_space}, old ${m.spaces.old_space}, code ${m.spaces.code_space}, large ${m.spaces.large_object_space}), external ${m.external} (array buffers ${m.arrayBuffers}) MB`);
  }
  console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`\nnested query: this service / PostGraphile = ${fixed(ours!.reqPerSec / theirs!.reqPerSec, 2)}x; this service / SQL floor = ${fixed(ours!.reqPerSec / sqlFloor!.reqPerSec, 2)}x; PostGraphile / SQL floor = ${fixed(theirs!.reqPerSec / sqlFloor!.reqPerSec, 2)}x`);
  console.log(`this service / PostGraphile per round: ${ratios.join(', ')} (medians of ${opts.rounds} interleaved rounds above)`);
  const floorRatios = rounds[0]!.map((r, i) => `${fixed(r.reqPerSec / rounds[2]![i]!.reqPerSec, 2)}x`);
  console.log(`this service / SQL floor per round: ${floorRatios.join(', ')}`);
  console.log('(RSS load = max of samples every 100 ms during the measured run; SQL/request counted on the wire to PostgreSQL in each server)');
}

await runBench(main);
