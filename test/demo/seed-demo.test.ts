// The demo marketplace's history reads as a market's: the seeder writes orders and sales oldest
// first, so the event log (ids in insertion order) and the activity a collection page shows go
// newest first by time, and the sales' blocks and transactions follow time as on a chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COLLECTIONS, demoCollectionAddress, seedDemo } from '../../src/demo/seed-demo.js';
import { PAGE_QUERIES, PANEL_ROWS } from '../../src/http/pages/page-queries.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await seedDemo(app.services, { orderCount: 120, saleCount: 400 });
});
afterAll(() => app?.close());

type Event = { eventId: string; type: string; createdAt: number };

/** A collection's whole activity (the default types), as the API pages it. */
async function activityOf(address: string): Promise<Event[]> {
  const events: Event[] = [];
  let after: string | null = null;
  for (;;) {
    const r: { data?: any; errors?: unknown } = await app.gql<any>(
      'query($address: Address!, $after: String) { collection(address: $address) { activity(first: 150, after: $after) { edges { node { eventId type createdAt } } pageInfo { hasNextPage endCursor } } } }',
      { address, after },
    );
    expect(r.errors).toBeUndefined();
    const page: { edges: { node: Event }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } = r.data.collection.activity;
    events.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) return events;
    after = page.pageInfo.endCursor;
  }
}

describe(`the demo's history (${backendName})`, () => {
  it("is newest first by time in every collection's activity, listings and sales interleaved", async () => {
    for (const [i] of DEMO_COLLECTIONS.entries()) {
      const events = await activityOf(demoCollectionAddress(i));
      const times = events.map((e) => e.createdAt);
      expect(times, DEMO_COLLECTIONS[i]!.name).toEqual([...times].sort((a, b) => b - a));
      expect(events.map((e) => BigInt(e.eventId))).toEqual(events.map((e) => BigInt(e.eventId)).sort((a, b) => (a > b ? -1 : 1)));
    }
    // the panel of the demo's first collection (its page's query): the latest events, orders among the sales
    const panel = (await app.gql<any>(PAGE_QUERIES.collectionActivity, { address: demoCollectionAddress(0), first: PANEL_ROWS })).data.activity.edges;
    expect(panel).toHaveLength(PANEL_ROWS);
    expect(panel.some((e: { node: Event }) => e.node.type === 'SALE')).toBe(true);
    expect(panel.some((e: { node: Event }) => e.node.type !== 'SALE')).toBe(true);
  });

  it("numbers the sales' blocks and transactions in time order", async () => {
    const sales = await app.testDb.db.prisma.sale.findMany({ orderBy: { blockNumber: 'asc' }, select: { id: true, blockNumber: true, timestamp: true } });
    expect(sales).toHaveLength(400);
    const times = sales.map((s) => s.timestamp.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // inserted in that order too
    expect(sales.map((s) => s.id)).toEqual([...sales.map((s) => s.id)].sort((a, b) => (a < b ? -1 : 1)));
  });
});
