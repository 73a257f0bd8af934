// Stats benchmark: read latency of collection statistics and the cost of keeping the
// rollups fresh, over 1,000,000 sales across 1,000 collections.
//
//   npx tsx bench/stats-bench.ts [--db postgres|pglite] [--sales 1000000] [--collections 1000]
//                                [--iterations 300] [--pg-url postgresql://postgres@127.0.0.1:5432/postgres]
//                                [--explain]
//
// postgres (default) creates the database mkt_stats_bench_<random> on the server and drops it
// at the end (also on error or Ctrl-C); pglite runs in memory. The app is booted for real with
// a pinned clock. Sales are spread uniformly over the last two years (so 1y and the 1y before it
// both have data): collection 0 has 100,000 of them, collection 1 has 10, the other 998 share the
// rest. They are bulk-inserted (one multi-row INSERT of unnest(text[]) per 20,000 sales) and the
// rollups are rebuilt once, as after an import. Every collection also gets 5 live listings,
// 3 floor history points and a supply row, so every stats field is computed.
//
// Latency is measured sequentially (one call at a time, after a warm-up) over every call:
// (a) services.stats.statsFor of one collection, (b) of 50 collections in one call, (c) the
// same 50 collections as aliases of `collection(address)` with every stats field in one GraphQL
// request through yoga.fetch (no HTTP), (d) the 100,000-sale collection against the 10-sale
// one, (e) the first page of Query.collections under each ranking, and the rollup refresh cost
// per new sale (services.sales.recordSale near now). Before
// measuring, the rollup-based numbers of three collections are checked against a plain scan
// of their raw sales, so a fast wrong answer fails the run. --explain prints EXPLAIN ANALYZE of
// the statements one statsFor call on the 100,000-sale collection sends.
import { parseArgs } from 'node:util';
import type { Running } from '../src/app.js';
import { normalizeAddress } from '../src/domain/address.js';
import { COLLECTION_ORDERS } from '../src/domain/collection-ranking.js';
import { STATS_WINDOWS } from '../src/domain/stats-math.js';
import { prng } from '../src/demo/prng.js';
import type { CollectionStats } from '../src/services/stats.js';
import { bootBenchApp, createBenchDatabase, runBench, table, timeIt as timeCalls, type DbKind } from './helpers.js';

/** Sequential timing (bench/helpers.ts) with the call count for the table. */
const timeIt = async (n: number, fn: (i: number) => Promise<void>) => ({ n, ...(await timeCalls(n, fn)) });

const DAY_MS = 86_400_000;
const NOW = new Date('2026-06-01T12:34:56.789Z');
const BIG = 100_000;
const SMALL = 10;
const CHUNK = 20_000;

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    sales: { type: 'string', default: '1000000' },
    collections: { type: 'string', default: '1000' },
    iterations: { type: 'string', default: '300' },
    'pg-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
    explain: { type: 'boolean', default: false },
  },
});
const kind = values.db;
if (kind !== 'postgres' && kind !== 'pglite') throw new Error(`--db must be postgres or pglite, got "${kind}"`);
const totalSales = Number(values.sales);
const collectionCount = Number(values.collections);
const iterations = Number(values.iterations);
if (collectionCount < 52 || totalSales < BIG + SMALL + collectionCount) throw new Error('need >= 52 collections and enough sales for them');

const log = (m: string) => console.log(`[${kind}] ${m}`);
const addressOf = (i: number) => normalizeAddress('0x' + (0xc011ec7000 + i).toString(16).padStart(40, '0'))!;
const wallet = (i: number) => normalizeAddress('0x' + (0xbeef000 + i).toString(16).padStart(40, '0'))!;

async function openApp(clock: { now: Date }): Promise<Running> {
  const db = await createBenchDatabase(kind as DbKind, { prefix: 'stats_bench', pgUrl: values['pg-url'], memory: true });
  log(`created ${db.describe}`);
  // the bulk load of 1M sales and the rollup rebuild run longer than the 5 s statement timeout
  return bootBenchApp(db, { now: () => clock.now, env: { DATABASE_STATEMENT_TIMEOUT_MS: '300000' } });
}

/**
 * One INSERT ... SELECT FROM unnest(text[], ...) per CHUNK rows: a million rows in seconds.
 * (Prisma's createMany of 500,000 orders ran for over 15 minutes at 4.8 GB in the bench process.)
 */
async function insertRows(app: Running, table: string, columns: [name: string, type: string][], rows: string[][]) {
  const sql = `INSERT INTO ${table} (${columns.map(([n]) => n).join(', ')})
SELECT ${columns.map(([, t], i) => `u.c${i}::${t}`).join(', ')}
FROM unnest(${columns.map((_c, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${columns.map((_c, i) => `c${i}`).join(', ')})`;
  for (let start = 0; start < rows.length; start += CHUNK) {
    const cols: string[][] = columns.map(() => []);
    for (const row of rows.slice(start, start + CHUNK)) row.forEach((v, c) => cols[c]!.push(v));
    await app.db.sql.query(sql, cols);
  }
}

const SALE_COLUMNS: [string, string][] = [
  ['collection_address', 'text'], ['token_id', 'numeric'], ['amount', 'numeric'], ['price', 'numeric'], ['currency_address', 'text'], ['buyer', 'text'],
  ['seller', 'text'], ['strategy', 'text'], ['is_taker_ask', 'boolean'], ['block_number', 'bigint'], ['tx_hash', 'text'], ['log_index', 'integer'], ['timestamp', 'timestamptz'],
];

async function load(app: Running) {
  const { db, services } = app;
  const rnd = prng(5_2026);
  const nowMs = NOW.getTime();
  const network = services.deps.network;
  const t0 = performance.now();

  const addresses = Array.from({ length: collectionCount }, (_, i) => addressOf(i));
  await insertRows(app, 'collections', [['address', 'text'], ['owner', 'text'], ['type', '"CollectionType"'], ['name', 'text'], ['is_verified', 'boolean']],
    addresses.map((address, i) => [address, wallet(0), 'ERC721', `Bench ${i}`, String(i % 3 === 0)]));
  await insertRows(app, 'collection_supply', [['collection_address', 'text'], ['total_supply', 'numeric'], ['count_owners', 'integer']],
    addresses.map((a, i) => [a, String(1000 + i), String(100 + (i % 700))]));

  // Sales per collection: BIG, SMALL, the rest shared evenly.
  const rest = totalSales - BIG - SMALL;
  const perCollection = addresses.map((_a, i) => (i === 0 ? BIG : i === 1 ? SMALL : Math.floor(rest / (collectionCount - 2)) + (i - 2 < rest % (collectionCount - 2) ? 1 : 0)));
  const owner: number[] = [];
  perCollection.forEach((n, i) => {
    for (let k = 0; k < n; k++) owner.push(i);
  });
  let seq = 0;
  const tSales = performance.now();
  // 200,000 rows at a time: a million rows of strings at once would hold about a gigabyte.
  for (let from = 0; from < owner.length; from += 10 * CHUNK) {
    const saleRows = owner.slice(from, from + 10 * CHUNK).map((i) => {
      const price = BigInt(rnd.int(1, 100_000)) * 10n ** 14n + BigInt(rnd.int(0, 999_999));
      return [addresses[i]!, String(rnd.int(1, 10_000)), '1', price.toString(), network.weth, wallet(rnd.int(1, 500)), wallet(rnd.int(1, 500)), network.strategies.standardSale[0]!, String(rnd.next() < 0.3), String(15_000_000 + seq), '0x' + (seq++).toString(16).padStart(64, '0'), '0', new Date(nowMs - Math.floor(rnd.next() * 730 * DAY_MS)).toISOString()];
    });
    await insertRows(app, 'sales', SALE_COLUMNS, saleRows);
    log(`  inserted ${Math.min(owner.length, from + 10 * CHUNK)} / ${owner.length} sales`);
  }
  const salesMs = performance.now() - tSales;
  const tRollup = performance.now();
  await services.sales.rebuildSaleBuckets();
  const rollupMs = performance.now() - tRollup;

  // Listings (5 live asks per collection) and floor history, so the floor fields are computed.
  const ORDER_COLUMNS: [string, string][] = [
    ['hash', 'text'], ['collection_address', 'text'], ['token_id', 'numeric'], ['is_order_ask', 'boolean'], ['signer', 'text'], ['strategy', 'text'], ['currency_address', 'text'],
    ['amount', 'numeric'], ['price', 'numeric'], ['nonce', 'numeric'], ['start_time', 'bigint'], ['end_time', 'bigint'], ['min_percentage_to_ask', 'integer'],
    ['signature', 'text'], ['v', 'integer'], ['r', 'text'], ['s', 'text'],
  ];
  const nowS = Math.floor(nowMs / 1000);
  await insertRows(app, 'orders', ORDER_COLUMNS, addresses.flatMap((a, i) =>
    Array.from({ length: 5 }, (_x, k) => [
      '0x' + (i * 5 + k).toString(16).padStart(64, '0'), a, String(k + 1), 'true', wallet(k), network.strategies.standardSale[0]!, network.weth,
      '1', String(BigInt(rnd.int(1, 500)) * 10n ** 16n), String(i * 5 + k), String(nowS - 86_400), String(nowS + 30 * 86_400), '9800',
      '0x', '27', '0x' + '0'.repeat(64), '0x' + '0'.repeat(64),
    ]),
  ));
  await insertRows(app, 'floor_history', [['collection_address', 'text'], ['floor_price', 'numeric'], ['at', 'timestamptz']],
    addresses.flatMap((a) => [40, 10, 2].map((d) => [a, String(BigInt(rnd.int(1, 500)) * 10n ** 16n), new Date(nowMs - d * DAY_MS).toISOString()])));
  await db.sql.exec('ANALYZE');
  log(`loaded ${owner.length} sales in ${(salesMs / 1000).toFixed(1)} s, rollups rebuilt in ${(rollupMs / 1000).toFixed(1)} s, total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return addresses;
}

/** The window sums of one collection by a plain scan of its raw sales: the reference. */
async function rawSums(app: Running, address: string) {
  const parts = STATS_WINDOWS.flatMap((w) => [
    `SUM(price) FILTER (WHERE timestamp > $2::timestamptz - make_interval(secs => ${w.seconds}))::text AS "volume${w.label}"`,
    `COUNT(*) FILTER (WHERE timestamp > $2::timestamptz - make_interval(secs => ${w.seconds}))::text AS "count${w.label}"`,
  ]);
  const [row] = await app.db.sql.query<Record<string, string | null>>(
    `SELECT SUM(price)::text AS "volumeAll", COUNT(*)::text AS "countAll", ${parts.join(', ')} FROM sales WHERE collection_address = $1 AND timestamp <= $2::timestamptz`,
    [address, NOW.toISOString()],
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, v ?? '0']));
}

async function checkAgainstRaw(app: Running, addresses: string[]) {
  for (const a of addresses) {
    const [stats] = await app.services.stats.statsFor([a]);
    const want = await rawSums(app, a);
    for (const [k, v] of Object.entries(want)) {
      if ((stats as Record<string, unknown>)[k] !== v) throw new Error(`rollup check failed for ${a} ${k}: stats ${String((stats as Record<string, unknown>)[k])}, raw ${v}`);
    }
  }
}

async function explain(app: Running, list: string[]) {
  const sent: { sql: string; params: unknown[] }[] = [];
  const query = app.db.sql.query.bind(app.db.sql);
  app.db.sql.query = (async (sql: string, params?: unknown[]) => {
    sent.push({ sql, params: params ?? [] });
    return query(sql, params);
  }) as typeof app.db.sql.query;
  await app.services.stats.statsFor(list);
  app.db.sql.query = query;
  console.log(`\n===== EXPLAIN: statsFor of ${list.length} collection(s), ${list[0]}${list.length > 1 ? ', ...' : ''}`);
  for (const q of sent) {
    const plan = await app.db.sql.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, q.params);
    console.log(`\n${q.sql.trim()}\n${plan.map((p) => Object.values(p)[0]).join('\n')}`);
  }
}

const STATS_FIELDS = ['address', 'countOwners', 'totalSupply', 'floorPrice', 'floorChange24h', 'floorChange7d', 'floorChange30d', 'marketCap', 'volumeAll', 'averageAll', 'countAll', ...STATS_WINDOWS.flatMap((w) => ['volume', 'average', 'count', 'change'].map((f) => `${f}${w.label}`))];

async function main() {
  const clock = { now: NOW };
  const app = await openApp(clock);
  log(`booted on ${app.db.describe}`);
  const addresses = await load(app);
  const normal = addresses.slice(2);
  const rnd = prng(77);
  await checkAgainstRaw(app, [addresses[0]!, addresses[1]!, normal[Math.min(123, normal.length - 1)]!]);
  log('rollup sums of the 100k-sale, 10-sale and one 900-sale collection equal a raw scan of their sales');

  if (values.explain) {
    await explain(app, [addresses[0]!]);
    await explain(app, [normal[7]!]);
    await explain(app, normal.slice(0, 50));
  }

  const fifty = () => {
    const start = rnd.int(0, normal.length - 50);
    return normal.slice(start, start + 50);
  };
  const results: [string, Awaited<ReturnType<typeof timeIt>>][] = [];
  results.push(['(a) statsFor, 1 collection (~900 sales)', await timeIt(iterations, async () => void (await app.services.stats.statsFor([rnd.pick(normal)])))]);
  results.push(['(b) statsFor, 50 collections in one call', await timeIt(iterations, async () => void (await app.services.stats.statsFor(fifty())))]);
  const gql = async () => {
    const list = fifty();
    const query = `{ ${list.map((a, i) => `c${i}: collection(address: "${a}") { stats { ${STATS_FIELDS.join(' ')} } }`).join(' ')} }`;
    const res = await app.yoga.fetch('http://bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) });
    const body = (await res.json()) as { data?: Record<string, { stats: CollectionStats } | null>; errors?: unknown };
    if (body.errors || Object.values(body.data ?? {}).filter((c) => c?.stats.countAll).length !== 50) throw new Error(`GraphQL answer: ${JSON.stringify(body).slice(0, 500)}`);
  };
  results.push(['(c) GraphQL, 50 collections x stats, 1 request', await timeIt(iterations, gql)]);
  results.push([`(d) statsFor, the ${BIG.toLocaleString('en-US')}-sale collection`, await timeIt(iterations, async () => void (await app.services.stats.statsFor([addresses[0]!])))]);
  results.push([`(d) statsFor, the ${SMALL}-sale collection`, await timeIt(iterations, async () => void (await app.services.stats.statsFor([addresses[1]!])))]);
  // Discovery (Query.collections): the first page of 20 under each ranking, over every collection.
  for (const orderBy of COLLECTION_ORDERS) {
    const calls = Math.max(5, Math.min(iterations, Math.round(3e6 / collectionCount)));
    results.push([`(e) collections(first: 20, orderBy: ${orderBy})`, await timeIt(calls, async () => void (await app.services.collectionDiscovery.listCollections({ filter: {}, orderBy, first: 20, fromEnd: false })))]);
  }
  let seq = 0;
  const network = app.services.deps.network;
  results.push([
    'recordSale (the sale and its rollups)',
    await timeIt(iterations * 2, async () => {
      const c = rnd.next() < 0.1 ? addresses[0]! : rnd.pick(normal);
      await app.services.sales.recordSale({
        collection: c, tokenId: 1n, amount: 1n, price: 10n ** 18n + BigInt(seq), currency: network.weth, buyer: wallet(1), seller: wallet(2),
        orderHash: null, strategy: network.strategies.standardSale[0]!, isTakerAsk: false, blockNumber: 20_000_000n + BigInt(seq),
        txHash: '0x' + (0xeeee0000000 + seq++).toString(16).padStart(64, '0'), logIndex: 0, timestamp: new Date(NOW.getTime() - rnd.int(0, 3_600_000)),
      });
    }),
  ]);
  await checkAgainstRaw(app, [addresses[0]!]);
  log('after the recordSale run the 100k-sale collection still equals a raw scan');

  console.log(`\n=== ${kind === 'postgres' ? 'PostgreSQL' : 'PGlite (in memory)'}: ${totalSales.toLocaleString('en-US')} sales, ${collectionCount} collections; sequential calls, ms`);
  console.log(table(['scenario', 'calls', 'p50 ms', 'p99 ms', 'mean ms'], results.map(([name, r]) => [name, r.n, r.p50.toFixed(2), r.p99.toFixed(2), r.mean.toFixed(2)])));
}

await runBench(main);
