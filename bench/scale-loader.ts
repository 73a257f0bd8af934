// A market of any size generated inside PostgreSQL (INSERT ... SELECT FROM generate_series), for
// the peer bench at 100k and 10M orders: minutes for 10M orders and 1M sales, not an ORM loop.
// Deterministic (hashint8extended of the row number and a seed, no random()). Rows are valid
// for this service and shaped like a market:
//   collections  generateCollections (bench/helpers.ts): checksummed addresses, 10% unnamed,
//                20% verified, 15% ERC1155, floors 0.001-50 ETH; supply rows for all, operator
//                market data (listing rewards) for the first 20 verified;
//   orders       collection index C * u^3 (a few hot collections, a long tail), token id
//                1 + supply * u^2 (low ids hot: a token has several asks and bids), 60% asks,
//                12% of bids collection offers (token_id NULL, collection-offer strategy), price
//                on a 1% grid of the floor (asks 100-250%, bids 40-95%), 74% live VALID, 8% VALID
//                but past endTime, 6% EXECUTED, 6% CANCELLED, 6% approval/ownership/balance
//                problems; every 500th order a uint256 beyond 2^200 as price, nonce and token id;
//                signers S * u^2 among max(2000, orders / 50) checksummed addresses; startTime
//                over the 60 days before yesterday, ids follow creation; unique hashes;
//   sales        over the 400 days before now (ms precision), same collection and token skew,
//                price 80-200% of the floor; the hourly and daily rollups rebuilt from them
//                exactly as SalesService.rebuildSaleBuckets does.
//   market_events the log's rows for every order (at its creation) and sale (at its time), in time
//                order: what the triggers write, written by the loader in bulk loads (triggers off);
//   token_balances every listed token owned by the maker of its first listing (the amount it listed
//                as balance): the owners, holdings and offers received of the token and account pages.
// Nothing lands near now: live orders end at least a day ahead, expired ones ended before the
// load, so what is live cannot change during a bench run.
// Big loads (`bulk`) drop the non-primary-key indexes of orders and sales first and recreate
// them from their own definitions (pg_get_indexdef: the migrations' indexes exactly), with
// foreign-key triggers off for the session (rows reference collections by construction), then
// VACUUM ANALYZE.
//
//   npx tsx bench/scale-loader.ts --orders 10000000 [--sales 1000000] [--collections 5000]
//                                 [--db-name NAME] [--pg-url postgresql://...]
// creates that database (kept; by default mkt_peer_bench_<orders>_<sales>_<collections>, which
// `npm run bench:peer -- --orders N --keep-db` then reuses), migrates it by booting the app once,
// loads it, prints the time and the database size. The peer bench calls loadScaleDatabase.
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DAY_BUCKET_SQL, HOUR_BUCKET_SQL } from '../src/db/sale-sql.js';
import { bootBenchApp, DEFAULT_PG_URL, fixed, generateCollections, runBench, type BenchDatabase } from './helpers.js';

/** The one SQL call the loader needs (a pg client, or a PGlite session of the app). */
export interface Runner {
  query(text: string, params?: unknown[]): Promise<any[]>;
}

export interface ScaleOptions {
  orders: number;
  sales: number;
  collections: number;
  seed?: number;
  /** drop and recreate indexes, foreign-key triggers off, VACUUM (PostgreSQL, big loads) */
  bulk?: boolean;
  log?: (m: string) => void;
}

export interface ScaleMarket {
  strategy: string;
  collectionOfferStrategy: string;
  currency: string;
}

/** Defaults by size: several thousand collections for millions of orders, a sale per ten orders. */
export function scaleDefaults(orders: number, o: { sales?: number; collections?: number } = {}) {
  return { orders, sales: o.sales ?? Math.round(orders / 10), collections: o.collections ?? (orders >= 1_000_000 ? 5000 : 1000) };
}

const DAY = 86_400;
const BIG = (2n ** 200n + 12345n).toString();

/** A uniform number in [0, 1) from row g and stream k (SQL). */
const u = (seed: number, k: number) => `((hashint8extended(g, ${seed * 100 + k}) & 9007199254740991)::float8 / 9007199254740992.0)`;

function ordersSql(n: number, c: number, signers: number, seed: number, now: number) {
  const U = (k: number) => u(seed, k);
  const offer = `(NOT x.ask AND x.u3 < 0.12)`;
  return `
INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce,
                    start_time, end_time, min_percentage_to_ask, status, signature, v, r, s)
SELECT '0x' || lpad(to_hex(g), 16, '0') || md5(g::text) || left(md5('h' || g), 16),
       bc.address,
       CASE WHEN ${offer} THEN NULL WHEN x.huge THEN ${BIG}::numeric ELSE (1 + floor(bc.supply * x.u4 * x.u4))::numeric END,
       x.ask, bs.address,
       CASE WHEN ${offer} THEN $2 ELSE $1 END, $3,
       CASE WHEN x.ask AND bc.type = 'ERC1155' THEN (1 + floor(5 * x.u6))::numeric ELSE 1 END,
       CASE WHEN x.huge THEN ${BIG}::numeric ELSE div(bc.floor_wei * (CASE WHEN x.ask THEN 100 + floor(151 * x.u7) ELSE 40 + floor(56 * x.u7) END)::numeric, 100) END,
       CASE WHEN x.huge THEN ${BIG}::numeric ELSE (1000000 + g)::numeric END,
       x.start_time,
       CASE WHEN x.roll < 0.08 THEN x.start_time + 1 + floor((${now} - x.start_time - 2) * x.u9)::bigint
            ELSE ${now} + (1 + floor(90 * x.u9)::bigint) * ${DAY} END,
       9800,
       (CASE WHEN x.roll < 0.08 THEN 'VALID' WHEN x.roll < 0.14 THEN 'EXECUTED' WHEN x.roll < 0.20 THEN 'CANCELLED'
             WHEN x.roll < 0.23 THEN CASE WHEN x.ask THEN 'ERC_APPROVAL' ELSE 'ERC20_APPROVAL' END
             WHEN x.roll < 0.26 THEN CASE WHEN x.ask THEN 'INVALID_OWNER' ELSE 'ERC20_BALANCE' END
             ELSE 'VALID' END)::"OrderStatus",
       '0x' || x.r || x.s || '1b', 27, '0x' || x.r, '0x' || x.s
  FROM generate_series($4::bigint, $5::bigint) g
  CROSS JOIN LATERAL (SELECT least(${c - 1}, floor(${c} * power(${U(1)}, 3)))::int AS ci,
                             ${U(2)} < 0.6 AS ask, ${U(3)} AS u3, ${U(4)} AS u4, ${U(6)} AS u6, ${U(7)} AS u7,
                             ${U(8)} AS roll, ${U(9)} AS u9,
                             least(${signers - 1}, floor(${signers} * power(${U(5)}, 2)))::int AS si,
                             g % 500 = 499 AS huge,
                             ${now - 61 * DAY} + (${60 * DAY}::bigint * (g - 1)) / ${n} AS start_time,
                             md5('r' || g) || md5('R' || g) AS r, md5('s' || g) || md5('S' || g) AS s) x
  JOIN bench_coll bc ON bc.idx = x.ci
  JOIN bench_signer bs ON bs.idx = x.si`;
}

function salesSql(m: number, c: number, signers: number, seed: number, nowMs: number) {
  const U = (k: number) => u(seed + 7, k);
  const spanMs = 400 * DAY * 1000;
  return `
INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash, strategy,
                   is_taker_ask, block_number, tx_hash, log_index, timestamp)
SELECT bc.address, (1 + floor(bc.supply * x.u4 * x.u4))::numeric, 1,
       div(bc.floor_wei * (80 + floor(121 * x.u7))::numeric, 100), $2, bb.address, bs.address,
       CASE WHEN x.u3 < 0.7 THEN '0x' || md5('o' || g) || md5('O' || g) END, $1, x.u3 < 0.4,
       15000000 + (x.ms - ${nowMs - spanMs}) / 12000,
       '0x' || lpad(to_hex(g), 16, '0') || md5('t' || g) || left(md5('T' || g), 16),
       (g % 3)::int, to_timestamp((x.ms / 1000.0)::float8)
  FROM generate_series($3::bigint, $4::bigint) g
  CROSS JOIN LATERAL (SELECT least(${c - 1}, floor(${c} * power(${U(1)}, 3)))::int AS ci,
                             ${U(3)} AS u3, ${U(4)} AS u4, ${U(7)} AS u7,
                             least(${signers - 1}, floor(${signers} * power(${U(5)}, 2)))::int AS bi,
                             least(${signers - 1}, floor(${signers} * ${U(6)}))::int AS si,
                             ${nowMs - 60_000} - (${spanMs}::bigint * (${m} - g)) / ${m} - floor(${U(8)} * ${Math.floor(spanMs / m)})::bigint AS ms) x
  JOIN bench_coll bc ON bc.idx = x.ci
  JOIN bench_signer bb ON bb.idx = x.bi
  JOIN bench_signer bs ON bs.idx = x.si`;
}

/** `count` checksummed signer addresses (deterministic). */
async function signerAddresses(count: number): Promise<string[]> {
  const { normalizeAddress } = await import('../src/domain/address.js');
  return Array.from({ length: count }, (_, i) => normalizeAddress('0x' + createHash('sha256').update(`signer ${i}`).digest('hex').slice(0, 40))!);
}

/** Generates the market into a migrated, empty database. */
export async function loadScale(db: Runner, market: ScaleMarket, opts: ScaleOptions) {
  const log = opts.log ?? (() => {});
  const seed = opts.seed ?? 1;
  const now = Math.floor(Date.now() / 1000);
  const t0 = performance.now();
  const since = () => `${fixed((performance.now() - t0) / 1000)} s`;
  const collections = await generateCollections(opts.collections, seed);
  const signers = await signerAddresses(Math.max(2000, Math.floor(opts.orders / 50)));

  await db.query(`CREATE TEMP TABLE bench_coll (idx int PRIMARY KEY, address text, type text, floor_wei numeric, supply int)`);
  await db.query(`CREATE TEMP TABLE bench_signer (idx int PRIMARY KEY, address text)`);
  await db.query(
    `INSERT INTO bench_coll SELECT i - 1, a, t, f::numeric, s FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS u(a, t, f, s, i)`,
    [collections.map((c) => c.address), collections.map((c) => c.type), collections.map((c) => c.floorWei.toString()), collections.map((c) => c.supply)],
  );
  await db.query(`INSERT INTO bench_signer SELECT i - 1, a FROM unnest($1::text[]) WITH ORDINALITY AS u(a, i)`, [signers]);
  await db.query(
    `INSERT INTO collections (address, owner, name, symbol, type, is_verified)
     SELECT a, '0x0000000000000000000000000000000000000000', n, s, t::"CollectionType", v
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[]) AS u(a, n, s, t, v)`,
    [collections.map((c) => c.address), collections.map((c) => c.name), collections.map((c) => c.symbol), collections.map((c) => c.type), collections.map((c) => c.isVerified)],
  );
  await db.query(`INSERT INTO collection_supply (collection_address, total_supply, count_owners) SELECT address, supply, ceil(supply / 3.0)::int FROM bench_coll`);
  const verified = collections.filter((c) => c.isVerified).slice(0, 20);
  await db.query(
    `INSERT INTO global_market_data (collection_address, volume_24h_global, floor_global, observed_at)
     SELECT a, (10::numeric ^ 21 * (101 - i))::numeric(90, 0), f::numeric, now() FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, f, i)`,
    [verified.map((c) => c.address), verified.map((c) => c.floorWei.toString())],
  );

  let dropped: { name: string; def: string }[] = [];
  if (opts.bulk) {
    await db.query(`SET session_replication_role = replica`);
    await db.query(`SET maintenance_work_mem = '1GB'`);
    await db.query(`SET synchronous_commit = off`);
    dropped = await db.query(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
        WHERE t.relname IN ('orders', 'sales', 'market_events') AND t.relnamespace = 'public'::regnamespace AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    );
    for (const d of dropped) await db.query(`DROP INDEX ${d.name}`);
    log(`  dropped ${dropped.length} indexes of orders, sales and market_events for the load`);
  }

  const chunk = 1_000_000;
  const sql = ordersSql(opts.orders, opts.collections, signers.length, seed, now);
  for (let from = 1; from <= opts.orders; from += chunk) {
    const to = Math.min(opts.orders, from + chunk - 1);
    await db.query(sql, [market.strategy, market.collectionOfferStrategy, market.currency, from, to]);
    log(`  ${to.toLocaleString('en-US')} orders (${since()})`);
  }
  const ordersSeconds = (performance.now() - t0) / 1000;
  await loadTokenBalances(db);
  log(`  token balances (${since()})`);
  const salesQuery = salesSql(opts.sales, opts.collections, signers.length, seed, now * 1000);
  for (let from = 1; from <= opts.sales; from += chunk) {
    const to = Math.min(opts.sales, from + chunk - 1);
    await db.query(salesQuery, [market.strategy, market.currency, from, to]);
  }
  log(`  ${opts.sales.toLocaleString('en-US')} sales (${since()})`);
  // SalesService.rebuildSaleBuckets, on this session
  await db.query(`INSERT INTO sale_buckets (collection_address, bucket_start, volume, count)
    SELECT collection_address, ${HOUR_BUCKET_SQL('timestamp')}, SUM(price), COUNT(*) FROM sales GROUP BY 1, 2`);
  await db.query(`INSERT INTO sale_day_buckets (collection_address, day_start, volume, count)
    SELECT collection_address, ${DAY_BUCKET_SQL('bucket_start')}, SUM(volume), SUM(count) FROM sale_buckets GROUP BY 1, 2`);
  log(`  sale rollups rebuilt (${since()})`);
  if (opts.bulk) {
    // replica mode kept the event log's triggers off: the same rows they write, in time order
    // (prisma/migrations/20261127090000_market_events: an order at its creation, a sale at its time)
    await db.query(`INSERT INTO market_events (type, collection_address, token_id, order_hash, from_address, to_address, price, amount, block_number, tx_hash, log_index, created_at)
      SELECT type::"MarketEventType", collection_address, token_id, order_hash, from_address, to_address, price, amount, block_number, tx_hash, log_index, at FROM (
        SELECT CASE WHEN o.is_order_ask THEN 'LIST' WHEN o.token_id IS NULL THEN 'COLLECTION_OFFER' ELSE 'OFFER' END AS type, o.collection_address, o.token_id,
               o.hash AS order_hash, o.signer AS from_address, NULL::text AS to_address, o.price, o.amount, NULL::bigint AS block_number, NULL::text AS tx_hash,
               NULL::int AS log_index, o.created_at AS at, 0 AS kind, o.id AS key FROM orders o
        UNION ALL
        SELECT 'SALE', s.collection_address, s.token_id, s.order_hash, s.seller, s.buyer, s.price, s.amount, s.block_number, s.tx_hash, s.log_index, s.timestamp, 1, s.id FROM sales s
      ) e ORDER BY at, kind, key`);
    log(`  market events written (${since()})`);
  }

  if (opts.bulk) {
    await db.query(`SET session_replication_role = DEFAULT`);
    for (const d of dropped) {
      const t = performance.now();
      await db.query(d.def);
      log(`  ${d.name} rebuilt in ${fixed((performance.now() - t) / 1000)} s`);
    }
    await db.query(`VACUUM (ANALYZE) orders`);
    await db.query(`VACUUM (ANALYZE) sales`);
    await db.query(`VACUUM (ANALYZE) market_events`);
  }
  await db.query(`ANALYZE`);
  await db.query(`DROP TABLE bench_coll, bench_signer`);
  log(`  indexes and statistics ready (${since()})`);
  return { collections, seconds: (performance.now() - t0) / 1000, ordersSeconds };
}

/** Ownership as the indexer would hold it had the makers of the listings owned what they listed. */
async function loadTokenBalances(db: Runner): Promise<void> {
  await db.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance)
    SELECT DISTINCT ON (o.collection_address, o.token_id) o.collection_address, o.token_id, o.signer, o.amount
      FROM orders o WHERE o.is_order_ask AND o.token_id IS NOT NULL
     ORDER BY o.collection_address, o.token_id, o.id`);
}

/** What the peer bench asks about: the hottest collection, one of its tokens, a maker, an order, a holder. */
export interface Picks {
  collection: string;
  tokenId: string;
  signer: string;
  hash: string;
  /**
   * An account holding about HOLDER_SIZE tokens (the closest count, then the lowest address): a
   * wallet page's cost grows with the wallet, so the scale comparison asks about a wallet of the
   * same size at every size of the market, not about its largest one.
   */
  holder: string;
}

const HOLDER_SIZE = 50;

/** Chosen from the loaded data so every shape answers rows: the busiest live book, token, maker. */
export async function pickTargets(db: Runner): Promise<Picks> {
  const now = Math.floor(Date.now() / 1000);
  const live = `status = 'VALID' AND end_time >= ${now}`;
  const one = async (text: string, params: unknown[] = []) => {
    const [row] = await db.query(text, params);
    if (!row) throw new Error(`no data for: ${text}`);
    return String(Object.values(row)[0]);
  };
  const collection = await one(`SELECT collection_address FROM orders WHERE is_order_ask AND ${live} GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`);
  const tokenId = await one(
    `SELECT token_id::text FROM orders WHERE collection_address = $1 AND token_id IS NOT NULL AND ${live}
      GROUP BY token_id HAVING bool_or(is_order_ask) AND bool_or(NOT is_order_ask) ORDER BY count(*) DESC, token_id LIMIT 1`,
    [collection],
  );
  const signer = await one(`SELECT signer FROM orders WHERE ${live} GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`);
  const hash = await one(`SELECT hash FROM orders WHERE collection_address = $1 AND is_order_ask AND ${live} ORDER BY id LIMIT 1 OFFSET 7`, [collection]);
  await one(`SELECT 1 FROM sales WHERE collection_address = $1 LIMIT 1`, [collection]);
  const holder = await one(
    `SELECT owner FROM token_balances WHERE balance > 0 GROUP BY owner ORDER BY abs(count(*) - ${HOLDER_SIZE}), owner COLLATE "C" LIMIT 1`,
  );
  return { collection, tokenId, signer, hash, holder };
}

const pgRunner = (client: pg.Client): Runner => ({ query: async (text, params) => (await client.query(text, params as unknown[])).rows });

/** The database `--keep-db` keeps a load in. */
export const keptDatabaseName = (o: { orders: number; sales: number; collections: number }) => `mkt_peer_bench_${o.orders}_${o.sales}_${o.collections}`;

/** The label a loaded database carries (COMMENT ON DATABASE), to reuse it in a later run. */
const loadLabel = (o: { orders: number; sales: number; collections: number }) => `peer-bench scale load: ${o.orders} orders, ${o.sales} sales, ${o.collections} collections`;

/**
 * Migrates the database (boots the app once) and loads it; on PostgreSQL through its own client
 * (no statement timeout), on PGlite through the app's session. `reuse`: a PostgreSQL database
 * that already carries this load's label is only re-picked (and its market data refreshed).
 */
export async function loadScaleDatabase(db: BenchDatabase, opts: ScaleOptions & { reuse?: boolean }): Promise<{ picks: Picks; seconds: number | null; sizeMb: number | null }> {
  const log = opts.log ?? (() => {});
  if (db.kind === 'postgres') {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const name = new URL(db.url!).pathname.slice(1);
      const [label] = (await client.query(`SELECT shobj_description(oid, 'pg_database') AS d FROM pg_database WHERE datname = $1`, [name])).rows;
      let seconds: number | null = null;
      if (opts.reuse && String(label?.d ?? '').startsWith(loadLabel(opts))) {
        log(`${db.describe}: reusing its load (${label.d})`);
        await client.query(`UPDATE global_market_data SET observed_at = now()`);
        // a load kept from before the loader wrote ownership gets it now
        if (!(await client.query(`SELECT 1 FROM token_balances LIMIT 1`)).rowCount) {
          await loadTokenBalances(pgRunner(client));
          await client.query(`ANALYZE token_balances`);
          log(`${db.describe}: token balances added`);
        }
      } else {
        const running = await bootBenchApp(db);
        const network = running.services.deps.network;
        await running.close();
        const market = { strategy: network.strategies.standardSale.at(-1)!, collectionOfferStrategy: network.strategies.collectionOffer.at(-1)!, currency: network.weth };
        const r = await loadScale(pgRunner(client), market, { ...opts, log });
        seconds = r.seconds;
        await client.query(`COMMENT ON DATABASE ${name} IS '${loadLabel(opts)}, loaded ${new Date().toISOString()} in ${fixed(r.seconds)} s'`);
      }
      const [size] = (await client.query(`SELECT pg_database_size(current_database())::float8 / 1048576 AS mb`)).rows;
      return { picks: await pickTargets(pgRunner(client)), seconds, sizeMb: size.mb };
    } finally {
      await client.end();
    }
  }
  const running = await bootBenchApp(db);
  try {
    const network = running.services.deps.network;
    const market = { strategy: network.strategies.standardSale.at(-1)!, collectionOfferStrategy: network.strategies.collectionOffer.at(-1)!, currency: network.weth };
    return await running.db.sql.withSession(async (session) => {
      const runner: Runner = { query: (text, params) => session.query(text, params) };
      const r = await loadScale(runner, market, { ...opts, bulk: false, log });
      return { picks: await pickTargets(runner), seconds: r.seconds, sizeMb: null };
    });
  } finally {
    await running.close();
  }
}

async function cli() {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '10000000' },
      sales: { type: 'string' },
      collections: { type: 'string' },
      'db-name': { type: 'string' },
      'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    },
  });
  const o = scaleDefaults(Number(values.orders), { sales: values.sales ? Number(values.sales) : undefined, collections: values.collections ? Number(values.collections) : undefined });
  // the name `npm run bench:peer -- --keep-db` looks for, so the bench reuses this load
  const name = values['db-name'] ?? keptDatabaseName(o);
  const admin = new pg.Client({ connectionString: values['pg-url'] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(values['pg-url']!);
  url.pathname = `/${name}`;
  const db: BenchDatabase = { kind: 'postgres', env: { DATABASE_URL: url.toString() }, url: url.toString(), describe: `PostgreSQL database ${name}` };
  console.log(`[scale-loader] ${o.orders} orders, ${o.sales} sales, ${o.collections} collections into ${name} (kept)`);
  const r = await loadScaleDatabase(db, { ...o, bulk: o.orders >= 1_000_000, log: (m) => console.log(`[scale-loader] ${m}`) });
  console.log(`[scale-loader] loaded in ${fixed(r.seconds ?? NaN)} s; database size ${fixed((r.sizeMb ?? NaN) / 1024, 2)} GB; targets ${JSON.stringify(r.picks)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runBench(cli);
