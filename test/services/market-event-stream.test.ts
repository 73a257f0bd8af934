// The market event stream's shared tail: streams replaying from a cursor read on their own, then
// join the one reader that follows the log for every caught-up stream. At the seam (events
// committing while streams hand over) each stream still receives exactly the log after its
// cursor, filtered, in reading order; on PostgreSQL the writers interleave transactions so that a
// lower id commits after a higher one. One tail read serves every stream; a stream that stops
// reading is detached and catches up on its own without losing an event.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import type { MarketEventStreamFilter } from '../../src/domain/market-event-stream.js';
import { createLogger } from '../../src/logger.js';
import type { MarketEventRow } from '../../src/services/activity.js';
import { LOG_START, positionAfterEvent, readMarketEventsAfter, type SqlQueryable } from '../../src/services/market-event-log.js';
import { createMarketEventStreamService } from '../../src/services/market-event-stream.js';
import { QUEUE_LIMIT } from '../../src/services/market-event-tail.js';
import { untilBelowHorizon } from '../helpers/event-log.js';
import { FIXED_NOW } from '../helpers/test-app.js';
import { backendName, createPostgresDatabase, openTestDatabase, TEST_DATABASE_URL } from '../helpers/test-database.js';

const C1 = '0x' + 'c1'.repeat(20);
const C2 = '0x' + 'c2'.repeat(20);
const OWNER = '0x' + 'a1'.repeat(20);

let db: Database;
let url: string | undefined;
let app: Running;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (TEST_DATABASE_URL) {
    const created = await createPostgresDatabase();
    url = created.url;
    db = await openDatabase({ databaseUrl: created.url, poolSize: 8 });
    await migrate(db.sql);
    cleanups.push(() => db.close(), () => created.drop());
  } else {
    const t = await openTestDatabase();
    db = t.db;
    cleanups.push(() => t.close());
  }
  const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', EVENT_STREAM_POLL_MS: '50', WEBHOOKS: 'false' });
  app = await boot(config, createLogger('silent'), { db, indexer: false, now: () => FIXED_NOW });
  cleanups.unshift(() => app.close());
}, 60_000);
afterAll(async () => {
  for (const c of cleanups) await c().catch(() => {});
});

const TYPES = ['LIST', 'SALE', 'OFFER', 'TRANSFER'];

/** Writes n events in one transaction, as an operator's SQL would (nothing on the bus). */
async function addEvents(sql: SqlQueryable, n: number, first = 0): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `INSERT INTO market_events (type, collection_address, token_id, from_address, price)
     SELECT (ARRAY['LIST','SALE','OFFER','TRANSFER'])[1 + (g % 4)]::"MarketEventType", CASE WHEN g % 3 = 0 THEN $3 ELSE $4 END, g % 7, $3, 1000 + g
     FROM generate_series($1::int, $2::int) g ORDER BY g RETURNING id::text`,
    [first, first + n - 1, C1, C2],
  );
  return rows.map((r) => r.id);
}

/**
 * Two transactions at once whose ids commit out of order (PostgreSQL: the lower id commits
 * last); on PGlite, which runs one transaction at a time, two in a row.
 */
async function writePair(writers: pg.Client[] | null, i: number): Promise<string[]> {
  if (!writers) return [...(await addEvents(db.sql, 1, i)), ...(await addEvents(db.sql, 1, i + 1))];
  const [a, b] = writers as [pg.Client, pg.Client];
  await a.query('BEGIN');
  await b.query('BEGIN');
  const insert = (c: pg.Client, g: number) =>
    c.query<{ id: string }>(
      `INSERT INTO market_events (type, collection_address, token_id, from_address, price) VALUES ($1::"MarketEventType", $2, $3::numeric, $4, $5::numeric) RETURNING id::text`,
      [TYPES[g % 4], g % 3 === 0 ? C1 : C2, g % 7, C1, 1000 + g],
    );
  const lower = (await insert(a, i)).rows[0]!.id;
  const higher = (await insert(b, i + 1)).rows[0]!.id;
  await b.query('COMMIT');
  await a.query('COMMIT');
  return [lower, higher];
}

/** Reads a stream into `ids`; `gate` (when set) holds the reader back. */
function collect(stream: AsyncIterable<MarketEventRow>) {
  const ids: string[] = [];
  const state = { gate: null as Promise<void> | null, ended: false };
  const it = stream[Symbol.asyncIterator]();
  const running = (async () => {
    for (;;) {
      if (state.gate) await state.gate;
      const r = await it.next();
      if (r.done) break;
      ids.push(r.value.id);
    }
    state.ended = true;
  })();
  return { ids, state, close: async () => (await it.return?.(), await running) };
}

/** What a stream from `after` must deliver: the SQL reader over the whole log, in reading order. */
async function expected(after: string, filter: MarketEventStreamFilter): Promise<string[]> {
  const out: string[] = [];
  let at = after === '0' ? LOG_START : await positionAfterEvent(db.sql, after);
  for (;;) {
    const r = await readMarketEventsAfter(db.sql, at, filter, 500);
    out.push(...r.events.map((e) => e.id));
    at = r.next;
    if (!r.more) return out;
  }
}

async function until(ok: () => boolean, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe(`the shared tail of the event stream (${backendName})`, () => {
  it('streams that replay while events commit join the tail with no gap and no duplicate at the seam', async () => {
    const writers = url ? [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })] : null;
    if (writers) for (const w of writers) await w.connect();
    try {
      const initial: string[] = [];
      for (let k = 0; k < 6; k++) initial.push(...(await addEvents(db.sql, 100, k * 100)));
      await untilBelowHorizon(db, initial.at(-1)!);
      const streams = app.services.eventStream;
      const before = streams.tailStats();
      // a live stream keeps the tail moving while the others replay
      const live = { after: initial.at(-1)!, filter: {} as MarketEventStreamFilter };
      const opened = [{ ...live, c: collect(await streams.open({ after: live.after, filter: live.filter })) }];
      let writing = true;
      const written: string[] = [];
      const writer = (async () => {
        for (let i = 0; i < 120; i++) {
          written.push(...(await writePair(writers, 1000 + 2 * i)));
          await new Promise((r) => setTimeout(r, 5));
        }
        writing = false;
      })();
      const filters: MarketEventStreamFilter[] = [{}, { collection: C1 }, { types: ['SALE', 'OFFER'] }, { collection: C2, minPrice: '1200' }];
      for (let i = 0; i < 24; i++) {
        // cursors spread over the replayed part (each stream reads 0 to 6 batches on its own
        // first), and some just written, which can be ahead of where the tail has read to
        const after = i % 3 === 2 && written.length ? written.at(-1)! : i % 6 === 0 ? '0' : initial[(i * 97) % initial.length]!;
        const filter = filters[i % filters.length]!;
        opened.push({ after, filter, c: collect(await streams.open({ after, filter })) });
        await new Promise((r) => setTimeout(r, 15));
      }
      await writer;
      expect(writing).toBe(false);
      await untilBelowHorizon(db, written.reduce((a, b) => (BigInt(a) > BigInt(b) ? a : b)));
      for (const s of opened) {
        const want = await expected(s.after, s.filter);
        await until(() => s.c.ids.length >= want.length, 20_000, `${want.length} events from ${s.after} ${JSON.stringify(s.filter)}`);
        await new Promise((r) => setTimeout(r, 100)); // a duplicate would arrive meanwhile
        expect(s.c.ids, `after ${s.after} ${JSON.stringify(s.filter)}`).toEqual(want);
      }
      // every stream was handed over to the tail, and the writes came in while they were
      const after = streams.tailStats();
      expect(after.attaches - before.attaches).toBeGreaterThanOrEqual(opened.length);
      expect(after.attached).toBe(opened.length);
      for (const s of opened) await s.c.close();
      expect(streams.tailStats().attached).toBe(0);
    } finally {
      if (writers) for (const w of writers) await w.end().catch(() => {});
    }
  });

  it('one tail read serves every caught-up stream: statements do not grow with the subscribers', async () => {
    let logReads = 0;
    const counted = new Proxy(db.sql, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver);
        return (text: string, values?: unknown[]) => {
          if (text.includes('FROM market_events')) logReads++;
          return target.query(text, values);
        };
      },
    });
    const service = createMarketEventStreamService({ ...app.services.deps, db: { ...db, sql: counted } as Database });
    const n = 100;
    const events = 15;
    const streams = await Promise.all(Array.from({ length: n }, () => service.open({ filter: {} }).then(collect)));
    await until(() => service.tailStats().attached === n, 5000, 'every stream attached');
    const readsBefore = logReads;
    const written: string[] = [];
    for (let i = 0; i < events; i++) {
      written.push(...(await addEvents(db.sql, 1, i)));
      await new Promise((r) => setTimeout(r, 30));
    }
    for (const s of streams) await until(() => s.ids.length >= events, 20_000, 'every event on every stream');
    for (const s of streams) expect(s.ids).toEqual(written);
    const reads = logReads - readsBefore;
    // one stream per read would be n * events = 1,500 at least; the tail reads per wake-up or poll
    expect(reads).toBeLessThan(n * events / 10);
    expect(reads).toBeGreaterThan(0);
    await service.drain();
    for (const s of streams) await s.close();
  });

  it('a stream that stops reading is detached, then catches up on its own without losing an event', async () => {
    const streams = app.services.eventStream;
    const detachedBefore = streams.tailStats().detached;
    const slow = collect(await streams.open({ filter: {} }));
    const fast = collect(await streams.open({ filter: {} }));
    await until(() => streams.tailStats().attached >= 2, 5000, 'both streams attached');
    let release!: () => void;
    slow.state.gate = new Promise<void>((r) => (release = r));
    const written = await addEvents(db.sql, QUEUE_LIMIT + 600, 5000);
    await until(() => fast.ids.length >= written.length, 30_000, 'the fast stream to receive everything');
    await until(() => streams.tailStats().detached > detachedBefore, 10_000, 'the slow stream to be detached');
    slow.state.gate = null;
    release();
    await until(() => slow.ids.length >= written.length, 30_000, 'the slow stream to catch up');
    await new Promise((r) => setTimeout(r, 100));
    expect(fast.ids).toEqual(written);
    expect(slow.ids).toEqual(written);
    // it joined the tail again once it had caught up
    await until(() => streams.tailStats().attached === 2, 5000, 'the slow stream to attach again');
    await slow.close();
    await fast.close();
  });

  it('an owner filter on the tail selects events on orders for tokens the owner holds now', async () => {
    await db.sql.query(`INSERT INTO collections (address, owner, type) VALUES ($1, $1, 'ERC721') ON CONFLICT DO NOTHING`, [C1]);
    await db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) VALUES ($1, 3, $2, 1)`, [C1, OWNER]);
    const streams = app.services.eventStream;
    const mine = collect(await streams.open({ filter: { owner: OWNER } }));
    const all = collect(await streams.open({ filter: {} }));
    await until(() => streams.tailStats().attached >= 2, 5000, 'both streams attached');
    const add = async (token: number | null, order: boolean) =>
      (
        await db.sql.query<{ id: string }>(
          `INSERT INTO market_events (type, collection_address, token_id, order_hash, price) VALUES ('OFFER', $1, $2::numeric, $3, 5) RETURNING id::text`,
          [C1, token, order ? '0x' + 'ab'.repeat(32) : null],
        )
      )[0]!.id;
    const held = await add(3, true);
    await add(4, true); // not held
    await add(3, false); // not on an order
    const collectionOffer = await add(null, true);
    await until(() => all.ids.length >= 4, 10_000, 'the unfiltered stream');
    await until(() => mine.ids.length >= 2, 10_000, 'the owner stream');
    await new Promise((r) => setTimeout(r, 100));
    expect(mine.ids).toEqual([held, collectionOffer]);
    await mine.close();
    await all.close();
  });
});
