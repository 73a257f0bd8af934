// Read benchmark: req/s and exact p50/p99 of GET /api/v1/orders and of the nested GraphQL query
// as the order book grows (default 10,000 then 1,000,000 orders in the same database), over HTTP
// with autocannon in its own process; prints the p99 ratio largest/smallest size (the goal keeps
// GET /api/v1/orders within 1.5x from 10k to 1M orders).
//
//   npm run bench -- [--db postgres|pglite] [--sizes 10000,1000000] [--collections 1000]
//                    [--duration 10] [--warmup 3] [--connections 8] [--pg-url postgresql://...]
//
// The app runs in this process (its server is the only work here during a run); data is the
// shared generator of bench/helpers.ts (synthetic hashes/signatures, realistic price/status mix).
import { parseArgs } from 'node:util';
import {
  bootBenchApp,
  createBenchDatabase,
  DEFAULT_PG_URL,
  fixed,
  generateCollections,
  insertCollections,
  insertGeneratedOrders,
  insertMarketData,
  JSON_HEADERS,
  LoadDriver,
  machine,
  request,
  runBench,
  serveApp,
  table,
  type DbKind,
} from './helpers.js';
import { NESTED_QUERY, restOrdersPath } from './peer-queries.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    sizes: { type: 'string', default: '10000,1000000' },
    collections: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
  },
});
const sizes = values.sizes!.split(',').map(Number).sort((a, b) => a - b);
if (sizes.some((n) => !Number.isInteger(n) || n < 1000)) throw new Error('--sizes: whole numbers >= 1000, comma separated');
const run = { duration: Number(values.duration), warmup: Number(values.warmup) };
const connections = Number(values.connections);

async function main() {
  console.log(`read benchmark on ${values.db}: sizes ${sizes.join(', ')}; ${run.duration} s x ${connections} connections; ${machine()}; ${new Date().toISOString()}`);
  const driver = new LoadDriver();
  const db = await createBenchDatabase(values.db as DbKind, { prefix: 'read_bench', pgUrl: values['pg-url'] });
  // the same app bulk-loads up to 1M orders between runs: a 10,000-row insert into a table with
  // its indexes can take longer than the 5 s statement timeout on a loaded machine
  const app = await bootBenchApp(db, { env: { DATABASE_STATEMENT_TIMEOUT_MS: '120000' } });
  const { sql } = app.db;
  const network = app.services.deps.network;
  const collections = await generateCollections(Number(values.collections));
  await insertCollections(sql, collections);
  await insertMarketData(sql, collections);
  const { base } = await serveApp(app.yoga);
  const collection = collections[0]!.address;
  const scenarios = [
    { name: 'GET /api/v1/orders, 1 collection, VALID asks, PRICE_ASC, 20', url: base + restOrdersPath(collection), method: 'GET' as const, expectPrefix: '{"success":true' },
    { name: 'GET /api/v1/orders, NEWEST, no filter, 50', url: `${base}/api/v1/orders?sort=NEWEST&pagination[first]=50`, method: 'GET' as const, expectPrefix: '{"success":true' },
    {
      name: 'GraphQL nested: 50 cheapest VALID asks + collection',
      url: `${base}/graphql`,
      method: 'POST' as const,
      headers: JSON_HEADERS,
      body: JSON.stringify({ query: NESTED_QUERY, variables: { collection } }),
      expectPrefix: '{"data":',
      refuse: '"errors"',
    },
  ];
  const rows: (string | number)[][] = [];
  const p99: Record<string, number[]> = {};
  let loaded = 0;
  for (const size of sizes) {
    const t0 = performance.now();
    await insertGeneratedOrders(sql, collections, size - loaded, {
      from: loaded,
      strategy: network.strategies.standardSale.at(-1)!,
      collectionOfferStrategy: network.strategies.collectionOffer.at(-1)!,
      currency: network.weth,
      chunk: 20_000,
    });
    loaded = size;
    await sql.exec('ANALYZE');
    console.log(`[read-bench] ${size} orders loaded (+${fixed((performance.now() - t0) / 1000)} s)`);
    // a cursor page: the page after the 40th order of a 50-order page (keyset on price ties)
    const page50 = await request(base + restOrdersPath(collection).replace('pagination[first]=20', 'pagination[first]=50'));
    const cursor = page50.json.data[39].hash as string;
    const withCursor = {
      ...scenarios[0]!,
      name: 'GET /api/v1/orders, same, cursor page after #40',
      url: `${base}${restOrdersPath(collection)}&pagination[cursor]=${cursor}`,
    };
    const next = await request(withCursor.url);
    if (next.json.data.slice(0, 10).map((o: any) => o.hash).join() !== page50.json.data.slice(40).map((o: any) => o.hash).join()) {
      throw new Error('the cursor page does not continue the 50-order page');
    }
    for (const s of [...scenarios, withCursor]) {
      const check = await request(s.url, { method: s.method, body: s.body });
      if (check.status !== 200 || !check.text.startsWith(s.expectPrefix)) throw new Error(`${s.name}: ${check.status} ${check.text.slice(0, 300)}`);
      const r = await driver.measure({ ...s, connections }, run);
      rows.push([s.name, size.toLocaleString('en-US'), fixed(r.reqPerSec), fixed(r.p50, 2), fixed(r.p99, 2)]);
      (p99[s.name] ??= []).push(r.p99);
      console.log(`[read-bench] ${size}: ${s.name}: ${fixed(r.reqPerSec)} req/s, p99 ${fixed(r.p99, 2)} ms`);
    }
  }
  console.log(`\n=== read benchmark, ${db.describe.split(' ')[0]}, ${new Date().toISOString()}, ${machine()}`);
  console.log(table(['scenario', 'orders', 'req/s', 'p50 ms', 'p99 ms'], rows));
  for (const [name, list] of Object.entries(p99)) {
    console.log(`p99 at ${sizes.at(-1)!.toLocaleString('en-US')} / at ${sizes[0]!.toLocaleString('en-US')} orders: ${fixed(list.at(-1)! / list[0]!, 2)}x  (${name})`);
  }
}

await runBench(main);
