// Peer benchmark: on one PostgreSQL database with one generated market (bench/scale-loader.ts),
// a frontend mix of request shapes (bench/peer-shapes.ts: book pages, token page, a maker's
// orders, offer board, collection page, collection cards, sales history, one order, REST, token
// detail, wallet, and token metadata: a token grid filtered by two traits, a collection's trait
// panel, a token page with its traits) answered
// by this service, by PostGraphile v5 configured as its documentation recommends
// (bench/peer-postgraphile.ts: amber preset, production, the real tables, one `live` condition,
// PostgreSQL's default settings on its connections) where it can answer the shape at all, and by
// the floor: a hand-written node:http + pg server sending one statement per shape that builds the
// exact response JSON (bench/peer-floor-sql.ts), prepared under a name (parsed once per
// connection; PostgreSQL's default plan cache, so it may run on a generic plan) with JIT off.
// Every server runs in its own process, autocannon in another; this service as `npm start` runs
// it (dist/, plain Node, bench/server-probe.mjs preloaded).
//
//   npm run bench:peer -- [--orders 100000] [--sales N] [--collections N] [--shapes a,b,c]
//                         [--duration 10] [--warmup 3] [--connections 8] [--rounds 3]
//                         [--scale 100000,10000000] [--keep-db] [--explain analyze|plain|off]
//                         [--no-pglite] [--pg-url postgresql://...]
//                         [--app built|tsx] [--app-flags='...']
//
// Before load, per shape: the floor's body must equal this service's (bytes, else reported as
// JSON-equal only) and PostGraphile must return the same rows in the same order at the same prices;
// any mismatch fails the run. Then the statements each server sent for that one request
// (recorded on the wire) are EXPLAINed with their recorded parameter values.
// Load: per shape and server, --rounds interleaved rounds (round 1: every shape on every server,
// then round 2, ...), each reported by its median round. Verdicts per shape: this service >= 2x
// PostGraphile and >= 0.8x the floor (req/s); its RSS <= 200 MB under load. Then this service
// alone on PGlite (book page). --scale runs the whole mix at each size (--orders ignored) and
// compares p99 per shape: p99(largest) / p99(smallest) within 1.5x. --keep-db keeps each loaded
// database (mkt_peer_bench_<orders>_<sales>_<collections>) and reuses it on the next run.
// PostGraphile and the floor send prepared statements under PostgreSQL's default plan cache
// (`auto`): after five executions a statement may keep a generic plan, made for an average
// collection. Where that plan is wrong for this market's hot collection, the EXPLAIN above the
// load shows it and bench/peer-generic-plans.ts prints it beside the custom plan; the peers are
// not given force_custom_plan to hide it.
// Numbers are only comparable within one run (same machine load).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  ChildServer,
  createBenchDatabase,
  DEFAULT_PG_URL,
  fixed,
  LoadDriver,
  machine,
  rssMb,
  runBench,
  sampleRss,
  startBuiltServer,
  table,
  type BenchDatabase,
  type ChildMemory,
} from './helpers.js';
import { explainStatements, formatExplained, indexDifference, summary, type ExplainMode } from './peer-explain.js';
import { FLOOR_CONNECTION_OPTIONS, FLOOR_SETTINGS } from './peer-floor-sql.js';
import { checkShape, jobFor, ServiceFailed, type Bases, type Checked, type Job, type System } from './peer-precheck.js';
import { SHAPES, type Shape } from './peer-shapes.js';
import { keptDatabaseName, loadScaleDatabase, scaleDefaults, type Picks } from './scale-loader.js';

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'peer-servers.ts');
// Every server runs as in production: graphql-js skips its development-only checks and Grafast
// its development mode.
const SERVER_ENV = { NODE_ENV: 'production', GRAPHILE_ENV: 'production' };
const SYSTEMS: System[] = ['ours', 'peer', 'floor'];
const NAMES: Record<System, string> = { ours: 'this service', peer: 'PostGraphile v5', floor: 'SQL floor' };
/** this service's req/s against each peer's, per shape */
const GOAL = { peer: 2, floor: 0.8 };

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '100000' },
    sales: { type: 'string' },
    collections: { type: 'string' },
    scale: { type: 'string' },
    shapes: { type: 'string' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    'no-pglite': { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    explain: { type: 'string', default: 'analyze' },
    /** built: as `npm start` (dist/, plain Node); tsx: the sources through tsx */
    app: { type: 'string', default: 'built' },
    /** Node flags for this service's process instead of the start path's (space-separated) */
    'app-flags': { type: 'string' },
  },
});
const opts = {
  duration: Number(values.duration),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
  rounds: Number(values.rounds),
};
const sizes = (values.scale ?? values.orders!).split(',').map((s) => Number(s.replace(/_/g, '')));
const maxSize = Math.max(...sizes);
const sizing = (orders: number) =>
  scaleDefaults(orders, {
    sales: values.sales ? Number(values.sales) : undefined,
    // a scale comparison keeps the collections of its largest size, so only the orders grow
    collections: values.collections ? Number(values.collections) : values.scale ? scaleDefaults(maxSize).collections : undefined,
  });
const shapes: Shape[] = values.shapes ? values.shapes.split(',').map((k) => SHAPES.find((s) => s.key === k.trim()) ?? fail(`--shapes: no shape ${k}`)) : SHAPES;
const explainMode = values.explain as ExplainMode | 'off';
const log = (m: string) => console.log(`[peer-bench] ${m}`);
function fail(m: string): never {
  throw new Error(m);
}

/** This service as `npm start` runs it (dist/, plain Node), or through tsx. */
function startApp(env: Record<string, string>): ChildServer {
  if (values.app === 'tsx') return new ChildServer(SERVERS, ['app'], { ...env, ...SERVER_ENV });
  if (values.app !== 'built') throw new Error(`--app: built or tsx, not ${values.app}`);
  return startBuiltServer({ ...env, ...SERVER_ENV }, values['app-flags']?.split(' ').filter(Boolean));
}

/** --keep-db: a database named after its load, created when missing, never dropped. */
async function namedDatabase(o: { orders: number; sales: number; collections: number }): Promise<BenchDatabase> {
  const name = keptDatabaseName(o);
  const admin = new pg.Client({ connectionString: values['pg-url'] });
  await admin.connect();
  const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount;
  if (!exists) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(values['pg-url']!);
  url.pathname = `/${name}`;
  return { kind: 'postgres', env: { DATABASE_URL: url.toString() }, url: url.toString(), describe: `PostgreSQL database ${name} (kept)` };
}

/** shapes this service answered with an error in the check, by key (per size) */
const unanswered = new Map<string, string>();

interface Row {
  /** responses that were errors, timeouts, non-2xx or not the expected body */
  failed: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuMs: number;
  statements: number;
  rssMax: number;
  memory?: ChildMemory;
}

async function measure(driver: LoadDriver, server: ChildServer, label: string, job: Job): Promise<Row> {
  if (opts.warmup > 0) await driver.run({ ...job, connections: opts.connections, duration: opts.warmup });
  const before = await server.statements();
  const cpu0 = server.cpuSeconds();
  const rss = sampleRss(server.pid);
  const r = await driver.run({ ...job, connections: opts.connections, duration: opts.duration });
  const failed = r.errors + r.timeouts + r.non2xx + r.mismatches;
  const mem = rss.stop();
  const cpuMs = ((server.cpuSeconds() - cpu0) * 1000) / r.responses;
  const after = await server.stats();
  log(`${label}: ${fixed(r.reqPerSec)} req/s, p50 ${fixed(r.p50, 2)} ms, p99 ${fixed(r.p99, 2)} ms, ${fixed(cpuMs, 2)} ms CPU/req, RSS max ${fixed(mem.maxMb, 0)} MB (load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})${failed ? `; FAILED RESPONSES: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.mismatches} bad bodies` : ''}`);
  return { failed, reqPerSec: r.reqPerSec, p50: r.p50, p99: r.p99, statements: (after.statements - before) / r.responses, rssMax: mem.maxMb, cpuMs, memory: after.memory };
}

/**
 * Checks every shape, then prints the EXPLAINs. A wrong answer fails the run (every failure
 * listed first); a shape this service cannot answer (an error) is reported and left out of the load.
 */
async function checkAll(dbUrl: string, bases: Bases, picks: Picks, servers: Record<System, ChildServer>) {
  const checked: Checked[] = [];
  const failed: { shape: Shape; captured: Checked['captured'] }[] = [];
  const failures: string[] = [];
  for (const shape of shapes) {
    try {
      const c = await checkShape(shape, bases, picks, servers);
      checked.push(c);
      const peer = 'none' in shape.peer ? 'PostGraphile cannot answer it' : 'PostGraphile: same rows';
      log(`check ${shape.key} ${shape.title}: ${c.rows} rows, ${c.bytes} bytes; floor = this service ${c.equality === 'bytes' ? 'byte for byte' : 'as JSON only (bytes differ)'}${c.attempts > 1 ? ` (attempt ${c.attempts})` : ''}; ${peer}`);
    } catch (err) {
      if (err instanceof ServiceFailed) {
        log(`THIS SERVICE CANNOT ANSWER shape ${shape.key} (left out of the load): ${err.message}`);
        unanswered.set(shape.key, err.message);
        failed.push({ shape, captured: { ours: err.captured } });
      } else failures.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (failures.length) throw new Error(`answer check failed for ${failures.length} shape(s):\n${failures.join('\n\n')}`);
  if (explainMode === 'off') return checked;
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    console.log(`\n=== EXPLAIN ${explainMode === 'analyze' ? '(ANALYZE, BUFFERS, COSTS OFF), run once,' : '(COSTS OFF)'} of the statements each server sent for one request, with the values it bound, each planned under the settings of the connection that sent it (this service: force_custom_plan, or force_generic_plan on its generic-plan pool; no parallel workers, no JIT; PostGraphile: PostgreSQL's defaults; floor: JIT off; PostGraphile's and the floor's prepared statements after five executions under plan_cache_mode auto)`);
    for (const c of [...checked, ...failed]) {
      console.log(`\n--- shape ${c.shape.key}: ${c.shape.title}${unanswered.has(c.shape.key) ? ' (THIS SERVICE FAILED TO ANSWER: the statements it sent)' : ''}`);
      const plans: Partial<Record<System, Awaited<ReturnType<typeof explainStatements>>>> = {};
      for (const system of SYSTEMS) {
        const statements = c.captured[system];
        if (!statements) continue;
        // this service's connections: src/db/database.ts
        plans[system] = await explainStatements(client, statements, explainMode, system === 'ours' ? 'force_custom_plan' : 'auto', system === 'ours' ? { max_parallel_workers_per_gather: '0', jit: 'off' } : system === 'floor' ? FLOOR_SETTINGS : {});
        console.log(formatExplained(NAMES[system], plans[system]!));
      }
      if (plans.peer) {
        const d = indexDifference(plans.ours!, plans.peer);
        console.log(`  indexes, this service vs PostGraphile: ${d.onlyA.length + d.onlyB.length ? `DIFFERENT (only ours: ${d.onlyA.join(', ') || '-'}; only PostGraphile: ${d.onlyB.join(', ') || '-'})` : `same (${summary(plans.ours!)})`}`);
      }
    }
  } finally {
    await client.end();
  }
  return checked;
}

interface SizeResult {
  orders: number;
  sizing: ReturnType<typeof sizing>;
  medians: Map<string, Row>;
  perRound: Map<string, Row[]>;
  rssMax: number;
  loadSeconds: number | null;
  sizeMb: number | null;
  picks: Picks;
  unanswered: Map<string, string>;
}
const keyOf = (shape: string, system: System) => `${shape}|${system}`;

async function runSize(driver: LoadDriver, orders: number): Promise<SizeResult> {
  const o = sizing(orders);
  const db = values['keep-db'] ? await namedDatabase(o) : await createBenchDatabase('postgres', { prefix: 'peer_bench', pgUrl: values['pg-url'] });
  log(`${db.describe}: loading ${o.orders} orders, ${o.sales} sales, ${o.collections} collections`);
  const loaded = await loadScaleDatabase(db, { ...o, bulk: o.orders >= 1_000_000, reuse: values['keep-db'], log });
  log(`loaded${loaded.seconds === null ? ' (reused)' : ` in ${fixed(loaded.seconds)} s`}; database ${fixed((loaded.sizeMb ?? NaN) / 1024, 2)} GB; targets ${JSON.stringify(loaded.picks)}`);

  const servers: Record<System, ChildServer> = {
    ours: startApp(db.env),
    peer: new ChildServer(SERVERS, ['postgraphile'], { ...db.env, ...SERVER_ENV }),
    floor: new ChildServer(SERVERS, ['floor'], { ...db.env, ...SERVER_ENV }),
  };
  const [ours, peer, floor] = await Promise.all([servers.ours.base(), servers.peer.base(), servers.floor.base()]);
  const bases: Bases = { ours, peer, floor };
  unanswered.clear();
  await checkAll(db.url!, bases, loaded.picks, servers);
  log(`RSS idle: this service ${fixed(rssMb(servers.ours.pid), 0)} MB, PostGraphile ${fixed(rssMb(servers.peer.pid), 0)} MB, floor ${fixed(rssMb(servers.floor.pid), 0)} MB`);

  const perRound = new Map<string, Row[]>();
  for (let round = 1; round <= opts.rounds; round++) {
    for (const shape of shapes.filter((x) => !unanswered.has(x.key))) {
      for (const system of SYSTEMS) {
        const job = jobFor(system, shape, bases, loaded.picks);
        if (!job) continue;
        const row = await measure(driver, servers[system], `${orders} round ${round} ${shape.key} ${NAMES[system]}`, job);
        const k = keyOf(shape.key, system);
        perRound.set(k, [...(perRound.get(k) ?? []), row]);
      }
    }
  }
  for (const s of Object.values(servers)) s.stop();
  const medians = new Map([...perRound].map(([k, list]) => [k, [...list].sort((a, b) => a.reqPerSec - b.reqPerSec)[Math.floor(list.length / 2)]!]));
  const rssMax = Math.max(...[...perRound].filter(([k]) => k.endsWith('|ours')).flatMap(([, l]) => l.map((r) => r.rssMax)));
  return { orders, sizing: o, medians, perRound, rssMax, loadSeconds: loaded.seconds, sizeMb: loaded.sizeMb, picks: loaded.picks, unanswered: new Map(unanswered) };
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

function report(r: SizeResult) {
  const { sizing: o } = r;
  console.log(`\n=== peer benchmark, ${new Date().toISOString()}, ${machine()}`);
  console.log(`${o.orders} orders, ${o.sales} sales, ${o.collections} collections (load ${r.loadSeconds === null ? 'reused' : `${fixed(r.loadSeconds)} s`}, database ${fixed((r.sizeMb ?? NaN) / 1024, 2)} GB); ${opts.duration} s x ${opts.connections} connections after ${opts.warmup} s warm-up, medians of ${opts.rounds} interleaved round(s); this service ${values.app === 'tsx' ? 'through tsx' : 'from dist/ as npm start runs it'}; PostGraphile and floor: plan_cache_mode auto (floor: JIT off)`);
  const rows: (string | number)[][] = [];
  for (const shape of shapes) {
    if (r.unanswered.has(shape.key)) {
      rows.push([`${shape.key} ${shape.title}`, NAMES.ours, 'ERROR', '', '', '', '', '', '']);
      continue;
    }
    for (const system of SYSTEMS) {
      const m = r.medians.get(keyOf(shape.key, system));
      if (!m) {
        if (system === 'peer') rows.push(['', NAMES.peer, 'cannot answer', '', '', '', '', '', '']);
        continue;
      }
      rows.push([system === 'ours' ? `${shape.key} ${shape.title}` : '', NAMES[system], fixed(m.reqPerSec), fixed(m.p50, 2), fixed(m.p99, 2), fixed(m.cpuMs, 2), fixed(m.statements, 2), fixed(m.rssMax, 0), m.failed]);
    }
  }
  console.log(table(['shape', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'SQL/req', 'RSS max MB', 'failed'], rows));
  console.log('');
  for (const shape of shapes) {
    if (r.unanswered.has(shape.key)) {
      console.log(`${shape.key} ${shape.title}: THIS SERVICE ANSWERS AN ERROR: goal >= ${GOAL.peer}x PostGraphile: NOT met; goal >= ${GOAL.floor}x SQL floor: NOT met (${r.unanswered.get(shape.key)!.slice(0, 300)})`);
      continue;
    }
    const ours = r.medians.get(keyOf(shape.key, 'ours'))!;
    const peer = r.medians.get(keyOf(shape.key, 'peer'));
    const floor = r.medians.get(keyOf(shape.key, 'floor'))!;
    const rounds = (system: System) => r.perRound.get(keyOf(shape.key, 'ours'))!.map((x, i) => fixed(x.reqPerSec / r.perRound.get(keyOf(shape.key, system))![i]!.reqPerSec, 2)).join('/');
    const vsPeer = peer
      ? `${fixed(ours.reqPerSec / peer.reqPerSec, 2)}x PostGraphile (rounds ${rounds('peer')}): goal >= ${GOAL.peer}x PostGraphile: ${verdict(!ours.failed && ours.reqPerSec >= GOAL.peer * peer.reqPerSec)}`
      : `PostGraphile cannot answer it: goal >= ${GOAL.peer}x PostGraphile: n/a`;
    const vsFloor = `${fixed(ours.reqPerSec / floor.reqPerSec, 2)}x SQL floor (rounds ${rounds('floor')}): goal >= ${GOAL.floor}x SQL floor: ${verdict(!ours.failed && ours.reqPerSec >= GOAL.floor * floor.reqPerSec)}`;
    const failed = ours.failed ? ` (${ours.failed} of its responses under load FAILED: not met)` : '';
    console.log(`${shape.key} ${shape.title}: ${vsPeer}; ${vsFloor}${failed}`);
  }
  console.log(`this service RSS max under load ${fixed(r.rssMax, 0)} MB: RSS <= 200 MB: ${verdict(r.rssMax <= 200)}`);
  const mem = [...r.medians].find(([k]) => k.endsWith('|ours'))?.[1].memory;
  if (mem) console.log(`(its memory after a run: rss ${mem.rss}, V8 heap ${mem.heapTotal} (used ${mem.heapUsed}), external ${mem.external} MB)`);
  console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

async function pgliteRun(driver: LoadDriver, orders: number) {
  const shape = SHAPES[0]!;
  const lite = await createBenchDatabase('pglite', { prefix: 'peer-bench-pglite' });
  const o = sizing(orders);
  const loaded = await loadScaleDatabase(lite, { ...o, log });
  log(`${lite.describe}: ${o.orders} orders loaded in ${fixed(loaded.seconds ?? NaN)} s`);
  const app = startApp(lite.env);
  const base = await app.base();
  const idle = rssMb(app.pid);
  const row = await measure(driver, app, `PGlite ${shape.key} this service`, jobFor('ours', shape, { ours: base, peer: '', floor: '' }, loaded.picks)!);
  app.stop();
  console.log(`\nthis service on PGlite (${o.orders} orders), shape ${shape.key} ${shape.title}: ${fixed(row.reqPerSec)} req/s, p50 ${fixed(row.p50, 2)} ms, p99 ${fixed(row.p99, 2)} ms; RSS idle ${fixed(idle, 0)} MB, max under load ${fixed(row.rssMax, 0)} MB (RSS <= 200 MB: ${verdict(row.rssMax <= 200)})`);
}

async function main() {
  console.log(`peer benchmark, ${new Date().toISOString()}, ${machine()}`);
  console.log(`PostGraphile connections: PostgreSQL's defaults (plan_cache_mode auto); SQL floor connections: plan_cache_mode auto, ${FLOOR_CONNECTION_OPTIONS}, statements prepared under a name; this service: as configured (src/db/database.ts: force_custom_plan, no parallel workers, no JIT)`);
  console.log(`sizes ${sizes.join(', ')} orders; shapes ${shapes.map((s) => s.key).join(',')}; ${opts.duration} s x ${opts.connections} connections after ${opts.warmup} s warm-up, ${opts.rounds} round(s)`);
  for (const s of shapes) if ('none' in s.peer) log(`shape ${s.key}: PostGraphile cannot answer it (${s.peer.none}): no PostGraphile column`);
  const driver = new LoadDriver();
  const results: SizeResult[] = [];
  for (const orders of sizes) {
    const r = await runSize(driver, orders);
    results.push(r);
    report(r);
  }
  if (results.length > 1) {
    const [small, big] = [results[0]!, results.at(-1)!];
    console.log(`\n=== p99 as the book grows, ${new Date().toISOString()}, ${machine()}: ${small.orders} -> ${big.orders} orders (${small.sizing.sales} -> ${big.sizing.sales} sales, ${big.sizing.collections} collections)`);
    const rows: (string | number)[][] = [];
    const lines: string[] = [];
    for (const shape of shapes) {
      const broken = [small, big].filter((r) => r.unanswered.has(shape.key)).map((r) => r.orders);
      if (broken.length) {
        rows.push([`${shape.key} ${shape.title}`, NAMES.ours, broken.includes(small.orders) ? 'ERROR' : '', broken.includes(big.orders) ? 'ERROR' : '', '', '', '']);
        lines.push(`${shape.key} ${shape.title}: this service answered an error at ${broken.join(' and ')} orders: within 1.5x: NOT met`);
      }
      for (const system of SYSTEMS) {
        const a = small.medians.get(keyOf(shape.key, system));
        const b = big.medians.get(keyOf(shape.key, system));
        if (!a || !b) continue;
        rows.push([system === 'ours' ? `${shape.key} ${shape.title}` : '', NAMES[system], fixed(a.p99, 2), fixed(b.p99, 2), `${fixed(b.p99 / a.p99, 2)}x`, fixed(a.reqPerSec), fixed(b.reqPerSec)]);
        // a size where no request completed in the run has no p99: that is a failure, not a 0x
        const completed = a.reqPerSec > 0 && b.reqPerSec > 0 && a.p99 > 0 && b.p99 > 0;
        if (system === 'ours')
          lines.push(
            completed
              ? `${shape.key} ${shape.title}: p99 ${fixed(b.p99 / a.p99, 2)}x at ${big.orders} orders: within 1.5x: ${verdict(b.p99 <= 1.5 * a.p99)}`
              : `${shape.key} ${shape.title}: no request completed at ${(a.reqPerSec > 0 ? [big] : [small]).map((r) => r.orders).join(' and ')} orders: within 1.5x: NOT met`,
          );
      }
    }
    console.log(table(['shape', 'server', `p99 ms @${small.orders}`, `p99 ms @${big.orders}`, 'ratio', `req/s @${small.orders}`, `req/s @${big.orders}`], rows));
    console.log(lines.join('\n'));
  }
  if (!values['no-pglite']) await pgliteRun(driver, Math.min(...sizes, 100_000));
}

await runBench(main);
