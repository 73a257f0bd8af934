// Gap-free reading of the market event log: events after a position, in reading order, only
// below the visibility horizon, filtered on the server; an id taken early but committed late is
// read once, after what committed before it (two real concurrent transactions on PostgreSQL);
// cursors of events retention deleted are refused, never skipped past.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { parseMarketEventStreamFilter, type MarketEventStreamFilter } from '../../src/domain/market-event-stream.js';
import {
  LOG_START,
  logHeadPosition,
  positionAfterEvent,
  pruneMarketEvents,
  readMarketEventsAfter,
  type LogPosition,
} from '../../src/services/market-event-log.js';
import { untilBelowHorizon } from '../helpers/event-log.js';
import { backendName, createPostgresDatabase, openTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-database.js';

const A = '0x' + 'A1'.repeat(20);
const B = '0x' + 'B2'.repeat(20);
const C1 = '0x' + 'C1'.repeat(20);
const C2 = '0x' + 'C2'.repeat(20);
const HASH = '0x' + '11'.repeat(32);

const insertEvent = (type: string, over: { collection?: string; token?: string; from?: string; to?: string; price?: string; order?: string; retracts?: string; at?: string } = {}) =>
  `INSERT INTO market_events (type, collection_address, token_id, from_address, to_address, price, order_hash, retracts_id, created_at)
   VALUES ('${type}', '${over.collection ?? C1}', ${over.token ?? 'NULL'}, ${over.from ? `'${over.from}'` : 'NULL'}, ${over.to ? `'${over.to}'` : 'NULL'},
           ${over.price ?? 'NULL'}, ${over.order ? `'${over.order}'` : 'NULL'}, ${over.retracts ?? 'NULL'}, ${over.at ? `'${over.at}'` : 'now()'})
   RETURNING id::text`;

/** Reads everything there is from `from`, batch after batch, as a stream does. */
async function drain(db: Database, from: LogPosition, filter: MarketEventStreamFilter = {}, limit = 2) {
  const ids: string[] = [];
  let at = from;
  for (;;) {
    const r = await readMarketEventsAfter(db.sql, at, filter, limit);
    ids.push(...r.events.map((e) => e.id));
    at = r.next;
    if (!r.more) return { ids, at };
  }
}

describe(`market event log reader (${backendName})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
  });
  afterAll(() => t?.close());

  it('reads every event after a position once, in order, batch by batch, and filters on the server', async () => {
    const head = await logHeadPosition(t.db.sql);
    const add = async (sql: string) => (await t.db.sql.query<{ id: string }>(sql))[0]!.id;
    const list = await add(insertEvent('LIST', { token: '1', from: A, price: '100', order: HASH }));
    const sale = await add(insertEvent('SALE', { token: '1', from: A, to: B, price: '90' }));
    const transfer = await add(insertEvent('TRANSFER', { collection: C2, token: '7', from: B, to: A }));
    const retracted = await add(insertEvent('RETRACTED', { token: '1', from: A, to: B, price: '90', retracts: sale }));
    await untilBelowHorizon(t.db, retracted);

    const all = await drain(t.db, head);
    expect(all.ids).toEqual([list, sale, transfer, retracted]);
    // resuming from where it stopped reads nothing again
    expect((await drain(t.db, all.at)).ids).toEqual([]);
    // from an event's id: what follows it
    expect((await drain(t.db, await positionAfterEvent(t.db.sql, sale))).ids).toEqual([transfer, retracted]);

    const only = async (args: Parameters<typeof parseMarketEventStreamFilter>[0]) => (await drain(t.db, head, parseMarketEventStreamFilter(args))).ids;
    expect(await only({ collection: C2 })).toEqual([transfer]);
    expect(await only({ collection: C1, tokenId: '1' })).toEqual([list, sale, retracted]);
    // a retraction follows the type of the event it retracts
    expect(await only({ types: ['SALE'] })).toEqual([sale, retracted]);
    expect(await only({ types: ['LIST', 'TRANSFER'] })).toEqual([list, transfer]);
    expect(await only({ account: B })).toEqual([sale, transfer, retracted]);
    expect(await only({ minPrice: '95' })).toEqual([list]);
    expect(await only({ minPrice: '90', maxPrice: '90' })).toEqual([sale, retracted]);
  });

  it('owner: events on orders for tokens the address holds now', async () => {
    const head = await logHeadPosition(t.db.sql);
    await t.db.sql.query(`INSERT INTO collections (address, owner, type, name) VALUES ($1, $1, 'ERC721', 'c') ON CONFLICT DO NOTHING`, [C1]);
    await t.db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) VALUES ($1, 5, $2, 1)`, [C1, B]);
    const add = async (sql: string) => (await t.db.sql.query<{ id: string }>(sql))[0]!.id;
    const offerOnHers = await add(insertEvent('OFFER', { token: '5', from: A, price: '10', order: HASH }));
    await add(insertEvent('OFFER', { token: '6', from: A, price: '10', order: HASH }));
    const collectionOffer = await add(insertEvent('COLLECTION_OFFER', { from: A, price: '9', order: HASH }));
    await untilBelowHorizon(t.db, await add(insertEvent('TRANSFER', { token: '5', from: A, to: B })));
    expect((await drain(t.db, head, parseMarketEventStreamFilter({ owner: B }))).ids).toEqual([offerOnHers, collectionOffer]);
  });

  it('refuses a cursor no event had, and one retention deleted; pruning keeps an unbroken suffix', async () => {
    await expect(positionAfterEvent(t.db.sql, '999999')).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    await expect(positionAfterEvent(t.db.sql, 'x')).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    const add = async (sql: string) => (await t.db.sql.query<{ id: string }>(sql))[0]!.id;
    await add(insertEvent('MINT', { token: '7', to: A }));
    const old1 = await add(insertEvent('MINT', { token: '8', to: A, at: '2020-01-01T00:00:00Z' }));
    const old2 = await add(insertEvent('MINT', { token: '9', to: A, at: '2020-01-01T00:00:00Z' }));
    await untilBelowHorizon(t.db, old2);
    const before = await drain(t.db, LOG_START, {}, 100);
    const cutoff = new Date('2021-01-01T00:00:00Z');
    // everything before old1 is young: nothing is old at the head of the log, so nothing goes
    expect(await pruneMarketEvents(t.db.sql, cutoff, 100)).toBe(0);
    // with a cutoff in the future every event is old: they go in batches, the oldest first; the
    // sale stays while its retraction (the fourth event) does
    const future = new Date(Date.now() + 86_400_000);
    expect(await pruneMarketEvents(t.db.sql, future, 3)).toBe(1);
    expect(await pruneMarketEvents(t.db.sql, future, 3)).toBe(3);
    for (const id of before.ids.slice(0, 4)) await expect(positionAfterEvent(t.db.sql, id)).rejects.toMatchObject({ code: 'CURSOR_EXPIRED' });
    await expect(positionAfterEvent(t.db.sql, '0')).rejects.toMatchObject({ code: 'CURSOR_EXPIRED' });
    // a reader still positioned before what was deleted is told, not moved past it
    await expect(readMarketEventsAfter(t.db.sql, LOG_START, {}, 10)).rejects.toMatchObject({ code: 'CURSOR_EXPIRED' });
    // the fifth is kept and resumes exactly after it
    const rest = await drain(t.db, await positionAfterEvent(t.db.sql, before.ids[4]!), {}, 100);
    expect(rest.ids).toEqual(before.ids.slice(5));
    expect(rest.ids).toContain(old2);
    expect(old1).toBeDefined();
  });
});

describe.runIf(TEST_DATABASE_URL)('market event log reader under concurrent writers (postgres)', () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let db: Database;
  const clients: pg.Client[] = [];
  beforeAll(async () => {
    created = await createPostgresDatabase();
    db = await openDatabase({ databaseUrl: created.url, poolSize: 4 });
    await migrate(db.sql);
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => {});
    await db?.close();
    await created?.drop();
  });

  async function writer() {
    const c = new pg.Client({ connectionString: created.url });
    await c.connect();
    clients.push(c);
    return c;
  }
  const idOf = async (c: pg.Client, sql: string) => (await c.query<{ id: string }>(sql)).rows[0]!.id;

  /** Reads until `n` events arrived (other databases' transactions on the server may hold the horizon a moment). */
  async function readUntil(from: LogPosition, n: number) {
    const deadline = Date.now() + 15_000;
    let got = await drain(db, from);
    while (got.ids.length < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      const more = await drain(db, got.at);
      got = { ids: [...got.ids, ...more.ids], at: more.at };
    }
    return got;
  }

  for (const xidOrder of ['the lower id has the older transaction', 'the lower id has the younger transaction'] as const) {
    it(`reads a lower id that commits after a higher one, once (${xidOrder})`, async () => {
      const start = await logHeadPosition(db.sql);
      const early = await writer();
      const late = await writer();
      await early.query('BEGIN');
      await late.query('BEGIN');
      // an xid is assigned on first use: decide which transaction is older
      if (xidOrder === 'the lower id has the older transaction') await early.query('SELECT pg_current_xact_id()');
      else await late.query('SELECT pg_current_xact_id()');
      const lower = await idOf(early, insertEvent('LIST', { token: '1', from: A, order: HASH }));
      const higher = await idOf(late, insertEvent('SALE', { token: '1', from: A, to: B }));
      expect(BigInt(lower)).toBeLessThan(BigInt(higher));
      await late.query('COMMIT');

      // the higher id is committed, the lower is not yet: a reader must not move past the lower
      const first = await readMarketEventsAfter(db.sql, start, {}, 10);
      if (xidOrder === 'the lower id has the older transaction') {
        // below the horizon nothing is readable yet: the older transaction still runs, and the
        // reader knows something committed is waiting
        expect(first.events).toEqual([]);
        expect(first.pending).toBe(true);
      } else {
        // the higher id's transaction is older than every running one: it is final, and the
        // lower id, whenever it commits, sorts after it
        const got = await readUntil(start, 1);
        expect(got.ids).toEqual([higher]);
      }
      await early.query('COMMIT');
      const all = await readUntil(start, 2);
      expect(all.ids).toEqual(xidOrder === 'the lower id has the older transaction' ? [lower, higher] : [higher, lower]);
      // read again from the end: nothing twice
      expect((await drain(db, all.at)).ids).toEqual([]);
      // and from each event's id, what came after it in the stream
      expect((await drain(db, await positionAfterEvent(db.sql, all.ids[0]!))).ids).toEqual([all.ids[1]]);
    });
  }

  it('is not held back by a transaction in another database of the server', async () => {
    const start = await logHeadPosition(db.sql);
    const elsewhere = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await elsewhere.connect();
    clients.push(elsewhere);
    await elsewhere.query('BEGIN');
    const [{ xid }] = (await elsewhere.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows as [{ xid: string }];
    try {
      const w = await writer();
      const id = await idOf(w, insertEvent('LIST', { token: '4', from: A, order: HASH }));
      // the other database's transaction is older than the event's and still runs
      const [row] = await db.sql.query<{ tx: string }>('SELECT tx_id::text AS tx FROM market_events WHERE id = $1::bigint', [id]);
      expect(BigInt(xid)).toBeLessThan(BigInt(row!.tx));
      expect((await readUntil(start, 1)).ids).toEqual([id]);
    } finally {
      await elsewhere.query('ROLLBACK');
    }
  });

  it('reads nothing a rolled-back transaction wrote, and is not held back by it afterwards', async () => {
    const start = await logHeadPosition(db.sql);
    const w = await writer();
    await w.query('BEGIN');
    await idOf(w, insertEvent('LIST', { token: '2', from: A, order: HASH }));
    await w.query('ROLLBACK');
    const kept = await idOf(w, insertEvent('LIST', { token: '3', from: A, order: HASH }));
    expect((await readUntil(start, 1)).ids).toEqual([kept]);
  });
});
