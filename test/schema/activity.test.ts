// Query.activity over the market event log: every page forward and backward covers the log once,
// newest first; each filter returns what a plain reading of the table says; a reorged event is
// gone; MarketEvent is a Node; bad arguments are typed errors. And the read engine's answer for
// random activity documents is the resolvers' answer, byte for byte, in one statement.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_TYPES } from '../../src/read-engine/read-types.js';
import { fixtureCollections, fixtureWallets, insertOrderBook } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const [C0, C1] = fixtureCollections as [string, string];
const W = fixtureWallets.map((w) => w.address);
let app: TestApp;

interface Ev {
  id: string;
  type: string;
  collection: string;
  token: string | null;
  from: string | null;
  to: string | null;
  at: number;
  retracted: boolean;
}
let log: Ev[];

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 40);
  const sql = app.db.sql;
  // sales, transfers and mints by trigger, at spread times and blocks
  await sql.query(
    `INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash, is_taker_ask, block_number, tx_hash, log_index, timestamp)
     SELECT (ARRAY[$1, $2])[1 + g % 2], g % 5, 1, g::numeric * 1000000000000000, $1, (ARRAY[$3, $4])[1 + g % 2], (ARRAY[$5, $6])[1 + g % 2],
            NULL, false, 100 + g, '0x' || lpad(to_hex(g), 64, '0'), 1, to_timestamp(${NOW} - g * 600)
       FROM generate_series(1, 12) g`,
    [C0, C1, W[0], W[1], W[2], W[3]],
  );
  await sql.query(
    `INSERT INTO token_transfers (collection_address, token_id, from_address, to_address, amount, block_number, tx_hash, log_index, batch_index)
     SELECT (ARRAY[$1, $2])[1 + g % 2], g % 5, CASE WHEN g % 3 = 0 THEN '0x0000000000000000000000000000000000000000' ELSE $3 END, $4, 1, 200 + g,
            '0x' || lpad(to_hex(1000 + g), 64, '0'), 0, 0
       FROM generate_series(1, 10) g`,
    [C0, C1, W[1], W[2]],
  );
  // a reorg undid two transfers
  await sql.query(`INSERT INTO market_events (type, retracts_id, collection_address, block_number)
    SELECT 'RETRACTED', id, collection_address, block_number FROM market_events WHERE block_number IN (205, 206) ORDER BY id DESC`);
  const rows = await sql.query<{ id: string; type: string; collection_address: string; token_id: string | null; from_address: string | null; to_address: string | null; at: string; retracted: boolean }>(
    `SELECT e.id::text, e.type::text, e.collection_address, e.token_id::text, e.from_address, e.to_address, floor(extract(epoch FROM e.created_at))::text AS at,
            EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = e.id) AS retracted
       FROM market_events e ORDER BY e.id DESC`,
  );
  log = rows.map((r) => ({ id: r.id, type: r.type, collection: r.collection_address, token: r.token_id, from: r.from_address, to: r.to_address, at: Number(r.at), retracted: r.retracted }));
});
afterAll(() => app?.close());

const visible = (types?: string[]) => log.filter((e) => !e.retracted && (types ? types.includes(e.type) : e.type !== 'RETRACTED'));

async function ids(args: string): Promise<{ ids: string[]; count: number; info: Record<string, unknown> }> {
  const r = await app.gql(`{ activity(${args}) { totalCount edges { cursor node { eventId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);
  expect(r.errors, args).toBeUndefined();
  const c = (r.data as any).activity;
  return { ids: c.edges.map((e: { node: { eventId: string } }) => e.node.eventId), count: c.totalCount, info: c.pageInfo };
}

describe(`Query.activity (${backendName})`, () => {
  it('has every kind of event in the fixture', () => {
    expect(new Set(log.map((e) => e.type))).toEqual(new Set(['LIST', 'OFFER', 'COLLECTION_OFFER', 'SALE', 'TRANSFER', 'MINT', 'RETRACTED']));
  });

  it('pages forward with first/after and back with last/before over the same log, newest first', async () => {
    const all = visible().map((e) => e.id);
    const forward: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await ids(`first: 7${after ? `, after: "${after}"` : ''}`);
      expect(page.count).toBe(all.length);
      forward.push(...page.ids);
      expect(page.info.hasPreviousPage).toBe(after !== null);
      if (!page.info.hasNextPage) break;
      after = page.info.endCursor as string;
    }
    expect(forward).toEqual(all);
    const backward: string[] = [];
    let before: string | null = null;
    for (;;) {
      const page = await ids(`last: 9${before ? `, before: "${before}"` : ''}`);
      backward.unshift(...page.ids);
      expect(page.info.hasNextPage).toBe(before !== null);
      if (!page.info.hasPreviousPage) break;
      before = page.info.startCursor as string;
    }
    expect(backward).toEqual(all);
    // a window between two cursors
    const mid = await ids(`first: 5, after: "${all[3]}", before: "${all[12]}"`);
    expect(mid.ids).toEqual(all.slice(4, 9));
  });

  it('filters by collection, token, account, sender, receiver, types and time, leaving reorged events out', async () => {
    const cases: [string, (e: Ev) => boolean][] = [
      [`collection: "${C1}"`, (e) => e.collection === C1],
      [`collection: "${C0}", tokenId: "3"`, (e) => e.collection === C0 && e.token === '3'],
      [`account: "${W[2]}"`, (e) => e.from === W[2] || e.to === W[2]],
      [`from: "${W[1]}"`, (e) => e.from === W[1]],
      [`to: "${W[2]}", types: [TRANSFER, MINT]`, (e) => e.to === W[2] && ['TRANSFER', 'MINT'].includes(e.type)],
      [`types: [SALE], since: ${NOW - 3000}, until: ${NOW - 1200}`, (e) => e.type === 'SALE' && e.at >= NOW - 3000 && e.at < NOW - 1200],
    ];
    for (const [filter, keep] of cases) {
      const want = visible().filter(keep).map((e) => e.id);
      expect(want.length, filter).toBeGreaterThan(0);
      const page = await ids(`first: 150, filter: { ${filter} }`);
      expect(page.ids, filter).toEqual(want);
      expect(page.count, filter).toBe(want.length);
    }
    expect((await ids(`first: 150, filter: { types: [TRANSFER] }`)).ids).toHaveLength(visible(['TRANSFER']).length);
    const retractions = await ids(`first: 150, filter: { types: [RETRACTED] }`);
    expect(retractions.ids).toHaveLength(2);
  });

  it('renders an event with its order, collection and Node id, and refetches it by that id', async () => {
    const r = await app.gql(`{ activity(first: 1, filter: { types: [LIST] }) { edges { node { id eventId type from to price priceEth tokenId blockNumber txHash logIndex createdAt order { hash status signer } collection { address } } } } }`);
    const node = (r.data as any).activity.edges[0].node;
    expect(node).toMatchObject({ type: 'LIST', to: null, blockNumber: null, txHash: null, logIndex: null });
    expect(node.order.signer).toBe(node.from);
    expect(Buffer.from(node.id, 'base64').toString()).toBe(`MarketEvent:${node.eventId}`);
    const again = await app.gql(`query($id: ID!) { node(id: $id) { ... on MarketEvent { eventId type } } }`, { id: node.id });
    expect((again.data as any).node).toEqual({ eventId: node.eventId, type: 'LIST' });
  });

  it('refuses bad arguments with typed errors', async () => {
    const code = async (args: string) => (await app.gql(`{ activity(${args}) { totalCount } }`)).errors?.[0]?.extensions?.code;
    expect(await code(`first: 151`)).toBe('BAD_REQUEST');
    expect(await code(`first: 2, last: 2`)).toBe('BAD_REQUEST');
    expect(await code(`after: "abc"`)).toBe('INVALID_CURSOR');
    expect(await code(`filter: { tokenId: "1" }`)).toBe('BAD_REQUEST');
    expect(await code(`filter: { types: [] }`)).toBe('BAD_REQUEST');
  });
});

// ---- the read engine against the resolvers ---------------------------------------------------

const answer = (query: string, readEngine: boolean) => answerVia(app, query, {}, readEngine);

const LEAVES = Object.entries(READ_TYPES.MarketEvent.fields).filter(([, d]) => d.kind === 'leaf').map(([n]) => n);
/** A random activity connection: its arguments and selection, with the filters a parent's pin leaves. */
const activityField = (pinned: 'none' | 'collection' | 'token') =>
  fc
    .record({
      n: fc.integer({ min: 1, max: 9 }),
      back: fc.boolean(),
      after: fc.option(fc.nat(70), { nil: undefined }),
      before: fc.option(fc.nat(70), { nil: undefined }),
      collection: fc.option(fc.constantFrom(C0, C1), { nil: undefined }),
      token: fc.option(fc.constantFrom('1', '3'), { nil: undefined }),
      account: fc.option(fc.constantFrom(...W), { nil: undefined }),
      types: fc.option(fc.subarray(['LIST', 'OFFER', 'COLLECTION_OFFER', 'SALE', 'TRANSFER', 'MINT', 'RETRACTED'], { minLength: 1, maxLength: 3 }), { nil: undefined }),
      since: fc.option(fc.constantFrom(NOW - 4000, NOW - 60), { nil: undefined }),
      leaves: fc.subarray(LEAVES, { minLength: 1, maxLength: 8 }),
      order: fc.boolean(),
      collectionSel: fc.boolean(),
      count: fc.boolean(),
      info: fc.option(fc.subarray(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'], { minLength: 1 }), { nil: undefined }),
    })
    .map((a) => {
      const filter = [
        a.collection && pinned === 'none' ? `collection: "${a.collection}"` : '',
        (a.collection || pinned === 'collection') && a.token && pinned !== 'token' ? `tokenId: "${a.token}"` : '',
        a.account ? `account: "${a.account}"` : '',
        a.types ? `types: [${a.types.join(', ')}]` : '',
        a.since ? `since: ${a.since}` : '',
      ].filter(Boolean);
      const cursor = (i: number | undefined) => (i === undefined ? undefined : (log[i]?.id ?? '999999'));
      const args = [
        `${a.back ? 'last' : 'first'}: ${a.n}`,
        cursor(a.after) ? `after: "${cursor(a.after)}"` : '',
        cursor(a.before) ? `before: "${cursor(a.before)}"` : '',
        filter.length ? `filter: { ${filter.join(', ')} }` : '',
      ].filter(Boolean);
      const node = [...a.leaves, a.order ? 'order { hash status price }' : '', a.collectionSel ? 'collection { address name }' : ''].filter(Boolean).join(' ');
      return `activity(${args.join(', ')}) { ${a.count ? 'totalCount ' : ''}edges { cursor node { ${node} } } ${a.info ? `pageInfo { ${a.info.join(' ')} }` : ''} }`;
    });
const activityDoc = fc.oneof(
  activityField('none').map((f) => `{ ${f} }`),
  fc.tuple(fc.constantFrom(C0, C1), activityField('collection')).map(([c, f]) => `{ collection(address: "${c}") { address ${f} } }`),
  fc.tuple(fc.constantFrom(C0, C1), fc.constantFrom('1', '3', '4'), activityField('token')).map(([c, id, f]) => `{ token(collection: "${c}", tokenId: "${id}") { tokenId ${f} } }`),
);

describe(`Collection.activity and Token.activity (${backendName})`, () => {
  it('are Query.activity with the parent pinned, paged the same way', async () => {
    const nested = async (doc: string, pick: (d: any) => any) => {
      const r = await app.gql(doc);
      expect(r.errors, doc).toBeUndefined();
      const c = pick(r.data);
      return { ids: c.edges.map((e: { node: { eventId: string } }) => e.node.eventId), count: c.totalCount, info: c.pageInfo };
    };
    const sel = `totalCount edges { node { eventId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;
    for (const args of ['first: 150', 'first: 3', 'last: 4', 'first: 150, filter: { types: [SALE, TRANSFER] }', 'first: 150, filter: { tokenId: "3" }']) {
      const want = await ids(args.replace('filter: {', `filter: { collection: "${C1}", `).replace(/^(first|last): (\d+)$/, `$1: $2, filter: { collection: "${C1}" }`));
      const got = await nested(`{ collection(address: "${C1}") { activity(${args}) { ${sel} } } }`, (d) => d.collection.activity);
      expect(got, args).toEqual(want);
      expect(want.ids.length, args).toBeGreaterThan(0);
    }
    const want = visible().filter((e) => e.collection === C0 && e.token === '3').map((e) => e.id);
    expect(want.length).toBeGreaterThan(1);
    const first = await nested(`{ token(collection: "${C0}", tokenId: "3") { activity(first: 1) { ${sel} } } }`, (d) => d.token.activity);
    expect(first).toMatchObject({ ids: want.slice(0, 1), count: want.length, info: { hasNextPage: true, hasPreviousPage: false } });
    const rest = await nested(`{ token(collection: "${C0}", tokenId: "3") { activity(first: 150, after: "${first.info.endCursor}") { ${sel} } } }`, (d) => d.token.activity);
    expect(rest.ids).toEqual(want.slice(1));
    // an empty page
    const none = await nested(`{ token(collection: "${C0}", tokenId: "3") { activity(first: 5, filter: { types: [RETRACTED] }) { ${sel} } } }`, (d) => d.token.activity);
    expect(none).toEqual({ ids: [], count: 0, info: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
  });

  it('refuses bad arguments with the same typed errors', async () => {
    const code = async (doc: string) => (await app.gql(doc)).errors?.[0]?.extensions?.code;
    expect(await code(`{ collection(address: "${C0}") { activity(first: 151) { totalCount } } }`)).toBe('BAD_REQUEST');
    expect(await code(`{ token(collection: "${C0}", tokenId: "3") { activity(after: "x") { totalCount } } }`)).toBe('INVALID_CURSOR');
  });
});

describe(`Query.activity, Collection.activity and Token.activity by the read engine (${backendName})`, () => {
  it('answers random documents as the resolvers do, in one statement', async () => {
    await fc.assert(
      fc.asyncProperty(activityDoc, async (query) => {
        const engine = await answer(query, true);
        const resolvers = await answer(query, false);
        expect(engine.text, query).toBe(resolvers.text);
        // one statement of the engine's (it builds JSON text); the service's timers (floor
        // catch-up, deliveries) may log theirs meanwhile
        expect(engine.statements.filter((s) => s.includes(`'{"`)), query).toHaveLength(1);
      }),
      { numRuns: Number(process.env.READ_ENGINE_RUNS ?? 80) },
    );
  }, 300_000);
});
