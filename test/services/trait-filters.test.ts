// The attribute filter of the order book and of the activity ("the cheapest listings with a gold
// background"): each page equals a recount from the fixture's own traits, on the read engine,
// on the resolvers' SQL path and (orders) on the Prisma reference path, which finds the tokens
// first instead of probing each order. Collection-wide rows (collection offers, a collection's
// floor move) never match; a filter without its collection is refused with a clear error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCollections, insertOrderBook, type BookOrder } from '../fixtures/order-book.js';
import { tokenMetadataFixture } from '../fixtures/token-metadata.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import type { OrderQuery } from '../../src/domain/order-query.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const [C0, C1] = fixtureCollections as [string, string];
let app: TestApp;
let book: BookOrder[];
/** collection:tokenId -> trait type -> values, from the documents the fixture stores */
const traits = new Map<string, Map<string, Set<string>>>();

type Condition = { traitType: string; values: string[] };
const carries = (collection: string, tokenId: bigint | string | null, conditions: Condition[]) => {
  if (tokenId === null) return false;
  const own = traits.get(`${collection}:${tokenId}`);
  return conditions.every((c) => c.values.some((v) => own?.get(c.traitType)?.has(v) ?? false));
};

const CASES: Condition[][] = [
  [{ traitType: 'Background', values: ['Blue'] }],
  [{ traitType: 'Background', values: ['Gold', 'Red "quoted"'] }],
  [{ traitType: 'Background', values: ['Blue'] }, { traitType: 'Eyes', values: ['Laser'] }],
  [{ traitType: 'Eyes', values: ['Calm'] }, { traitType: 'Level', values: ['3', '4.5'] }],
  [{ traitType: 'Background', values: ['Red "quoted"', 'Green\\slash'] }],
  [{ traitType: 'Background', values: ['Purple'] }],
];

beforeAll(async () => {
  app = await startTestApp();
  book = await insertOrderBook(app.db, app.config.network, NOW, 90);
  const writes = tokenMetadataFixture(fixtureCollections, ((1n << 200n) + 7n).toString());
  const queue = createMetadataQueue(app.services.deps);
  await queue.store(writes.slice(0, -1), null);
  await queue.store(writes.slice(-1), null);
  // the traits each token shows: its last OK document (a later failed read keeps it)
  for (const w of writes) {
    if (!w.document) continue;
    const byType = new Map<string, Set<string>>();
    for (const a of w.document.attributes) {
      if (!byType.has(a.traitType)) byType.set(a.traitType, new Set());
      byType.get(a.traitType)!.add(a.value);
    }
    traits.set(`${w.collectionAddress}:${w.tokenId}`, byType);
  }
  // a collection-wide event: it names no token, so no trait filter matches it
  await app.db.sql.query(`INSERT INTO market_events (type, collection_address, price) VALUES ('FLOOR_CHANGE', $1, 1)`, [C0]);
});
afterAll(() => app?.close());

const ORDERS = `query($filter: OrderFilterInput, $first: Int) { orders(filter: $filter, sort: PRICE_ASC, first: $first) { edges { node { hash tokenId } } } }`;
const COLLECTION_ORDERS = `query($c: Address!, $filter: OrderFilterInput) { collection(address: $c) { orders(filter: $filter, sort: NEWEST, first: 150) { totalCount edges { node { hash } } } } }`;
const ACTIVITY = `query($filter: ActivityFilterInput) { activity(filter: $filter, first: 150) { totalCount edges { node { eventId type collectionAddress tokenId } } } }`;

describe(`orders and activity by trait (${backendName})`, () => {
  it('orders: every path answers the recount, collection offers never match', async () => {
    for (const collection of [C0, C1]) {
      for (const attributes of CASES) {
        const expected = book.filter((o) => o.collection === collection && carries(collection, o.tokenId, attributes)).map((o) => o.hash).sort();
        const variables = { filter: { collection, attributes }, first: 150 };
        const engine = await answerVia(app, ORDERS, variables, true);
        const resolvers = await answerVia(app, ORDERS, variables, false);
        expect(engine.text).toBe(resolvers.text);
        const got = JSON.parse(engine.text.slice(4)).data.orders.edges.map((e: { node: { hash: string } }) => e.node.hash);
        expect([...got].sort(), JSON.stringify(attributes)).toEqual(expected);
        // the reference path: tokens first, then their orders
        const q: OrderQuery = { filter: { collection, attributes }, sort: 'PRICE_ASC', first: 150 };
        const reference = await app.services.orders.listOrders(q);
        expect(reference.orders.map((o) => o.hash)).toEqual(got);
        // pinned by the parent: the same orders, counted
        const pinned = await answerVia(app, COLLECTION_ORDERS, { c: collection, filter: { attributes } }, true);
        expect(pinned.text).toBe((await answerVia(app, COLLECTION_ORDERS, { c: collection, filter: { attributes } }, false)).text);
        const page = JSON.parse(pinned.text.slice(4)).data.collection.orders;
        expect(page.totalCount).toBe(expected.length);
      }
    }
    // the fixture has matches for most cases: the test cannot pass on empty pages alone
    const matched = CASES.filter((a) => book.some((o) => o.collection === C0 && carries(C0, o.tokenId, a)));
    expect(matched.length).toBeGreaterThanOrEqual(4);
  });

  it('activity: events of tokens carrying the traits, never a collection-wide event', async () => {
    const events = await app.db.sql.query<{ eid: string; collection_address: string; token_id: string | null }>(
      `SELECT id::text AS eid, collection_address, token_id::text FROM market_events WHERE type IN ('LIST', 'OFFER', 'COLLECTION_OFFER', 'SALE', 'TRANSFER', 'MINT', 'CANCEL_LIST', 'CANCEL_OFFER') ORDER BY id DESC LIMIT 150`,
    );
    let nonEmpty = 0;
    for (const attributes of CASES) {
      const expected = events.filter((e) => e.collection_address === C0 && carries(C0, e.token_id, attributes)).map((e) => e.eid);
      const variables = { filter: { collection: C0, attributes, types: ['LIST', 'OFFER', 'COLLECTION_OFFER', 'SALE', 'TRANSFER', 'MINT', 'CANCEL_LIST', 'CANCEL_OFFER', 'FLOOR_CHANGE'] } };
      const engine = await answerVia(app, ACTIVITY, variables, true);
      expect(engine.text).toBe((await answerVia(app, ACTIVITY, variables, false)).text);
      const page = JSON.parse(engine.text.slice(4)).data?.activity;
      expect(page, engine.text).toBeTruthy();
      expect(page.edges.map((e: { node: { eventId: string } }) => e.node.eventId)).toEqual(expected);
      expect(page.totalCount).toBe(expected.length);
      if (expected.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(4);
  });

  it('refuses a trait filter without its collection, and one beyond the limits, with a clear error', async () => {
    const orders = await app.gql(ORDERS, { filter: { attributes: [{ traitType: 'Background', values: ['Gold'] }] } });
    expect(orders.errors?.[0]?.message).toMatch(/trait filter needs its collection/);
    expect(orders.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    const activity = await app.gql(ACTIVITY, { filter: { attributes: [{ traitType: 'Background', values: ['Gold'] }] } });
    expect(activity.errors?.[0]?.message).toMatch(/trait filter needs its collection/);
    const empty = await app.gql(ORDERS, { filter: { collection: C0, attributes: [{ traitType: 'Background', values: [] }] } });
    expect(empty.errors?.[0]?.message).toMatch(/at least one value/);
    const many = await app.gql(ORDERS, { filter: { collection: C0, attributes: Array.from({ length: 21 }, (_, i) => ({ traitType: `t${i}`, values: ['x'] })) } });
    expect(many.errors?.[0]?.message).toMatch(/at most 20 trait conditions/);
    // a maker's orders may be filtered by trait without a collection (the signer bounds them)
    const bySigner = await app.gql(ORDERS, { filter: { signer: book[0]!.signer, attributes: [{ traitType: 'Background', values: ['Gold'] }] } });
    expect(bySigner.errors).toBeUndefined();
  });
});
