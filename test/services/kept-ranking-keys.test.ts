// The refresh of the kept ranking keys and the writers of orders and sales exclude each other
// (migration 20261206090000_kept_ranking_keys): a refresh that finds a write in flight does
// nothing rather than compute from a snapshot that misses it, and a write that arrives during a
// refresh waits for it, then marks what the refresh wrote. PostgreSQL only: PGlite has one
// connection, so nothing runs beside a write there.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { FIXED_NOW } from '../helpers/test-app.js';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../helpers/test-database.js';

let C = '0x' + 'c7'.repeat(20);
const NOW_S = Math.floor(FIXED_NOW.getTime() / 1000);

let db: Database;
let app: Running;
let writer: pg.Client;
const cleanups: (() => Promise<unknown>)[] = [];

const listing = (n: number, price: number) =>
  `INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce,
                       start_time, end_time, min_percentage_to_ask, status, signature, v, r, s)
   VALUES ('0x${n.toString(16).padStart(64, '0')}', '${C}', 1, true, '0x${'51'.repeat(20)}', '${app.services.deps.network.strategies.standardSale[0]}',
           '${app.services.deps.network.weth}', 1, ${price}, ${n}, ${NOW_S - 60}, ${NOW_S + 3600}, 9800, 'VALID', '0x', 27, '0x${'0'.repeat(64)}', '0x${'0'.repeat(64)}')`;

const kept = async () => (await db.sql.query<{ floor_price: string | null; valid_from: string; valid_to: string }>(`SELECT floor_price::text, valid_from::text, valid_to::text FROM collection_floor_keys WHERE collection_address = $1`, [C]))[0]!;

describe.skipIf(!TEST_DATABASE_URL)('kept ranking keys beside writers (postgres)', () => {
  beforeAll(async () => {
    const created = await createPostgresDatabase();
    db = await openDatabase({ databaseUrl: created.url, poolSize: 4 });
    await migrate(db.sql);
    cleanups.push(() => db.close(), () => created.drop());
    app = await boot(loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', WEBHOOKS: 'false' }), createLogger('silent'), { db, indexer: false, now: () => FIXED_NOW });
    cleanups.unshift(() => app.close());
    writer = new pg.Client({ connectionString: created.url });
    await writer.connect();
    cleanups.unshift(() => writer.end());
    C = (await app.services.collections.upsertCollection({ address: C, type: 'ERC721' })).collection.address;
    await db.sql.query(listing(1, 500));
  }, 60_000);
  afterAll(async () => {
    for (const c of cleanups) await c().catch(() => {});
  });

  it('a refresh during an uncommitted write does nothing; after the commit it sees the write', async () => {
    expect(await app.services.keptRankingKeys.refresh()).toBe(true);
    expect(await kept()).toMatchObject({ floor_price: '500', valid_from: String(NOW_S - 60), valid_to: String(NOW_S + 3601) });
    // the floor key is made unknown so that a refresh would compute it: from a snapshot without
    // the write in flight, it would keep 500
    await db.sql.query(`UPDATE collection_floor_keys SET valid_from = 0, valid_to = 0 WHERE collection_address = $1`, [C]);
    await writer.query('BEGIN');
    await writer.query(listing(2, 400));
    expect(await app.services.keptRankingKeys.refresh()).toBe(false);
    expect(await kept()).toMatchObject({ valid_from: '0', valid_to: '0' });
    await writer.query('COMMIT');
    expect(await app.services.keptRankingKeys.refresh()).toBe(true);
    expect(await kept()).toMatchObject({ floor_price: '400', valid_from: String(NOW_S - 60) });
  });

  it('a write that commits after a refresh marks the kept floor it moves', async () => {
    expect(await app.services.keptRankingKeys.refresh()).toBe(true);
    await writer.query('BEGIN');
    await writer.query(`SELECT pg_advisory_xact_lock(72707374, hashtext(current_database()))`);
    // a writer now waits for the lock the refresh would hold, then marks what it finds
    const write = db.sql.query(listing(3, 300));
    await new Promise((r) => setTimeout(r, 200));
    expect((await kept()).floor_price).toBe('400');
    await writer.query('COMMIT');
    await write;
    expect(await kept()).toMatchObject({ valid_from: '0', valid_to: '0' });
    expect(await app.services.keptRankingKeys.refresh()).toBe(true);
    expect((await kept()).floor_price).toBe('300');
  });
});
