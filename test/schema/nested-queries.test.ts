// The frontend's one-request page: orders with their collection and its stats. The number of
// SQL statements must not depend on the page size (no N+1), counted at the database driver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { graphql } from '../../src/gql/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NestedOrders = graphql(`
  query NestedOrders($first: Int!) {
    orders(first: $first, sort: NEWEST) {
      edges {
        cursor
        node {
          hash
          price
          status
          collectionAddress
          collection {
            address
            name
            stats {
              floorPrice
              volume24h
              countAll
              change7d
            }
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const CollectionsPage = graphql(`
  query CollectionsPage($a: Address!, $b: Address!, $first: Int!) {
    a: collection(address: $a) {
      name
      stats { volumeAll }
      orders(first: $first, filter: { isOrderAsk: true }, sort: PRICE_ASC) {
        edges { node { hash price collection { name } } }
      }
    }
    b: collection(address: $b) {
      name
      stats { volumeAll }
      orders(first: $first, sort: NEWEST) {
        edges { node { hash collection { symbol } } }
      }
    }
  }
`);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { now: new Date() });
  await seedDemo(app.services, { orderCount: 200, saleCount: 400 });
});
afterAll(() => app?.close());

async function countStatements<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  app.testDb.statements.length = 0;
  const result = await fn();
  const statements = [...app.testDb.statements].filter((s) => !/^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(s));
  return { result, statements };
}

describe(`nested GraphQL queries (${backendName})`, () => {
  it('answers 50 orders with collection and stats in the same number of statements as 5', async () => {
    const small = await countStatements(() => app.gql(NestedOrders, { first: 5 }));
    const large = await countStatements(() => app.gql(NestedOrders, { first: 50 }));
    expect(small.result.errors).toBeUndefined();
    expect(large.result.errors).toBeUndefined();
    const edges = large.result.data!.orders.edges;
    expect(edges).toHaveLength(50);
    const collections = new Set(edges.map((e) => e.node.collectionAddress));
    expect(collections.size).toBeGreaterThan(1);
    for (const e of edges) {
      expect(e.node.collection.address).toBe(e.node.collectionAddress);
      expect(e.node.collection.stats.countAll).toMatch(/^\d+$/);
    }
    // the page with its collections (one joined statement), then stats for all collections (two).
    expect(large.statements.length).toBe(small.statements.length);
    if (process.env.SHOW_SQL) console.log(large.statements.map((s) => s.slice(0, 160)).join('\n---\n'));
    expect(large.statements.length).toBeLessThanOrEqual(2 + 1); // the page (orders + collections) and stats (2)
  });

  it('keeps the statement count flat across several collections with nested orders', async () => {
    const [a, b] = (await app.db.prisma.collection.findMany({ take: 2, orderBy: { address: 'asc' } })).map((c) => c.address);
    const small = await countStatements(() => app.gql(CollectionsPage, { a: a!, b: b!, first: 2 }));
    const large = await countStatements(() => app.gql(CollectionsPage, { a: a!, b: b!, first: 40 }));
    expect(large.result.errors).toBeUndefined();
    expect(large.result.data!.a!.orders.edges.length).toBeGreaterThan(2);
    expect(large.statements.length).toBe(small.statements.length);
  });

  it('pages the GraphQL connection with the order hash as cursor, like the REST route', async () => {
    const first = await app.gql(NestedOrders, { first: 3 });
    const end = first.data!.orders.pageInfo.endCursor!;
    expect(end).toBe(first.data!.orders.edges[2]!.node.hash);
    const rest = await app.rest(`/api/v1/orders?pagination[first]=3&pagination[cursor]=${end}&sort=NEWEST`);
    const gql = await app.gql(
      `query($after: String) { orders(first: 3, after: $after) { edges { node { hash } } } }`,
      { after: end },
    );
    expect((gql.data as any).orders.edges.map((e: any) => e.node.hash)).toEqual(rest.body.data.map((o: any) => o.hash));
  });
});
