// SQL statement budget of the hot read queries, counted with the database's onQuery
// hook (every statement sent through Prisma or the SQL runner): the nested query at most 2, a
// page-shaped query (collection + stats + orders + listing rewards) at most 3, whatever the
// page size, with or without the connection's totalCount (its COUNT travels in the page's
// statement batch); and the order statement reads only the columns the query needs. The peer
// bench's token metadata shapes (bench/peer-shapes.ts: a grid filtered by two traits, a trait
// panel, a token page with its traits) are one statement each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHAPES } from '../../bench/peer-shapes.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { createTokenRarity } from '../../src/services/token-rarity.js';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { tokenMetadataFixture } from '../fixtures/token-metadata.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
let app: TestApp;

const NESTED = `query($c: Address!, $n: Int!) {
  orders(first: $n, sort: PRICE_ASC, filter: { collection: $c, isOrderAsk: true, status: [VALID] }) {
    edges { node { hash tokenId price endTime status collection { name symbol type isVerified } } }
  }
}`;

const PAGE = `query($c: Address!, $n: Int!) {
  collection(address: $c) {
    address name symbol
    stats { floorPrice volume24h countAll marketCap }
    orders(first: $n, sort: PRICE_ASC, filter: { isOrderAsk: true }) {
      edges { node { hash price status collection { name } } }
      pageInfo { hasNextPage endCursor }
    }
  }
  listingRewards { points floorGlobal collection { address name stats { floorPrice } } }
}`;

async function statementsOf(query: string, variables: Record<string, unknown>) {
  const log = app.testDb.statements;
  log.length = 0;
  const res = await app.gql(query, variables);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return { data: res.data as any, statements: [...log] };
}

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW);
  // listing rewards need a verified collection with fresh market data
  await app.db.sql.query('UPDATE collections SET is_verified = true');
  await app.db.sql.query(
    `INSERT INTO global_market_data (collection_address, volume_24h_global, floor_global, observed_at)
     SELECT address, 1000, 5, $1::timestamptz FROM collections`,
    [FIXED_NOW.toISOString()],
  );
  await createMetadataQueue(app.services.deps).store(tokenMetadataFixture(fixtureCollections, ((1n << 200n) + 7n).toString()), null);
  await createTokenRarity(app.services.deps).rankNow(fixtureCollections[0]!);
});
afterAll(() => app?.close());

describe(`SQL statement budget (${backendName})`, () => {
  it('answers the nested query in at most 2 statements at any page size', async () => {
    for (const n of [1, 20, 150]) {
      const { data, statements } = await statementsOf(NESTED, { c: fixtureCollections[0], n });
      expect(data.orders.edges.length).toBeGreaterThan(0);
      expect(data.orders.edges[0].node.collection.name).toBe('Fixture 0');
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    }
  });

  it('answers the collection page (collection + stats + orders + rewards) in at most 3 statements at any page size', async () => {
    for (const n of [1, 20, 150]) {
      const { data, statements } = await statementsOf(PAGE, { c: fixtureCollections[0], n });
      expect(data.collection.stats.countAll).toMatch(/^\d+$/);
      expect(data.collection.orders.edges.length).toBeGreaterThan(0);
      expect(data.listingRewards.length).toBe(2);
      expect(data.listingRewards[0].collection.stats.floorPrice === null || /^\d+$/.test(data.listingRewards[0].collection.stats.floorPrice)).toBe(true);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
    }
  });

  it('totalCount is exact (the filter of the page, whatever the cursor) and costs no extra statement', async () => {
    const PAGED = `query($c: Address!, $n: Int!, $after: String, $s: [OrderStatus!]) {
      collection(address: $c) {
        name stats { floorPrice }
        orders(first: $n, after: $after, sort: PRICE_ASC, filter: { status: $s }) {
          totalCount edges { node { hash price } } pageInfo { hasNextPage endCursor }
        }
      }
    }`;
    for (const s of [null, ['VALID'], ['EXPIRED', 'CANCELLED']]) {
      let after: string | null = null;
      let seen = 0;
      const totals = new Set<number>();
      for (;;) {
        const { data, statements } = await statementsOf(PAGED, { c: fixtureCollections[0], n: 7, after, s });
        expect(statements.length, statements.map((s) => s.slice(0, 200)).join('\n---\n')).toBeLessThanOrEqual(2);
        const page = data.collection.orders;
        totals.add(page.totalCount);
        seen += page.edges.length;
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect([...totals], String(s)).toEqual([seen]);
      expect(seen, String(s)).toBeGreaterThan(0);
    }
    // the page-shaped query with totalCount stays within its budget of 3
    const withCount = PAGE.replace('orders(first: $n, sort: PRICE_ASC, filter: { isOrderAsk: true }) {', 'orders(first: $n, sort: PRICE_ASC, filter: { isOrderAsk: true }) { totalCount');
    for (const n of [1, 150]) {
      const { data, statements } = await statementsOf(withCount, { c: fixtureCollections[0], n });
      expect(data.collection.orders.totalCount).toBeGreaterThanOrEqual(data.collection.orders.edges.length);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
    }
    // not selected: no COUNT is sent
    const plain = await statementsOf(`{ orders(first: 5) { edges { node { hash } } } }`, {});
    expect(plain.statements.join('\n')).not.toContain('COUNT(*)');
    const counted = await statementsOf(`{ orders(first: 5) { ...on OrderConnection { totalCount } } }`, {});
    expect(counted.data.orders.totalCount).toBe(Number((await app.db.sql.query<{ n: string }>('SELECT COUNT(*)::text AS n FROM orders'))[0]!.n));
    expect(counted.statements).toHaveLength(1);
  });

  it('reads only the columns the query selects', async () => {
    const narrow = await statementsOf(`{ orders(first: 5) { edges { node { hash price } } } }`, {});
    expect(narrow.statements, narrow.statements.map((s) => s.slice(0, 300)).join("\n---\n")).toHaveLength(1);
    const orderSql = narrow.statements[0]!;
    for (const unneeded of ['signature', '.params', '.signer', '.token_id', 'collections']) expect(orderSql).not.toContain(unneeded);
    const nested = await statementsOf(NESTED, { c: fixtureCollections[0], n: 5 });
    expect(nested.statements).toHaveLength(1);
    expect(nested.statements[0]).toMatch(/c\d+\.symbol/);
    for (const unneeded of ['signature', '.logo_uri', '.website_link', '.nonce']) expect(nested.statements[0]).not.toContain(unneeded);
  });

  it("answers the peer mix's token metadata shapes (trait grid, trait panel, token page with traits) in one statement each", async () => {
    const c = fixtureCollections[0]!;
    const variables: Record<string, Record<string, unknown>> = {
      o: { collection: c, traitA: 'Background', valuesA: ['Gold', 'Blue'], traitB: 'Eyes', valuesB: ['Calm'] },
      p: { collection: c },
      q: { collection: c, tokenId: '1' },
    };
    for (const [key, vars] of Object.entries(variables)) {
      const shape = SHAPES.find((s) => s.key === key)!;
      if (!('query' in shape.ours)) throw new Error(`shape ${key} is not a GraphQL document`);
      const { data, statements } = await statementsOf(shape.ours.query, vars);
      expect(shape.oursRows({ data })?.length, `shape ${key}: ${JSON.stringify(data).slice(0, 300)}`).toBeGreaterThan(0);
      expect(statements, `shape ${key}:\n${statements.join('\n---\n')}`).toHaveLength(1);
    }
  });

  it('answers any selection without resolver-only fields in one statement', async () => {
    const hash = ((await app.db.sql.query<{ hash: string }>('SELECT hash FROM orders ORDER BY id LIMIT 1'))[0]!).hash;
    const documents = [
      `query($c: Address!) { collection(address: $c) { name topBid { hash price } listedCount
          asks: orders(first: 5, sort: PRICE_ASC, filter: { isOrderAsk: true }) { totalCount edges { node { hash collection { name } } } pageInfo { endCursor } }
          bids: orders(first: 5, sort: PRICE_DESC, filter: { isOrderAsk: false }) { edges { node { hash } } } }
        order(hash: "${hash}") { hash params collection { orders(first: 2) { edges { cursor } } } }
        orders(last: 3) { edges { node { hash } } } }`,
      // a token page and the depth chart beside it
      `query($c: Address!) { tokens(collection: $c, first: 20, filter: { listed: true }) { totalCount edges { cursor node { tokenId listedAt owners { owner }
            bestAsk { price } bestBid { price tokenId } lastSale { price } depth(side: BID, first: 3) { levelCount levels { price } } } } pageInfo { endCursor } }
        token(collection: $c, tokenId: "1") { bestAsk { hash collection { name } } }
        collection(address: $c) { asks: depth(side: ASK) { levelCount totalAmount levels { price orderCount cumulativeAmount } } bids: depth(side: BID) { levels { price } } } }`,
      // an account page: its orders, the offers it could fill, its holdings valued, its activity; a collection's and a token's activity
      `query($c: Address!) { account(address: $c) { id orders(first: 5) { totalCount edges { node { hash } } }
          offersReceived(first: 5) { totalCount edges { node { hash price collection { name } } } }
          holdings(first: 5) { totalCount valueAtFloor valueAtBestBid edges { node { balance valueAtFloor valueAtBestBid token { tokenId bestAsk { price } bestBid { price } lastSale { price } } } } }
          activity(first: 5, filter: { types: [SALE, LIST] }) { totalCount edges { node { type price } } } }
        collection(address: $c) { activity(first: 5) { edges { node { type tokenId } } } }
        token(collection: $c, tokenId: "1") { activity(last: 3) { totalCount edges { node { eventId } } } } }`,
      // a collection search beside a collection: the ranking, its 24 h volumes and the rows, one statement
      `query($c: Address!) { searchCollections(query: "fixture", first: 5) { address name symbol isVerified topBid { hash } listedCount
          orders(first: 2, filter: { isOrderAsk: true }) { totalCount edges { node { hash } } } }
        byAddress: searchCollections(query: "${fixtureCollections[0]!.toLowerCase()}") { name } collection(address: $c) { name } }`,
      // parameters a planner registered for a part the selection left out (the holdings' totals,
      // the book's clock) must not reach PostgreSQL, which cannot type a parameter nothing uses
      `query($c: Address!) { account(address: $c) { holdings(first: 5) { totalCount } } }`,
      `query($c: Address!) { account(address: $c) { address holdings(last: 2) { edges { cursor } } } }`,
    ];
    for (const d of documents) {
      const { statements } = await statementsOf(d, { c: fixtureCollections[0] });
      expect(statements, statements.join('\n---\n')).toHaveLength(1);
    }
  });
});
