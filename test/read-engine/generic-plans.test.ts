// Generic plans on PostgreSQL (PGlite has one session and plans every statement per run): a
// template whose generic plan reads in index order runs on the connections that keep it, with the
// same answers; one whose generic plan would sort or scan what a value selects stays custom.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_POOL_NAME } from '../../src/db/database.js';
import { genericPlansOf, type GenericPlanVerdict } from '../../src/read-engine/generic-plans.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { answerVia } from '../helpers/engine-answer.js';
import { backendName } from '../helpers/test-database.js';

const ACTIVITY = `query A($c: Address!) { activity(first: 20, filter: { collection: $c }) { edges { node { eventId type tokenId } } pageInfo { hasNextPage } } }`;
// decimal digits only: the address is its own checksum form
const collection = (i: number) => `0x${String(i).padStart(40, '0')}`;

describe.skipIf(backendName !== 'postgres')('generic plans', () => {
  let app: TestApp;
  const verdicts: { verdict: GenericPlanVerdict; reason?: string }[] = [];
  /** resolves once there are more than `seen` verdicts (one may come before this is called) */
  const verdictAfter = (seen: number) =>
    new Promise<void>((resolve) => {
      const timer = setInterval(() => verdicts.length > seen && (clearInterval(timer), resolve()), 5);
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
