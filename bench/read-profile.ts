// Sequential in-process timing of the peer benchmark's queries through yoga.fetch (no HTTP, no
// load generator): the quick loop for "change one thing, measure again". --profile FILE writes
// a CPU profile (node:inspector) of the nested-query loop only (open it in Chrome DevTools).
//
//   npx tsx bench/read-profile.ts [--orders 20000] [--collections 200] [--iterations 500]
//                                 [--db postgres|pglite] [--profile nested.cpuprofile]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import {
  bootBenchApp,
  countPgStatements,
  createBenchDatabase,
  fixed,
  generateCollections,
  loadMarket,
  runBench,
  table,
  timeIt,
  type DbKind,
} from './helpers.js';
import { NESTED_QUERY, PAGE_QUERY, restOrdersPath } from './peer-queries.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '20000' },
    collections: { type: 'string', default: '200' },
    iterations: { type: 'string', default: '500' },
    db: { type: 'string', default: 'postgres' },
    profile: { type: 'string' },
  },
});

async function main() {
  const statements = countPgStatements();
  const db = await createBenchDatabase(values.db as DbKind, { prefix: 'read_profile', memory: true });
  const running = await bootBenchApp(db);
  const collections = await generateCollections(Number(values.collections));
  await loadMarket(running, collections, Number(values.orders));
  const collection = collections[0]!.address;
  const gql = (query: string) => async () => {
    const res = await running.yoga.fetch('http://bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables: { collection } }),
    });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"')) throw new Error(text.slice(0, 500));
  };
  const rest = async () => {
    const res = await running.yoga.fetch(`http://bench${restOrdersPath(collection)}`);
    if (res.status !== 200) throw new Error(await res.text());
    await res.text();
  };
  const n = Number(values.iterations);
  const rows: (string | number)[][] = [];
  for (const [name, fn] of [
    ['nested query (50 asks + collection)', gql(NESTED_QUERY)],
    ['GET /api/v1/orders (20)', rest],
    ['collection page', gql(PAGE_QUERY)],
  ] as const) {
    for (let i = 0; i < 30; i++) await fn(); // warm-up (JIT, caches)
    const before = statements.count;
    await fn();
    const perRequest = statements.count - before;
    const session = values.profile && rows.length === 0 ? new Session() : null;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const cpu0 = process.cpuUsage();
    const t = await timeIt(n, fn, 0);
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000 / n;
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(values.profile!, JSON.stringify(profile));
      session.disconnect();
    }
    rows.push([name, fixed(cpuMs, 2), fixed(t.p50, 2), fixed(t.p99, 2), fixed(1000 / t.mean, 0), db.kind === 'postgres' ? perRequest : '-']);
  }
  console.log(table(['yoga.fetch, sequential', 'CPU ms/request', 'p50 ms', 'p99 ms', 'req/s (1 at a time)', 'SQL statements'], rows));
}

await runBench(main);
