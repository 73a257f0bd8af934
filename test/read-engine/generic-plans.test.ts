// Generic plans on PostgreSQL (PGlite has one session and plans every statement per run): a
// template whose generic plan reads in index order runs on the connections that keep it, with the
// same answers; one whose generic plan would sort or scan what a value selects stays custom.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_POOL_NAME } from '../../src/db/database.js';
import { createGenericPlans, genericPlansOf, type GenericPlanVerdict } from '../../src/read-engine/generic-plans.js';
import type { StatementTemplate } from '../../src/read-engine/statement-template.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { answerVia } from '../helpers/engine-answer.js';
import { backendName } from '../helpers/test-database.js';

const ACTIVITY = `query A($c: Address!) { activity(first: 20, filter: { collection: $c }) { edges { node { eventId type tokenId } } pageInfo { hasNextPage } } }`;
// decimal digits only: the address is its own checksum form
const collection = (i: number) => `0x${String(i).padStart(40, '0')}`;

/** a template of the book page: $1 the client's collection, $2 the clock */
const template: StatementTemplate<unknown> = { text: 'SELECT ... $1 ... $2', bindings: [{ input: 'collection', text: false }, { clock: () => 0 }], payload: null };
const plan = (scan: object) => [{ Plan: { 'Node Type': 'Limit', Plans: [scan] } }];
const ordered = plan({ 'Node Type': 'Index Scan', 'Relation Name': 'orders', 'Index Cond': '((collection_address)::text = $1)', Filter: '(end_time >= $2)' });
const filtered = plan({ 'Node Type': 'Index Scan', 'Relation Name': 'orders', 'Index Cond': '(status = $2)', Filter: '((collection_address)::text = $1)' });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('generic plan verdicts', () => {
  function setup(plans: (() => Promise<unknown>)[], enabled = true) {
    const clock = { now: 0 };
    const asked: string[] = [];
    const verdicts: [GenericPlanVerdict, string | undefined][] = [];
    const runner = {
      genericPlan: async (text: string, n: number) => {
        asked.push(`${text} ${n}`);
        return plans.shift()!();
      },
    };
    const generic = createGenericPlans({ enabled, recheckMs: 60_000, clock: () => clock.now });
    generic.onVerdict((v, reason) => verdicts.push([v, reason]));
    return { clock, asked, verdicts, runner, generic };
  }

  it('runs custom until PostgreSQL answers, then as the verdict says; asks again once stale', async () => {
    const t = setup([async () => ordered, async () => filtered]);
    expect(t.generic.generic(template, t.runner)).toBe(false);
    await settle();
    expect(t.asked).toEqual(['SELECT ... $1 ... $2 2']);
    expect(t.generic.generic(template, t.runner)).toBe(true);
    t.clock.now = 59_999;
    expect(t.generic.generic(template, t.runner)).toBe(true);
    expect(t.asked).toHaveLength(1);
    // a minute on, new statistics made the plan filter the client's collection: back to custom
    t.clock.now = 60_000;
    expect(t.generic.generic(template, t.runner)).toBe(true);
    await settle();
    expect(t.generic.generic(template, t.runner)).toBe(false);
    expect(t.verdicts).toEqual([
      ['generic', undefined],
      ['custom', "Filter on orders on $1, a client's value: ((collection_address)::text = $1)"],
    ]);
  });

  it('stays custom when the database cannot say, and asks again later', async () => {
    const t = setup([
      async () => {
        throw new Error('connection refused');
      },
      async () => ordered,
    ]);
    t.generic.generic(template, t.runner);
    await settle();
    expect(t.generic.generic(template, t.runner)).toBe(false);
    expect(t.verdicts).toEqual([['failed', 'connection refused']]);
    t.clock.now = 60_000;
    t.generic.generic(template, t.runner);
    await settle();
    expect(t.generic.generic(template, t.runner)).toBe(true);
  });

  it('never asks when turned off or where the database has no generic plans (PGlite)', async () => {
    const off = setup([async () => ordered], false);
    expect(off.generic.generic(template, off.runner)).toBe(false);
    const embedded = setup([async () => ordered]);
    expect(embedded.generic.generic(template, {})).toBe(false);
    await settle();
    expect([...off.asked, ...embedded.asked]).toEqual([]);
  });
});

describe.skipIf(backendName !== 'postgres')('generic plans', () => {
  let app: TestApp;
  const verdicts: { verdict: GenericPlanVerdict; reason?: string }[] = [];
  /**
   * resolves once there are more than `seen` verdicts (one may come before this is called); a
   * template that is never asked (it got no prepared name) fails here, not at the test's timeout
   */
  const verdictAfter = (seen: number) =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const timer = setInterval(() => {
        if (verdicts.length > seen) clearInterval(timer), resolve();
        else if (Date.now() - started > 10_000) clearInterval(timer), reject(new Error('no verdict in 10 s: the template was never asked'));
      }, 5);
    });

  beforeAll(async () => {
    app = await startTestApp();
    genericPlansOf(app.services.deps).onVerdict((verdict, reason) => verdicts.push({ verdict, reason }));
    // a log large enough that PostgreSQL reads it through its indexes: 30,000 events over 300 collections
    await app.db.sql.query(
      `INSERT INTO market_events (type, collection_address, token_id, created_at)
       SELECT 'MINT', '0x' || lpad((g % 300)::text, 40, '0'), g, '2026-01-01Z' FROM generate_series(1, 30000) g`,
    );
    await app.db.sql.exec('ANALYZE market_events');
    // and 30,000 sales over the same 300 collections, three to a timestamp (the id breaks the ties)
    await app.db.sql.query(
      `INSERT INTO collections (address, owner, type) SELECT '0x' || lpad(g::text, 40, '0'), '0x' || lpad('1', 40, '0'), 'ERC721' FROM generate_series(0, 299) g`,
    );
    await app.db.sql.query(
      `INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, is_taker_ask, block_number, tx_hash, log_index, timestamp)
       SELECT '0x' || lpad((g % 300)::text, 40, '0'), g, 1, 1000 + g, '0x' || lpad('2', 40, '0'), '0x' || lpad('3', 40, '0'), '0x' || lpad('4', 40, '0'),
              g % 2 = 0, g, '0x' || lpad(to_hex(g), 64, '0'), 0, '2026-01-01Z'::timestamptz + (g / 900) * interval '1 second'
       FROM generate_series(1, 30000) g`,
    );
    await app.db.sql.exec('ANALYZE sales');
  });
  afterAll(() => app?.close());

  it('runs a page read in index order on a generic plan, with the answers it gave before', async () => {
    const before: string[] = [];
    const seen = verdicts.length;
    // the shape's first request is planned, its second makes the template, its third asks for the verdict
    for (const i of [1, 2, 3]) before.push((await answerVia(app, ACTIVITY, { c: collection(i) }, true)).text);
    await verdictAfter(seen);
    expect(verdicts.at(-1)).toEqual({ verdict: 'generic', reason: undefined });

    for (const i of [1, 2, 3, 4]) {
      const engine = await answerVia(app, ACTIVITY, { c: collection(i) }, true);
      const resolvers = await answerVia(app, ACTIVITY, { c: collection(i) }, false);
      expect(engine.text).toBe(resolvers.text);
      if (i <= 3) expect(engine.text).toBe(before[i - 1]);
      expect(engine.statements).toHaveLength(1);
    }
    expect(JSON.parse((await answerVia(app, ACTIVITY, { c: collection(4) }, true)).text.slice(4)).data.activity.edges).toHaveLength(20);

    // the statement ran on the generic pool's sessions (the verdict's own EXPLAIN ran there too)
    const template = (await answerVia(app, ACTIVITY, { c: collection(5) }, true)).statements[0]!;
    const sessions = await app.db.sql.query<{ query: string }>(`SELECT query FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [GENERIC_POOL_NAME]);
    expect(sessions.some((s) => template.startsWith(s.query))).toBe(true);
  });

  it("runs a collection's sales page on a generic plan along the index that gives its order", async () => {
    // newest first, the id breaking ties: sales(collection_address, timestamp, id) read backwards
    const SALES = `query S($c: Address!) { sales(collection: $c, first: 20) { edges { node { txHash price timestamp } } pageInfo { hasNextPage } } }`;
    const seen = verdicts.length;
    for (const i of [1, 2, 3]) await answerVia(app, SALES, { c: collection(i) }, true);
    await verdictAfter(seen);
    expect(verdicts.at(-1)).toEqual({ verdict: 'generic', reason: undefined });
    for (const i of [1, 2, 3, 4]) {
      const engine = await answerVia(app, SALES, { c: collection(i) }, true);
      expect(engine.text).toBe((await answerVia(app, SALES, { c: collection(i) }, false)).text);
      expect(JSON.parse(engine.text.slice(4)).data.sales.edges).toHaveLength(20);
    }
  });

  it('keeps a shape custom when its generic plan would scan or sort what a value selects', async () => {
    // a collection's events to or from an account: the account is in two columns, each with its own
    // index, so a generic plan combines bitmaps, or reads the collection's index and filters the
    // account (a hot collection read whole for one account's events): custom either way
    const query = `query A($c: Address!, $t: Address!) { activity(first: 20, filter: { collection: $c, account: $t }) { edges { node { eventId } } } }`;
    const seen = verdicts.length;
    for (const i of [1, 2, 3]) await answerVia(app, query, { c: collection(i), t: collection(i + 1) }, true);
    await verdictAfter(seen);
    const last = verdicts.at(-1)!;
    expect(last.verdict).toBe('custom');
    expect(last.reason).toMatch(/^(BitmapOr|Bitmap Heap Scan|Seq Scan|Sort|Filter)/);
  });

  it('still prepares and asks for a template made after more one-off statements than there are names', async () => {
    // 300 documents, each planned once and never sent again, each a text of its own (`first` is
    // the statement's LIMIT): none may take one of the app's 256 prepared names
    // (src/db/prepared-names.ts), or the templates made after them would run unnamed and custom
    const texts = new Set<string>();
    for (const fields of ['eventId', 'eventId type']) {
      for (let first = 1; first <= 150; first++) {
        const once = `query A($c: Address!) { activity(first: ${first}, filter: { collection: $c }) { edges { node { ${fields} } } } }`;
        const { text, statements } = await answerVia(app, once, { c: collection(1) }, true);
        expect(text).toMatch(/^200 /);
        statements.forEach((s) => texts.add(s));
      }
    }
    expect(texts.size).toBe(300);
    // a shape whose template has not been made yet in this process
    const fresh = ACTIVITY.replace('eventId type tokenId', 'tokenId type eventId');
    const seen = verdicts.length;
    for (const i of [1, 2, 3]) await answerVia(app, fresh, { c: collection(i) }, true);
    await verdictAfter(seen);
    expect(verdicts.at(-1)).toEqual({ verdict: 'generic', reason: undefined });
  });

  it('plans every statement per run when READ_GENERIC_PLANS is false', async () => {
    const off = await startTestApp({ READ_GENERIC_PLANS: 'false' });
    try {
      const seen: GenericPlanVerdict[] = [];
      genericPlansOf(off.services.deps).onVerdict((v) => seen.push(v));
      const pool = off.db.poolStats!().max;
      for (const i of [1, 2, 3, 4]) await answerVia(off, ACTIVITY, { c: collection(i) }, true);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual([]);
      // no second pool was opened
      expect(off.db.poolStats!().max).toBe(pool);
    } finally {
      await off.close();
    }
  });
});
