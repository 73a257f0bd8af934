// The stream filter in memory (what the shared tail applies per stream) selects exactly what the
// same filter selects in SQL (what a catching-up stream and the webhook sender read), over a log
// with every field varied: RETRACTED rows of each type, events without a price or a token, and
// owners who hold some of the tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_EVENT_TYPES, type MarketEventType } from '../../src/domain/activity-query.js';
import type { MarketEventStreamFilter } from '../../src/domain/market-event-stream.js';
import { matchesStreamFilter } from '../../src/services/market-event-filter.js';
import { eventsHeldByOwners, LOG_START, readMarketEventsAfter, type LogEvent } from '../../src/services/market-event-log.js';
import { untilBelowHorizon } from '../helpers/event-log.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { prng } from '../../src/demo/prng.js';

const addr = (tag: string) => '0x' + tag.repeat(20);
const COLLECTIONS = [addr('c1'), addr('c2'), addr('c3')];
const ACCOUNTS = [addr('a1'), addr('a2'), addr('a3'), addr('a4')];
const TYPES = MARKET_EVENT_TYPES.filter((t) => t !== 'RETRACTED');

/** A small seeded generator (the demo's), so a failure names a reproducible case. */
function seeded(seed: number) {
  const r = prng(seed);
  return { ...r, maybe: (p: number) => r.next() < p };
}

async function readAll(t: TestDatabase, filter: MarketEventStreamFilter, retractedTypes = false): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  let at = LOG_START;
  for (;;) {
    const r = await readMarketEventsAfter(t.db.sql, at, filter, 50, { retractedTypes });
    out.push(...r.events);
    at = r.next;
    if (!r.more) return out;
  }
}

describe(`the stream filter in memory and in SQL (${backendName})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
  });
  afterAll(() => t?.close());

  it('select the same events for 300 random filters', async () => {
    const r = seeded(7);
    const ids: { id: string; type: string; retracted?: boolean }[] = [];
    for (let i = 0; i < 160; i++) {
      // a reorg retracts an event once
      const open = ids.filter((x) => x.type !== 'RETRACTED' && !x.retracted);
      const target = open.length > 0 && r.maybe(0.15) ? r.pick(open) : null;
      const retract = target !== null;
      if (target) target.retracted = true;
      const type = retract ? 'RETRACTED' : r.pick(TYPES);
      const [row] = await t.db.sql.query<{ id: string }>(
        `INSERT INTO market_events (type, collection_address, token_id, order_hash, from_address, to_address, price, retracts_id)
         VALUES ($1::"MarketEventType", $2, $3::numeric, $4, $5, $6, $7::numeric, $8::bigint) RETURNING id::text`,
        [
          type,
          r.pick(COLLECTIONS),
          r.maybe(0.2) ? null : String(Math.floor(r.next() * 5)),
          r.maybe(0.5) ? '0x' + String(i).padStart(64, '0') : null,
          r.maybe(0.2) ? null : r.pick(ACCOUNTS),
          r.maybe(0.3) ? null : r.pick(ACCOUNTS),
          r.maybe(0.25) ? null : String(Math.floor(r.next() * 2000)),
          target?.id ?? null,
        ],
      );
      ids.push({ id: row!.id, type });
    }
    await untilBelowHorizon(t.db, ids.at(-1)!.id);
    // owners hold some tokens of some collections
    for (const c of COLLECTIONS) await t.db.sql.query(`INSERT INTO collections (address, owner, type) VALUES ($1, $1, 'ERC721')`, [c]);
    for (const owner of ACCOUNTS.slice(0, 3)) {
      for (let k = 0; k < 4; k++) {
        await t.db.sql.query(
          `INSERT INTO token_balances (collection_address, token_id, owner, balance) VALUES ($1, $2::numeric, $3, $4)
           ON CONFLICT DO NOTHING`,
          [r.pick(COLLECTIONS), String(Math.floor(r.next() * 5)), owner, r.maybe(0.2) ? 0 : 1],
        );
      }
    }
    const everything = await readAll(t, {}, true);
    expect(everything).toHaveLength(160);
    expect(everything.some((e) => e.type === 'RETRACTED' && e.retractedType)).toBe(true);
    const pairs = await eventsHeldByOwners(
      t.db.sql,
      everything.map((e) => e.id),
      ACCOUNTS,
    );
    const held = new Map<string, Set<string>>();
    for (const p of pairs) held.set(p.id, (held.get(p.id) ?? new Set()).add(p.owner));
    expect(pairs.length).toBeGreaterThan(0);

    let nonEmpty = 0;
    for (let i = 0; i < 300; i++) {
      const f: MarketEventStreamFilter = {};
      if (r.maybe(0.4)) f.collection = r.pick(COLLECTIONS);
      if (f.collection && r.maybe(0.4)) f.tokenId = String(Math.floor(r.next() * 5));
      if (r.maybe(0.4)) {
        const n = 1 + Math.floor(r.next() * 3);
        f.types = [...new Set(Array.from({ length: n }, () => r.pick(MARKET_EVENT_TYPES as readonly MarketEventType[])))];
      }
      if (r.maybe(0.3)) f.account = r.pick(ACCOUNTS);
      if (r.maybe(0.3)) f.minPrice = String(Math.floor(r.next() * 1500));
      if (r.maybe(0.3)) f.maxPrice = String(Math.floor(r.next() * 2000) + Number(f.minPrice ?? 0));
      if (r.maybe(0.25)) f.owner = r.pick(ACCOUNTS);
      const inSql = (await readAll(t, f)).map((e) => e.id);
      const inMemory = everything.filter((e) => matchesStreamFilter(f, e, held)).map((e) => e.id);
      expect(inMemory, JSON.stringify(f)).toEqual(inSql);
      if (inSql.length) nonEmpty++;
    }
    // the filters were not all empty-handed (the comparison means something)
    expect(nonEmpty).toBeGreaterThan(100);
  });
});
