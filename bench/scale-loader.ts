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
//   token metadata every token the index knows (held or named by an order): 97% show a document
//                (name, image, a JSON document and its SHA-256), the rest are PENDING without one.
//                A collection has 5-7 string trait types of 4-35 values each (value j of a type
//                drawn as floor(V u^2): the first values common, the last rare; Clothes, Hat and
//                Earring missing from 20/35/70% of tokens) and half the collections a NUMBER trait
//                Level 1-100; trait_values is the recount of token_attributes (as the metadata
//                write keeps it); rarity is an information-content score over the string traits
//                (sum of ln(N / count)), ranked per collection with ties sharing a rank, and
//                collection_metadata says so (a consistent ranking, not OpenRarity's exact one:
//                the reads only show it).
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
        WHERE t.relname IN ('orders', 'sales', 'market_events', 'token_attributes', 'token_metadata') AND t.relnamespace = 'public'::regnamespace AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    );
    for (const d of dropped) await db.query(`DROP INDEX ${d.name}`);
    log(`  dropped ${dropped.length} indexes of orders, sales, market_events and token metadata for the load`);
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
  await loadTokenMetadata(db, seed);
  log(`  token metadata, traits and rarity (${since()})`);
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
    await db.query(`VACUUM (ANALYZE) token_metadata`);
    await db.query(`VACUUM (ANALYZE) token_attributes`);
  } else {
    // the traits are read index-only (trait filters, counts): set their visibility map now, as
    // autovacuum would before long, rather than in the middle of a run
    await db.query(`VACUUM (ANALYZE) token_attributes, trait_values`);
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

/** The trait types a collection draws from, in document order (bench/scale-loader.ts header). */
const TRAIT_TYPES: { name: string; words: string[]; absent: number }[] = [
  { name: 'Background', words: ['Blue', 'Dusk', 'Slate', 'Orange', 'Purple', 'Mint', 'Gray', 'Yellow', 'Aquamarine', 'Army Green', 'Crimson', 'Sand'], absent: 0 },
  { name: 'Fur', words: ['Brown', 'Black', 'Golden', 'Cream', 'Dark Brown', 'Gray', 'Red', 'Zombie', 'Robot', 'Trippy', 'Pink', 'White', 'Noise', 'Solid Gold'], absent: 0 },
  { name: 'Eyes', words: ['Bored', 'Sleepy', 'Angry', '3d', 'Laser Eyes', 'Hypnotized', 'Zombie', 'Robot', 'Crazy', 'Sad', 'Closed', 'Heart', 'Sunglasses', 'Coins', 'X Eyes', 'Cyborg'], absent: 0 },
  { name: 'Mouth', words: ['Bored', 'Grin', 'Phoneme Oh', 'Discomfort', 'Jovial', 'Rage', 'Small Grin', 'Tongue Out', 'Cigar', 'Pipe', 'Bubblegum', 'Gold Grill'], absent: 0 },
  { name: 'Clothes', words: ['Striped Tee', 'Navy Striped Tee', 'Hawaiian', 'Leather Jacket', 'Tuxedo Tee', 'Bandolier', 'Sailor Shirt', 'Service', 'Lab Coat', 'Kings Robe'], absent: 0.2 },
  { name: 'Hat', words: ['Beanie', 'Fez', 'Safari', 'Bayc Flipped Brim', 'Sushi Chef Headband', 'Halo', 'Party Hat', 'Cowboy Hat', 'Laurel Wreath', 'Crown'], absent: 0.35 },
  { name: 'Earring', words: ['Silver Stud', 'Gold Stud', 'Silver Hoop', 'Gold Hoop', 'Diamond Stud', 'Cross'], absent: 0.7 },
];

/**
 * Token metadata, traits, their counts and rarity ranks for every token the index knows (the
 * header says how they are drawn); deterministic from the collection address, the token id and `seed`.
 */
async function loadTokenMetadata(db: Runner, seed: number): Promise<void> {
  const { OPEN_RARITY_METHOD, OPEN_RARITY_VERSION } = await import('../src/domain/open-rarity.js');
  // a uniform number in [0, 1) of the token row b and stream k
  const ut = (k: number) => `((hashtextextended(b.c || ':' || b.t::text, ${seed * 100 + k}) & 9007199254740991)::float8 / 9007199254740992.0)`;
  // the same of the token row b and trait slot `slot` (SQL text)
  const uk = (slot: string) => `((hashtextextended(b.c || ':' || b.t::text || ${slot}, ${seed}) & 9007199254740991)::float8 / 9007199254740992.0)`;
  await db.query(`CREATE TEMP TABLE bench_known AS
    SELECT k.collection_address AS c, k.token_id AS t, hashtextextended(k.collection_address, ${seed}) AS ch, false AS documented
      FROM (SELECT collection_address, token_id FROM token_balances UNION SELECT collection_address, token_id FROM orders WHERE token_id IS NOT NULL) k`);
  await db.query(`UPDATE bench_known b SET documented = ${ut(0)} >= 0.03`);
  const types = `(SELECT * FROM unnest($1::text[], $2::text[], $3::float8[]) WITH ORDINALITY AS u(name, words, absent, k))`;
  // string types 1..5-7 of the list, and Level (NUMBER) in half the collections
  await db.query(
    `INSERT INTO token_attributes (collection_address, token_id, trait_type, value, display_type, kind, number_value, position)
     SELECT b.c, b.t, tt.name,
            w.words[1 + x.j % cardinality(w.words)] || CASE WHEN x.j >= cardinality(w.words) THEN ' ' || (1 + x.j / cardinality(w.words))::text ELSE '' END,
            NULL, 'STRING'::"AttributeKind", NULL, tt.k - 1
       FROM bench_known b
       JOIN ${types} tt ON tt.k <= 5 + ((b.ch >> 2) & 3) % 3
       CROSS JOIN LATERAL (SELECT string_to_array(tt.words, '|') AS words) w
       CROSS JOIN LATERAL (SELECT floor((4 + ((b.ch >> (8 + 4 * tt.k::int)) & 31)) * power(${uk(`':' || tt.k`)}, 2))::int AS j, ${uk(`'/' || tt.k`)} AS present) x
      WHERE b.documented AND x.present >= tt.absent
     UNION ALL
     SELECT b.c, b.t, 'Level', l.v::text, 'number', 'NUMBER'::"AttributeKind", l.v, ${TRAIT_TYPES.length}
       FROM bench_known b CROSS JOIN LATERAL (SELECT (1 + floor(99 * power(${ut(2)}, 2)))::int AS v) l
      WHERE b.documented AND (b.ch >> 6) & 1 = 0`,
    [TRAIT_TYPES.map((t) => t.name), TRAIT_TYPES.map((t) => t.words.join('|')), TRAIT_TYPES.map((t) => t.absent)],
  );
  // the counts as the metadata write keeps them (src/db/token-metadata-sql.ts): a recount
  await db.query(`INSERT INTO trait_values (collection_address, trait_type, value, kind, number_value, token_count)
    SELECT collection_address, trait_type, value, max(kind), max(number_value), count(*) FROM token_attributes GROUP BY 1, 2, 3`);
  await db.query(`INSERT INTO token_metadata (collection_address, token_id, status, token_uri, fetched_at, document, document_sha256, name, image)
    SELECT b.c, b.t, CASE WHEN b.documented THEN 'OK' ELSE 'PENDING' END::"MetadataStatus",
           CASE WHEN b.documented THEN 'ipfs://bafybei' || left(md5(b.c), 40) || '/' || b.t::text END, CASE WHEN b.documented THEN now() END,
           d.doc, encode(sha256(convert_to(d.doc, 'UTF8')), 'hex'), CASE WHEN b.documented THEN n.name END, CASE WHEN b.documented THEN n.image END
      FROM bench_known b JOIN collections c ON c.address = b.c
      CROSS JOIN LATERAL (SELECT COALESCE(c.name, c.symbol) || ' #' || b.t::text AS name,
                                 'https://ipfs.io/ipfs/bafybei' || left(md5(b.c), 40) || '/' || b.t::text || '.png' AS image) n
      LEFT JOIN (SELECT collection_address, token_id,
                        json_agg(json_build_object('trait_type', trait_type, 'value', CASE WHEN kind = 'NUMBER' THEN to_json(number_value) ELSE to_json(value) END) ORDER BY position) AS attrs
                   FROM token_attributes GROUP BY 1, 2) a ON a.collection_address = b.c AND a.token_id = b.t
      CROSS JOIN LATERAL (SELECT CASE WHEN b.documented THEN json_build_object('name', n.name, 'image', n.image, 'attributes', COALESCE(a.attrs, '[]'::json))::text END AS doc) d`);
  await db.query(`UPDATE token_metadata m SET rarity_score = r.score, rarity_rank = r.rank
      FROM (SELECT s.*, rank() OVER (PARTITION BY s.collection_address ORDER BY s.score DESC) AS rank
              FROM (SELECT a.collection_address, a.token_id, sum(ln(n.n::float8 / v.token_count)) AS score
                      FROM token_attributes a
                      JOIN trait_values v ON v.collection_address = a.collection_address AND v.trait_type = a.trait_type AND v.value = a.value
                      JOIN (SELECT collection_address, count(*) AS n FROM token_metadata WHERE document_sha256 IS NOT NULL GROUP BY 1) n ON n.collection_address = a.collection_address
                     WHERE a.kind = 'STRING' GROUP BY 1, 2) s) r
     WHERE m.collection_address = r.collection_address AND m.token_id = r.token_id`);
  await db.query(
    `INSERT INTO collection_metadata (collection_address, rarity_computed_at, rarity_tokens_scored, rarity_max_rank, rarity_method, rarity_version)
     SELECT collection_address, now(), count(*), max(rarity_rank), $1, $2 FROM token_metadata WHERE rarity_rank IS NOT NULL GROUP BY 1`,
    [OPEN_RARITY_METHOD, OPEN_RARITY_VERSION],
  );
  await db.query(`DROP TABLE bench_known`);
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
  /** the token page with attributes: the busiest token of the collection showing a document (tokenId, unless it shows none) */
  documentedTokenId: string;
  /** two trait conditions on the collection (its two most common values of two string trait types) that at least a page of its listed tokens meet */
  traits: { traitType: string; values: string[] }[];
}

const HOLDER_SIZE = 50;

/** Chosen from the loaded data so every shape answers rows: the busiest live book, token, maker. */
export async function pickTargets(db: Runner): Promise<Picks> {
  const now = Math.floor(Date.now() / 1000);
  const liveOf = (o: string) => `${o}status = 'VALID' AND ${o}end_time >= ${now}`;
  const live = liveOf('');
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
  const documentedTokenId = await one(
    `SELECT o.token_id::text FROM orders o JOIN token_metadata m ON m.collection_address = o.collection_address AND m.token_id = o.token_id AND m.document_sha256 IS NOT NULL
      WHERE o.collection_address = $1 AND ${liveOf('o.')}
      GROUP BY o.token_id HAVING bool_or(o.is_order_ask) AND bool_or(NOT o.is_order_ask) ORDER BY count(*) DESC, o.token_id LIMIT 1`,
    [collection],
  );
  return { collection, tokenId, signer, hash, holder, documentedTokenId, traits: await pickTraits(db, collection, liveOf('o.')) };
}

/** Background and Eyes (every collection has both), each with its most common values: two, or more until a page of listed tokens meets both. */
async function pickTraits(db: Runner, collection: string, liveAsk: string): Promise<Picks['traits']> {
  const ranked = async (traitType: string) =>
    (await db.query(`SELECT value FROM trait_values WHERE collection_address = $1 AND trait_type = $2 ORDER BY token_count DESC, value COLLATE "C"`, [collection, traitType])).map((r) => String(r.value));
  const [a, b] = [await ranked('Background'), await ranked('Eyes')];
  for (let n = 2; ; n++) {
    const traits = [
      { traitType: 'Background', values: a.slice(0, n) },
      { traitType: 'Eyes', values: b.slice(0, n) },
    ];
    const [row] = await db.query(
      `SELECT count(DISTINCT o.token_id) AS n FROM orders o WHERE o.collection_address = $1 AND o.is_order_ask AND ${liveAsk}
          AND EXISTS (SELECT 1 FROM token_attributes x WHERE x.collection_address = $1 AND x.token_id = o.token_id AND x.trait_type = $2 AND x.value = ANY($3::text[]))
          AND EXISTS (SELECT 1 FROM token_attributes x WHERE x.collection_address = $1 AND x.token_id = o.token_id AND x.trait_type = $4 AND x.value = ANY($5::text[]))`,
      [collection, traits[0]!.traitType, traits[0]!.values, traits[1]!.traitType, traits[1]!.values],
    );
    if (Number(row.n) >= 100 || (n >= a.length && n >= b.length)) return traits;
  }
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
        // and one kept from before it wrote token metadata gets that
        if (!(await client.query(`SELECT 1 FROM token_metadata LIMIT 1`)).rowCount) {
          await loadTokenMetadata(pgRunner(client), opts.seed ?? 1);
          await client.query(`VACUUM (ANALYZE) token_metadata, token_attributes, trait_values, collection_metadata`);
          log(`${db.describe}: token metadata added`);
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
