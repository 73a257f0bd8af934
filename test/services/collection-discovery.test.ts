// Query.collections ranks on one statistic read from the rows inside its window
// (src/services/ranking-keys.ts). Reference: the full statsFor of every collection sorted with
// compareCollections, which is how the ranking was computed before and what Collection.stats
// shows. Random sales straddle every edge a window has (now, hour and day starts, exactly 24 h
// and 7 d and 48 h back, the future), random listings every status and time, and the two
// rankings must agree at several instants, page by page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCollections, COLLECTION_ORDERS, type CollectionOrder } from '../../src/domain/collection-ranking.js';
import { DEFAULT_COLLECTION_NAME } from '../../src/domain/collection-input.js';
import { prng } from '../../src/demo/prng.js';
import type { CollectionQuery } from '../../src/services/collection-discovery.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const H = 3_600_000;
const D = 24 * H;
const START = new Date('2026-06-01T12:30:00.000Z');
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

let app: TestApp;
const collections: string[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { now: START });
  const rnd = prng(424242);
  const net = app.services.deps.network;
  const names = ['Alpha', 'alpha', 'Älpha', 'beta', 'Beta Birds', null, 'zeta', 'Éclair', 'eclair', '42 Club'];
  for (let i = 0; i < 24; i++) {
    const { collection } = await app.services.collections.upsertCollection({ address: addr(0xc0 + i), type: i % 4 ? 'ERC721' : 'ERC1155', name: names[i % names.length] ?? undefined, isVerified: i % 2 === 0 });
    collections.push(collection.address);
  }
  if (names.includes(null)) await app.db.prisma.collection.update({ where: { address: collections[5]! }, data: { name: null } });

  // Offsets that sit on window edges for the instants checked below, plus random ones.
  const now = START.getTime();
  const edges = [0, -1, 1, -H, -D, -D - 1, -D + 1, -2 * D, -2 * D + 1, -7 * D, -7 * D + 1, -7 * D - 1, 30 * 60_000, 2 * H];
  const hourStart = Math.floor(now / H) * H - now;
  const dayStart = Math.floor(now / D) * D - now;
  edges.push(hourStart, dayStart, dayStart - D, hourStart - D, dayStart - 7 * D);
  let seq = 0;
  for (let k = 0; k < 260; k++) {
    // a third of the collections sell nothing; ties in volume happen on purpose (same prices)
    const c = collections[rnd.int(0, 15)]!;
    const offset = k < edges.length * 3 ? edges[k % edges.length]! + (k % 3) * 7 * 60_000 : -rnd.int(0, 9 * D) + rnd.int(0, 2 * H);
    await app.services.sales.recordSale({
      collection: c, tokenId: BigInt(k), amount: 1n, price: BigInt(rnd.int(1, 6)) * 10n ** 17n, currency: net.weth,
      buyer: addr(0xb0), seller: addr(0x5e), orderHash: null, strategy: net.strategies.standardSale[0]!, isTakerAsk: false,
      blockNumber: BigInt(1000 + seq), txHash: `0x${(seq++).toString(16).padStart(64, '0')}`, logIndex: 0, timestamp: new Date(now + offset),
    });
  }

  // Listings: live, expired, not started, cancelled, offers, another strategy.
  const nowS = Math.floor(now / 1000);
  const statuses = ['VALID', 'VALID', 'VALID', 'CANCELLED', 'EXECUTED'] as const;
  const rows = Array.from({ length: 120 }, (_x, n) => ({
    hash: `0x${(0xab00 + n).toString(16).padStart(64, '0')}`,
    collectionAddress: collections[rnd.int(0, 19)]!,
    tokenId: String(rnd.int(1, 5)),
    isOrderAsk: rnd.next() < 0.8,
    signer: addr(0x51),
    strategy: rnd.next() < 0.9 ? net.strategies.standardSale[0]! : net.strategies.collectionOffer[0]!,
    currencyAddress: net.weth,
    amount: '1',
    price: String(BigInt(rnd.int(1, 8)) * 10n ** 17n),
    nonce: String(n),
    startTime: BigInt(nowS + rnd.pick([-5 * 86_400, -60, 0, 1, 3600, 3 * 86_400])),
    endTime: BigInt(nowS + rnd.pick([-3 * 86_400, -1, 0, 60, 86_400, 30 * 86_400])),
    minPercentageToAsk: 9800,
    status: rnd.pick([...statuses]),
    signature: '0x',
    v: 27,
    r: `0x${'0'.repeat(64)}`,
    s: `0x${'0'.repeat(64)}`,
  }));
  await app.db.prisma.order.createMany({ data: rows });
});
afterAll(() => app?.close());

/** The ranking as it was computed before: every field of statsFor for every collection. */
async function reference(order: CollectionOrder): Promise<string[]> {
  const all = await app.db.prisma.collection.findMany({ orderBy: { address: 'asc' } });
  const stats = await app.services.stats.statsFor(all.map((c) => c.address));
  return all
    .map((c, i) => ({
      address: c.address,
      name: c.name ?? DEFAULT_COLLECTION_NAME,
      volume24h: stats[i]!.volume24h,
      volume7d: stats[i]!.volume7d,
      floorPrice: stats[i]!.floorPrice,
      change24h: stats[i]!.change24h,
    }))
    .sort(compareCollections(order))
    .map((r) => r.address);
}

async function ranked(order: CollectionOrder, first: number): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await app.services.collectionDiscovery.listCollections({ filter: {}, orderBy: order, first, fromEnd: false, ...(after ? { after } : {}) });
    expect(page.totalCount).toBe(collections.length);
    out.push(...page.collections.map((c) => c.address));
    if (!page.hasNextPage) return out;
    after = out.at(-1)!;
  }
}

/** The same list paged backward from its end (last/before). */
async function rankedBackward(order: CollectionOrder, last: number): Promise<string[]> {
  const out: string[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await app.services.collectionDiscovery.listCollections({ filter: {}, orderBy: order, first: last, fromEnd: true, ...(before ? { before } : {}) });
    expect(page.hasNextPage).toBe(before !== undefined);
    out.unshift(...page.collections.map((c) => c.address));
    if (!page.hasPreviousPage) return out;
    before = out[0]!;
  }
}

describe(`collections ranking (${backendName})`, () => {
  const instants = [0, 1, -1, 29 * 60_000, 30 * 60_000, 90 * 60_000, 11.5 * H, 12 * H, D, 3 * D];
  it.each(instants)('equals the full-stats ranking at START + %i ms, for every order, paged by 5 and whole', async (shift) => {
    app.clock.now = new Date(START.getTime() + shift);
    for (const order of COLLECTION_ORDERS) {
      const want = await reference(order);
      expect(await ranked(order, 150), order).toEqual(want);
      expect(await ranked(order, 5), order).toEqual(want);
      expect(await rankedBackward(order, 5), order).toEqual(want);
    }
  });

  it('ranks in SQL (volumes, floor) as in JavaScript: every filter, cursor spelling and page size', async () => {
    const d = app.services.collectionDiscovery;
    const filters = [{}, { type: 'ERC721' as const }, { isVerified: true }, { type: 'ERC1155' as const, isVerified: false }, { isVerified: false }];
    for (const shift of [0, 30 * 60_000, D]) {
      app.clock.now = new Date(START.getTime() + shift);
      for (const orderBy of ['VOLUME_24H', 'VOLUME_7D', 'FLOOR'] as const) {
        for (const filter of filters) {
          for (const first of [1, 4, 150]) {
            // the cursor matches case-insensitively
            const spelled = (a: string, page: number) => (page % 2 ? a.toUpperCase().replace('0X', '0x') : a.toLowerCase());
            const forward: string[] = [];
            let after: string | undefined;
            for (let page = 0; page < 30; page++) {
              const q: CollectionQuery = { filter, orderBy, first, fromEnd: false, ...(after ? { after } : {}) };
              const [sql, js] = await Promise.all([d.rankCollectionPage(q), d.rankInJs(q)]);
              expect(sql, `${orderBy} ${JSON.stringify(filter)} first ${first} after ${after}`).toEqual(js);
              forward.push(...js.addresses);
              if (!js.hasNextPage) break;
              after = spelled(js.addresses.at(-1)!, page);
            }
            // backward from the end, then windows between two cursors, from either end
            const backward: string[] = [];
            let before: string | undefined;
            for (let page = 0; page < 30; page++) {
              const q: CollectionQuery = { filter, orderBy, first, fromEnd: true, ...(before ? { before } : {}) };
              const [sql, js] = await Promise.all([d.rankCollectionPage(q), d.rankInJs(q)]);
              expect(sql, `${orderBy} ${JSON.stringify(filter)} last ${first} before ${before}`).toEqual(js);
              backward.unshift(...js.addresses);
              if (!js.hasPreviousPage) break;
              before = spelled(js.addresses[0]!, page);
            }
            expect(backward).toEqual(forward);
            if (forward.length >= 3) {
              for (const fromEnd of [false, true]) {
                const q: CollectionQuery = { filter, orderBy, first, fromEnd, after: forward[0]!, before: forward.at(-1)! };
                const [sql, js] = await Promise.all([d.rankCollectionPage(q), d.rankInJs(q)]);
                expect(sql).toEqual(js);
                const inner = forward.slice(1, -1);
                expect(js.addresses).toEqual(fromEnd ? inner.slice(-first) : inner.slice(0, first));
              }
            }
          }
        }
        for (const cursor of [{ after: collections[1]! }, { before: collections[1]! }]) {
          const bad: CollectionQuery = { filter: { type: 'ERC1155' as const }, orderBy, first: 5, fromEnd: 'before' in cursor, ...cursor };
          await expect(d.rankCollectionPage(bad)).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
          await expect(d.rankInJs(bad)).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
        }
      }
    }
  });

  it('has something to rank: volumes, floors and changes differ between collections', async () => {
    app.clock.now = START;
    const stats = await app.services.stats.statsFor(collections);
    expect(new Set(stats.map((s) => s!.volume24h)).size).toBeGreaterThan(4);
    expect(new Set(stats.map((s) => s!.volume7d)).size).toBeGreaterThan(4);
    expect(new Set(stats.map((s) => s!.floorPrice)).size).toBeGreaterThan(4);
    expect(stats.some((s) => s!.change24h === null)).toBe(true);
    expect(new Set(stats.map((s) => s!.change24h)).size).toBeGreaterThan(3);
  });
});
