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

// The kept ranking keys (src/services/kept-ranking-keys.ts): refreshed at one clock, read at
// another, with writes after the refresh that move a floor or a window. The SQL ranking reads the
// kept rows and must still equal the JavaScript ranking (rankInJs computes every key afresh).
describe(`collections ranking over the kept keys (${backendName})`, () => {
  const d = () => app.services.collectionDiscovery;
  const ORDERS = ['VOLUME_24H', 'VOLUME_7D', 'FLOOR'] as const;
  async function sameAsJs(label: string) {
    for (const orderBy of ORDERS) {
      for (const fromEnd of [false, true]) {
        const q: CollectionQuery = { filter: {}, orderBy, first: 150, fromEnd };
        const [sql, js] = await Promise.all([d().rankCollectionPage(q), d().rankInJs(q)]);
        expect(sql, `${label}: ${orderBy}${fromEnd ? ' from the end' : ''}`).toEqual(js);
      }
    }
  }
  async function refreshAt(ms: number) {
    app.clock.now = new Date(START.getTime() + ms);
    expect(await app.services.keptRankingKeys.refresh()).toBe(true);
  }
  const known = async () =>
    Number((await app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM collection_floor_keys WHERE valid_to > valid_from`))[0]!.n);

  it('equals the JavaScript ranking with the keys refreshed before, at and after the clock', async () => {
    const reads = [0, 1, -1, 59_000, 29 * 60_000, 30 * 60_000, 90 * 60_000, 12 * H, D, D + 1, 3 * D];
    for (const refreshed of [0, -D, 30 * 60_000, 2 * D, 8 * D]) {
      await refreshAt(refreshed);
      expect(await known()).toBeGreaterThan(0);
      for (const read of reads) {
        app.clock.now = new Date(START.getTime() + read);
        await sameAsJs(`refreshed at ${refreshed}, read at ${read}`);
      }
    }
  });

  it('keeps a floor whose listing never ends (endTime the largest BIGINT)', async () => {
    const net = app.services.deps.network;
    const nowS = Math.floor(START.getTime() / 1000);
    await app.db.prisma.order.create({
      data: {
        hash: `0x${'ee'.repeat(32)}`, collectionAddress: collections[22]!, tokenId: '1', isOrderAsk: true, signer: addr(0x53),
        strategy: net.strategies.standardSale[0]!, currencyAddress: net.weth, amount: '1', price: (5n * 10n ** 17n).toString(), nonce: '777',
        startTime: BigInt(nowS - 60), endTime: 2n ** 63n - 1n, minPercentageToAsk: 9800, status: 'VALID',
        signature: '0x', v: 27, r: `0x${'0'.repeat(64)}`, s: `0x${'0'.repeat(64)}`,
      },
    });
    await refreshAt(0);
    const [row] = await app.db.sql.query<{ floor_price: string; valid_to: string }>(`SELECT floor_price::text, valid_to::text FROM collection_floor_keys WHERE collection_address = $1`, [collections[22]!]);
    // (collections past the 20th have no other listing)
    expect(row).toEqual({ floor_price: (5n * 10n ** 17n).toString(), valid_to: (2n ** 63n - 1n).toString() });
    await sameAsJs('a listing that never ends');
  });

  it('reads the kept rows: a kept floor or volume changed behind its back shows in the SQL ranking only', async () => {
    await refreshAt(0);
    const q: CollectionQuery = { filter: {}, orderBy: 'FLOOR', first: 150, fromEnd: false };
    // a row that also holds a second before the refresh's clock (its interval reaches back)
    const nowS = Math.floor(START.getTime() / 1000);
    const [row] = await app.db.sql.query<{ collection_address: string }>(
      `SELECT collection_address FROM collection_floor_keys WHERE valid_to > valid_from AND floor_price IS NOT NULL AND valid_from <= $1
        ORDER BY floor_price DESC, collection_address LIMIT 1`,
      [nowS - 1],
    );
    await app.db.sql.query(`UPDATE collection_floor_keys SET floor_price = 1 WHERE collection_address = $1`, [row!.collection_address]);
    expect((await d().rankCollectionPage(q)).addresses[0]).toBe(row!.collection_address);
    expect((await d().rankInJs(q)).addresses[0]).not.toBe(row!.collection_address);
    // a reader whose clock is behind the refresh's (another instance) reads it too
    app.clock.now = new Date(START.getTime() - 1000);
    expect((await d().rankCollectionPage(q)).addresses[0]).toBe(row!.collection_address);
    app.clock.now = START;
    const v: CollectionQuery = { filter: {}, orderBy: 'VOLUME_7D', first: 150, fromEnd: false };
    const last = (await d().rankInJs(v)).addresses.at(-1)!;
    await app.db.sql.query(`INSERT INTO collection_volume_marks (collection_address, volume_24h, volume_7d) VALUES ($1, 0, 10^40)
                            ON CONFLICT (collection_address) DO UPDATE SET volume_7d = 10^40`, [last]);
    expect((await d().rankCollectionPage(v)).addresses[0]).toBe(last);
    // undo both: the floor row made unknown (a refresh computes it again), the mark moved back
    await app.db.sql.query(`UPDATE collection_floor_keys SET valid_from = 0, valid_to = 0 WHERE collection_address = $1`, [row!.collection_address]);
    await app.db.sql.query(`UPDATE collection_volume_marks SET volume_7d = volume_7d - 10^40 WHERE collection_address = $1`, [last]);
    await refreshAt(1000);
    await sameAsJs('after the refresh');
  });

  it('stays equal after writes that move floors and windows since the refresh', async () => {
    const rnd = prng(777);
    const net = app.services.deps.network;
    const nowS = Math.floor(START.getTime() / 1000);
    let seq = 0;
    const sale = (c: string, offsetMs: number, price: bigint) =>
      app.services.sales.recordSale({
        collection: c, tokenId: BigInt(9000 + seq), amount: 1n, price, currency: net.weth,
        buyer: addr(0xb0), seller: addr(0x5e), orderHash: null, strategy: net.strategies.standardSale[0]!, isTakerAsk: false,
        blockNumber: BigInt(90_000 + seq), txHash: `0x${(0xfe0000 + seq++).toString(16).padStart(64, '0')}`, logIndex: 0, timestamp: new Date(START.getTime() + offsetMs),
      });
    const listing = (n: number, c: string, price: bigint, start: number, end: number) => ({
      hash: `0x${(0xcd00 + n).toString(16).padStart(64, '0')}`, collectionAddress: c, tokenId: '1', isOrderAsk: true, signer: addr(0x52),
      strategy: net.strategies.standardSale[0]!, currencyAddress: net.weth, amount: '1', price: price.toString(), nonce: String(5000 + n),
      startTime: BigInt(nowS + start), endTime: BigInt(nowS + end), minPercentageToAsk: 9800, status: 'VALID' as const,
      signature: '0x', v: 27, r: `0x${'0'.repeat(64)}`, s: `0x${'0'.repeat(64)}`,
    });
    for (let round = 0; round < 4; round++) {
      await refreshAt(round * 60_000);
      // sales inside the kept windows, at their edges, after the anchor and in the future
      for (const offset of [round * 60_000, round * 60_000 - 1, -D + round * 60_000 + 1, -7 * D + round * 60_000, -3 * D, 5 * 60_000, -H]) {
        await sale(collections[rnd.int(0, 23)]!, offset, BigInt(rnd.int(1, 9)) * 10n ** 17n);
      }
      // a cheaper listing live now, one that starts later, one that ended; then the floor listing of a collection cancelled
      const base = round * 10;
      await app.db.prisma.order.createMany({
        data: [
          listing(base, collections[rnd.int(0, 23)]!, 1n, -60, 3600),
          listing(base + 1, collections[rnd.int(0, 23)]!, 2n, 120, 7200),
          listing(base + 2, collections[rnd.int(0, 23)]!, 3n, -7200, -60),
        ],
      });
      const target = collections[rnd.int(0, 19)]!;
      const floor = (await app.services.stats.statsFor([target]))[0]!.floorPrice;
      if (floor !== null) {
        await app.db.sql.query(
          `UPDATE orders SET status = 'CANCELLED' WHERE collection_address = $1 AND is_order_ask AND status = 'VALID' AND price = $2::numeric AND start_time <= $3 AND end_time >= $3`,
          [target, floor, nowS + Math.floor((round * 60_000) / 1000)],
        );
      }
      // an old sale moved into the window, another removed (an undo)
      await app.db.sql.query(`UPDATE sales SET timestamp = $1::timestamptz WHERE id = (SELECT min(id) FROM sales)`, [new Date(START.getTime() + round * 60_000 - 3 * H).toISOString()]);
      await app.db.sql.query(`DELETE FROM sales WHERE id = (SELECT max(id) FROM sales WHERE timestamp <= $1::timestamptz)`, [new Date(START.getTime() + round * 60_000).toISOString()]);
      // (the rollups the JavaScript ranking reads follow the sales table only through the service)
      await app.services.sales.rebuildSaleBuckets();
      for (const read of [round * 60_000, round * 60_000 + 130_000, round * 60_000 + 2 * H, round * 60_000 - 1000, round * 60_000 + D]) {
        app.clock.now = new Date(START.getTime() + read);
        await sameAsJs(`round ${round}, read at ${read}`);
      }
    }
  });
});
