// Weighs one lever at a time on the read path: the same built server (as `npm start` runs it)
// started in several variants (Node flags, environment), each driven with the peer bench's
// nested query in interleaved rounds (A B, A B, ...), so a burst of other load on a shared
// machine lands on all of them. Prints per variant the median req/s, server CPU per request
// (less sensitive to load than req/s), RSS idle and max under load, and where the memory is
// (V8 heap spaces, external). --cpu-prof writes a CPU profile of each variant's last round.
//
//   npx tsx bench/read-levers.ts --variant 'default||' --variant 'semi8|--max-semi-space-size=8|'
//       [--variant 'pool4||DATABASE_POOL_SIZE=4'] [--query nested|rest|page | --shape KEY] [--db postgres|pglite]
//       [--orders 100000] [--collections 1000] [--duration 8] [--warmup 2] [--rounds 3]
//       [--connections 8] [--reuse-url postgresql://.../db already loaded by --keep] [--keep]
//       [--cpu-prof DIR]
// --shape drives any shape of the peer bench's mix (bench/peer-shapes.ts: a..n) instead of --query:
// on a database the peer bench loaded (--reuse-url) with its picks (token, maker, order, wallet),
// otherwise with the first collection alone (the shapes that ask about nothing else).
// A variant is 'name|node flags (space-separated)|ENV=value,ENV=value[|checkout root]': the
// optional root serves another checkout's build (e.g. a copy of the tree before a change), or is
// `tsx` to serve this checkout's sources through tsx (bench/peer-servers.ts app; flags ignored).
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import {
  bootBenchApp,
  ChildServer,
  createBenchDatabase,
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
  type BenchDatabase,
  type ChildMemory,
  type LoadJob,
} from './helpers.js';
import { NESTED_QUERY, PAGE_QUERY, restOrdersPath } from './peer-queries.js';
import { shapeByKey } from './peer-shapes.js';
import { pickTargets, type Picks } from './scale-loader.js';

const { values } = parseArgs({
  options: {
    variant: { type: 'string', multiple: true, default: ['default||'] },
    query: { type: 'string', default: 'nested' },
    db: { type: 'string', default: 'postgres' },
    orders: { type: 'string', default: '100000' },
    collections: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    'reuse-url': { type: 'string' },
    keep: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    shape: { type: 'string' },
  },
});
const log = (m: string) => console.log(`[read-levers] ${m}`);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

interface Variant {
  name: string;
  flags: string[];
  env: Record<string, string>;
  root?: string;
}

const variants: Variant[] = values.variant!.map((v) => {
  const [name, flags = '', env = '', root] = v.split('|');
  return {
    name: name!,
    root: root || undefined,
    flags: flags.split(' ').filter(Boolean),
    env: Object.fromEntries(env.split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  };
});

async function database(): Promise<{ db: BenchDatabase; collection: string }> {
  const collections = await generateCollections(Number(values.collections));
  if (values['reuse-url']) return { db: { kind: 'postgres', env: { DATABASE_URL: values['reuse-url'] }, url: values['reuse-url'], describe: values['reuse-url'] }, collection: collections[0]!.address };
  const db = await createBenchDatabase(values.db as 'postgres' | 'pglite', { prefix: 'read_levers', keep: values.keep });
  if (values.keep && db.url) log(`--keep: ${db.url} stays after the run for --reuse-url (drop it yourself)`);
  const running = await bootBenchApp(db);
  await loadMarket(running, collections, Number(values.orders));
  await running.close();
  log(`${db.describe}: ${values.collections} collections, ${values.orders} orders`);
  return { db, collection: collections[0]!.address };
}

/**
 * What a shape asks about: on a database the peer bench loaded (--reuse-url), its own picks (the
 * token, maker, order and wallet the mix asks about); otherwise the first collection alone, which
 * answers the shapes that need nothing else.
 */
async function picksFor(db: { url?: string }, collection: string): Promise<Picks> {
  if (!values.shape || !db.url) return { collection } as Picks;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return await pickTargets({ query: async (text, params) => (await client.query(text, params as unknown[])).rows });
  } finally {
    await client.end();
  }
}

function jobFor(base: string, picks: Picks): Omit<LoadJob, 'duration' | 'connections'> {
  const collection = picks.collection;
  if (values.shape) {
    const shape = shapeByKey(values.shape);
    if (!shape) throw new Error(`no shape ${values.shape} in bench/peer-shapes.ts`);
    if ('path' in shape.ours) return { url: base + shape.ours.path(picks), method: 'GET', expectPrefix: '{"success":true' };
    return { url: `${base}/graphql`, method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ query: shape.ours.query, variables: shape.vars(picks) }), expectPrefix: '{"data"', refuse: '"errors"' };
  }
  if (values.query === 'rest') return { url: base + restOrdersPath(collection), method: 'GET', expectPrefix: '{"success":true' };
  const query = values.query === 'page' ? PAGE_QUERY : NESTED_QUERY;
  return { url: `${base}/graphql`, method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ query, variables: { collection } }), expectPrefix: '{"data"', refuse: '"errors"' };
}

interface Round {
  reqPerSec: number;
  cpuMs: number;
  rssMax: number;
  p99: number;
  statements: number;
  memory?: ChildMemory;
}

async function main() {
  console.log(`read levers: ${values.shape ? `shape ${values.shape}` : `${values.query} query`} on ${values.db}, ${values.duration} s x ${values.connections} connections, ${values.rounds} rounds; ${machine()}; ${new Date().toISOString()}; load average ${load()}`);
  const { db, collection: first } = await database();
  const picks = await picksFor(db, first);
  const collection = picks.collection;
  const driver = new LoadDriver();
  const connections = Number(values.connections);
  const results: { v: Variant; rounds: Round[]; idle: number }[] = [];
  for (const v of variants) {
    const flags = [...v.flags];
    if (values['cpu-prof']) flags.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'], v.name)}`);
    const env = { ...db.env, NODE_ENV: 'production', ...v.env };
    const server =
      v.root === 'tsx'
        ? new ChildServer(fileURLToPath(new URL('./peer-servers.ts', import.meta.url)), ['app'], env)
        : startBuiltServer(env, flags, v.root);
    results.push({ v, rounds: [], idle: NaN, server } as never);
  }
  const servers = results.map((r) => (r as unknown as { server: ChildServer }).server);
  const bases = await Promise.all(servers.map((s) => s.base()));
  const reference = await request(`${bases[0]}/graphql`, { method: 'POST', body: JSON.stringify({ query: NESTED_QUERY, variables: { collection } }) });
  for (const [i, base] of bases.entries()) {
    const answer = await request(`${base}/graphql`, { method: 'POST', body: JSON.stringify({ query: NESTED_QUERY, variables: { collection } }) });
    if (answer.text !== reference.text || !reference.text.startsWith('{"data"')) throw new Error(`variant ${variants[i]!.name} answers differently: ${answer.text.slice(0, 300)}`);
    results[i]!.idle = rssMb(servers[i]!.pid);
    const m = (await servers[i]!.stats()).memory;
    if (m) log(`idle ${variants[i]!.name}: rss ${m.rss}, V8 heap ${m.heapTotal} (used ${m.heapUsed}; new ${m.spaces.new_space}, old ${m.spaces.old_space}, code ${m.spaces.code_space}), external ${m.external} MB`);
  }
  log(`answers byte-identical across variants (${reference.text.length} bytes); idle RSS ${results.map((r) => `${r.v.name} ${fixed(r.idle, 0)} MB`).join(', ')}`);
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [i, r] of results.entries()) {
      const server = servers[i]!;
      const job = jobFor(bases[i]!, picks);
      if (Number(values.warmup) > 0) await driver.run({ ...job, connections, duration: Number(values.warmup) });
      const before = await server.stats();
      const cpu0 = server.cpuSeconds();
      const rss = sampleRss(server.pid);
      const m = await driver.measure({ ...job, connections }, { duration: Number(values.duration), warmup: 0 });
      const mem = rss.stop();
      const cpuMs = ((server.cpuSeconds() - cpu0) * 1000) / m.responses;
      const after = await server.stats();
      r.rounds.push({ reqPerSec: m.reqPerSec, cpuMs, rssMax: mem.maxMb, p99: m.p99, statements: (after.statements - before.statements) / m.responses, memory: after.memory });
      log(`round ${round + 1} ${r.v.name}: ${fixed(m.reqPerSec)} req/s, ${fixed(cpuMs, 2)} ms CPU/req, p99 ${fixed(m.p99, 1)} ms, RSS max ${fixed(mem.maxMb, 0)} MB (load average ${load()})`);
    }
  }
  for (const s of servers) s.stop();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\n=== read levers, ${values.shape ? `shape ${values.shape}` : `${values.query} query`} on ${values.db}, ${new Date().toISOString()}, ${machine()}, load average at the end ${load()}`);
  console.log(
    table(
      ['variant', 'req/s (median)', 'rounds', 'CPU ms/req', 'p99 ms', 'SQL/req', 'RSS idle MB', 'RSS load max MB', 'heap (new/old/code)', 'external MB'],
      results.map(({ v, rounds, idle }) => {
        const last = rounds.at(-1)!.memory;
        return [
          `${v.name} ${[...v.flags, ...Object.entries(v.env).map(([k, x]) => `${k}=${x}`)].join(' ')}`.trim(),
          fixed(median(rounds.map((x) => x.reqPerSec))),
          rounds.map((x) => fixed(x.reqPerSec, 0)).join('/'),
          fixed(median(rounds.map((x) => x.cpuMs)), 2),
          fixed(median(rounds.map((x) => x.p99)), 1),
          fixed(median(rounds.map((x) => x.statements)), 2),
          fixed(idle, 0),
          fixed(Math.max(...rounds.map((x) => x.rssMax)), 0),
          last ? `${last.heapTotal} (${last.spaces.new_space}/${last.spaces.old_space}/${last.spaces.code_space})` : '-',
          last ? fixed(last.external, 1) : '-',
        ];
      }),
    ),
  );
}

await runBench(main);
