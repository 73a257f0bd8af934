// Collection statistics (spec 2.7) against hand-computed numbers: sales recorded through
// the sales service, listings and floor history at pinned times, read through the stats service,
// GraphQL and REST. Window edges, partial hours at both ends, empty windows, one-sale and
// uint256-sized collections, a floor that falls and rises, and a brute-force cross-check of the
// rollup read path against a plain scan of the sales.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../src/demo/prng.js';
import { STATS_WINDOWS } from '../../src/domain/stats-math.js';
import type { CollectionStats } from '../../src/services/stats.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

// Mid-hour and mid-day, so every window has a partial hour and a partial day at both edges.
const NOW = new Date('2026-06-01T12:30:15.500Z');
const H = 3_600_000;
const D = 24 * H;
const M = (1n << 256n) - 1n;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const nowSec = Math.floor(NOW.getTime() / 1000);

const addr = (n: number) => `0x${n.toString(16).padStart(2, '0').repeat(20)}`;
const A = addr(0xa1); // the main fixture
const B = addr(0xb2); // volume falling
const E = addr(0xe5); // one sale
const EMPTY = addr(0xd4); // no sales, no listings, no supply row
const BIG = addr(0xf6); // uint256-sized prices
const TINY = addr(0xc3); // average rounding
const RANDOM = addr(0x77); // brute-force cross-check

let app: TestApp;
let seq = 0;
let standard: string;
let privateSale: string;
/** the stored (checksummed) address of each fixture address */
const stored = new Map<string, string>();
const c = (a: string) => stored.get(a)!;

async function sale(collection: string, offsetMs: number, price: bigint) {
  const n = seq++;
  const ok = await app.services.sales.recordSale({
    collection: c(collection),
    tokenId: BigInt(n),
    amount: 1n,
    price,
    currency: app.services.deps.network.weth,
    buyer: addr(0x11),
    seller: addr(0x22),
    orderHash: null,
    strategy: standard,
    isTakerAsk: false,
    blockNumber: BigInt(1000 + n),
    txHash: `0x${n.toString(16).padStart(64, '0')}`,
    logIndex: 0,
    timestamp: at(offsetMs),
  });
  expect(ok).toBe(true);
}

type OrderOpts = { price: bigint; start?: number; end?: number; status?: 'VALID' | 'CANCELLED'; isOrderAsk?: boolean; strategy?: string };
let orderSeq = 0;
async function listing(collection: string, o: OrderOpts) {
  const n = orderSeq++;
  const row = await app.db.prisma.order.create({
    data: {
      hash: `0x${(0xabc000 + n).toString(16).padStart(64, '0')}`,
      collectionAddress: c(collection),
      tokenId: String(n + 1),
      isOrderAsk: o.isOrderAsk ?? true,
      signer: addr(0x33),
      strategy: o.strategy ?? standard,
      currencyAddress: app.services.deps.network.weth,
      amount: '1',
      price: o.price.toString(),
      nonce: String(n),
      startTime: BigInt(o.start ?? nowSec - 60 * 86_400),
      endTime: BigInt(o.end ?? nowSec + 60 * 86_400),
      minPercentageToAsk: 9800,
      status: o.status ?? 'VALID',
      signature: '0x',
      v: 27,
      r: `0x${'0'.repeat(64)}`,
      s: `0x${'0'.repeat(64)}`,
    },
  });
  return row.hash;
}

/** recordFloor as it would run at NOW + offsetMs. */
async function recordFloorAt(collection: string, offsetMs: number) {
  app.clock.now = at(offsetMs);
  try {
    await app.services.stats.recordFloor(c(collection));
  } finally {
    app.clock.now = NOW;
  }
}

async function stats(collection: string): Promise<CollectionStats> {
  const [s] = await app.services.stats.statsFor([c(collection)]);
  return s!;
}

beforeAll(async () => {
  app = await startTestApp({}, { now: NOW });
  standard = app.services.deps.network.strategies.standardSale[0]!;
  privateSale = app.services.deps.network.strategies.privateSale[0]!;
  for (const a of [A, B, E, EMPTY, BIG, TINY, RANDOM]) {
    stored.set(a, (await app.services.collections.upsertCollection({ address: a, type: 'ERC721' })).collection.address);
  }

  // A: every window and its earlier window populated; edges exactly hit.
  await sale(A, 0, 100n); // exactly now: in 24h
  await sale(A, -D, 200n); // exactly now-24h: not in 24h, in the 24h before
  await sale(A, -D + 1, 300n); // 1 ms later: in 24h (partial hour at the start edge)
  await sale(A, -10 * 60_000, 400n); // partial hour at the end edge
  await sale(A, -5 * H, 500n); // a whole hour of today
  await sale(A, -20 * H, 600n); // a whole hour of yesterday
  await sale(A, -2 * D, 700n); // exactly now-48h: not in the 24h before, in 7d
  await sale(A, -3 * D, 1000n);
  await sale(A, -10 * D, 2000n); // the 7d before
  await sale(A, -45 * D, 4000n); // 3m, the 1m before
  await sale(A, -200 * D, 8000n); // 1y, the 6m before
  await sale(A, -400 * D, 16000n); // only the 1y before, and all-time
  await sale(A, H, 99999n); // after now: counts once it is in the past
  await app.db.prisma.collectionSupply.create({ data: { collectionAddress: c(A), totalSupply: '1000', countOwners: 321 } });

  // B: volume falls.
  await sale(B, -30 * H, 300n);
  await sale(B, -2 * H, 100n);

  // E: one sale two hours ago, one listing since an hour ago.
  await sale(E, -2 * H, 123456789n);
  await listing(E, { price: 5n * 10n ** 17n, start: nowSec - 3600 });
  await recordFloorAt(E, -H);

  // BIG: prices at the uint256 limit; volumes go past 2^256.
  await sale(BIG, -H, M);
  await sale(BIG, -2 * H, M);
  await sale(BIG, -30 * H, M - 1n);
  await listing(BIG, { price: M });
  await app.db.prisma.collectionSupply.create({ data: { collectionAddress: c(BIG), totalSupply: '10000', countOwners: 1 } });

  // TINY: 1 wei and 2 wei average to 1.5, which rounds to 2.
  await sale(TINY, -H, 1n);
  await sale(TINY, -H - 1, 2n);

  // A's floor over time: 10000 (-40d), 6000 (-20d), 10000 (-5d), 8000 (exactly -24h), 4800 (now).
  await listing(A, { price: 10000n, start: nowSec - 41 * 86_400 });
  await recordFloorAt(A, -40 * D);
  const l2 = await listing(A, { price: 6000n, start: nowSec - 21 * 86_400 });
  await recordFloorAt(A, -20 * D);
  await app.db.prisma.order.update({ where: { hash: l2 }, data: { status: 'CANCELLED' } });
  await recordFloorAt(A, -5 * D);
  await recordFloorAt(A, -5 * D + H); // unchanged: no new point
  await listing(A, { price: 8000n, start: nowSec - 86_400 - 60, end: nowSec - 1 }); // ended 1 s before now
  await recordFloorAt(A, -D);
  // What counts at now: VALID standard-sale asks that have started and not ended.
  const hourAgo = nowSec - 3600;
  await listing(A, { price: 4800n, start: hourAgo, end: nowSec }); // ends exactly now: still live
  await listing(A, { price: 5000n, start: hourAgo });
  await listing(A, { price: 4500n, start: nowSec + 3600 }); // not started
  await listing(A, { price: 3000n, start: hourAgo, status: 'CANCELLED' });
  await listing(A, { price: 1000n, start: hourAgo, strategy: privateSale }); // not a standard sale
  await listing(A, { price: 1n, start: hourAgo, isOrderAsk: false }); // an offer
  await recordFloorAt(A, 0);
});
afterAll(() => app?.close());

describe(`collection stats (${backendName})`, () => {
  it('computes every field of a collection with sales in every window', async () => {
    const s = await stats(A);
    expect(s).toEqual({
      address: c(A),
      countOwners: '321',
      totalSupply: '1000',
      floorPrice: '4800',
      floorChange24h: '-40.00', // 8000 (recorded exactly at now-24h) -> 4800
      floorChange7d: '-20.00', // 6000 -> 4800
      floorChange30d: '-52.00', // 10000 -> 4800
      marketCap: '4800000',
      // 24h: 100 + 300 + 400 + 500 + 600; the 24h before: 200 (700 at exactly now-48h is outside)
      volume24h: '1900', count24h: '5', average24h: '380', change24h: '850.00',
      // 7d: 24h + 200 + 700 + 1000; the 7d before: 2000
      volume7d: '3800', count7d: '8', average7d: '475', change7d: '90.00',
      // 1m: 7d + 2000; the 1m before: 4000. 5800 / 9 = 644.4
      volume1m: '5800', count1m: '9', average1m: '644', change1m: '45.00',
      // 3m: 1m + 4000; nothing in the 3m before: no baseline
      volume3m: '9800', count3m: '10', average3m: '980', change3m: null,
      // 6m: same sales; the 6m before: 8000
      volume6m: '9800', count6m: '10', average6m: '980', change6m: '22.50',
      // 1y: 6m + 8000; the 1y before: 16000. 17800 / 11 = 1618.2
      volume1y: '17800', count1y: '11', average1y: '1618', change1y: '11.25',
      // all: every sale at or before now (the one an hour ahead is not yet). 33800 / 12 = 2816.7
      volumeAll: '33800', countAll: '12', averageAll: '2817',
    });
  });

  it('moves the window edges with the clock: a sale leaves 24h exactly 24 h after it happened', async () => {
    // At now+1ms the sale at now-24h+1ms is exactly at the edge: out of 24h, into the 24h before.
    app.clock.now = at(1);
    try {
      const s = await stats(A);
      expect([s.volume24h, s.count24h, s.volumeAll, s.countAll]).toEqual(['1600', '4', '33800', '12']);
      expect(s.change24h).toBe(`${((1600 - 500) * 100) / 500}.00`); // the 24h before: 200 + 300
    } finally {
      app.clock.now = NOW;
    }
    // An hour later the sale recorded ahead of the clock is in.
    app.clock.now = at(H);
    try {
      const s = await stats(A);
      expect([s.countAll, s.volumeAll]).toEqual(['13', String(33800 + 99999)]);
      expect([s.count24h, s.volume24h]).toEqual(['5', String(100 + 400 + 500 + 600 + 99999)]);
    } finally {
      app.clock.now = NOW;
    }
  });

  it('reads the floor change from the history as it rose and fell', async () => {
    expect(await app.db.prisma.floorPoint.count({ where: { collectionAddress: c(A) } })).toBe(5);
    // 5 days before now plus an hour: the floor is 10000 again after the 6000 listing was cancelled.
    app.clock.now = at(-5 * D + H);
    try {
      const s = await stats(A);
      expect(s.floorPrice).toBe('10000');
      expect(s.floorChange24h).toBe('66.67'); // from 6000, the last point at or before then-24h
      expect(s.floorChange7d).toBe('66.67');
      expect(s.floorChange30d).toBe('0.00'); // from 10000 (-40d)
      expect(s.marketCap).toBe('10000000');
    } finally {
      app.clock.now = NOW;
    }
    // 30 days ago: 6000 had not been listed yet; 24h before that there was no history yet.
    app.clock.now = at(-30 * D);
    try {
      const s = await stats(A);
      expect([s.floorPrice, s.floorChange24h, s.floorChange7d, s.floorChange30d]).toEqual(['10000', '0.00', '0.00', null]);
    } finally {
      app.clock.now = NOW;
    }
  });

  it('gives a negative change when volume falls, rounded half away from zero', async () => {
    const s = await stats(B);
    expect([s.volume24h, s.count24h, s.change24h]).toEqual(['100', '1', '-66.67']);
    expect([s.volume7d, s.count7d, s.average7d, s.change7d]).toEqual(['400', '2', '200', null]);
    expect([s.floorPrice, s.marketCap, s.floorChange24h, s.countOwners, s.totalSupply]).toEqual([null, null, null, '0', '0']);
  });

  it('handles a one-sale collection: every window holds it, no baseline anywhere', async () => {
    const s = await stats(E);
    for (const w of STATS_WINDOWS) {
      expect([s[`volume${w.label}`], s[`count${w.label}`], s[`average${w.label}`], s[`change${w.label}`]]).toEqual(['123456789', '1', '123456789', null]);
    }
    expect([s.volumeAll, s.countAll, s.averageAll]).toEqual(['123456789', '1', '123456789']);
    // The floor exists since an hour ago only: nothing to compare with.
    expect([s.floorPrice, s.floorChange24h, s.floorChange7d, s.floorChange30d]).toEqual(['500000000000000000', null, null, null]);
    expect(s.marketCap).toBe('0'); // no supply indexed: totalSupply "0"
  });

  it('answers zeros, "0.00" changes and null floors for a collection without sales or listings', async () => {
    const s = await stats(EMPTY);
    const expected: Record<string, string | null> = {
      address: c(EMPTY), countOwners: '0', totalSupply: '0', floorPrice: null, floorChange24h: null, floorChange7d: null,
      floorChange30d: null, marketCap: null, volumeAll: '0', averageAll: '0', countAll: '0',
    };
    for (const w of STATS_WINDOWS) Object.assign(expected, { [`volume${w.label}`]: '0', [`average${w.label}`]: '0', [`count${w.label}`]: '0', [`change${w.label}`]: '0.00' });
    expect(s).toEqual(expected);
  });

  it('stays exact with uint256 prices: volumes past 2^256, averages, changes and market cap', async () => {
    const s = await stats(BIG);
    expect([s.volume24h, s.count24h, s.average24h]).toEqual([(2n * M).toString(), '2', M.toString()]);
    expect(s.change24h).toBe('100.00'); // (2M - (M - 1)) / (M - 1): 100.000...%
    expect([s.volume7d, s.count7d, s.average7d]).toEqual([(3n * M - 1n).toString(), '3', M.toString()]); // (3M - 1) / 3 rounds to M
    expect([s.volumeAll, s.averageAll]).toEqual([(3n * M - 1n).toString(), M.toString()]);
    expect(s.floorPrice).toBe(M.toString());
    expect(s.marketCap).toBe((M * 10000n).toString());
    expect(s.countOwners).toBe('1');
  });

  it('rounds an average of 1.5 wei to 2', async () => {
    const s = await stats(TINY);
    expect([s.volume24h, s.count24h, s.average24h]).toEqual(['3', '2', '2']);
  });

  it('answers null for an unknown address and keeps the order of the addresses asked for', async () => {
    const list = [c(B), '0x' + '99'.repeat(20), c(A), c(B)];
    const r = await app.services.stats.statsFor(list);
    expect(r.map((x) => x?.volume24h ?? null)).toEqual(['100', null, '1900', '100']);
  });

  it('REST /collections/stats equals the GraphQL field and the service', async () => {
    for (const fixture of [A, BIG, EMPTY]) {
      const address = c(fixture);
      const rest = await app.rest(`/api/v1/collections/stats?address=${address.toLowerCase()}`);
      expect(rest.status).toBe(200);
      const keys = Object.keys(await stats(fixture));
      const gql = await app.gql(`query($a: Address!) { collection(address: $a) { stats { ${keys.join(' ')} } } collectionStats(address: $a) { ${keys.join(' ')} } }`, { a: address });
      expect(gql.errors).toBeUndefined();
      const data = gql.data as { collection: { stats: unknown }; collectionStats: unknown };
      expect(rest.body.data).toEqual(await stats(fixture));
      expect(data.collection.stats).toEqual(rest.body.data);
      expect(data.collectionStats).toEqual(rest.body.data);
    }
  });

  it('gives the same numbers after the rollups are rebuilt from the sales', async () => {
    const before = await app.services.stats.statsFor([A, B, E, BIG, TINY].map(c));
    await app.services.sales.rebuildSaleBuckets();
    expect(await app.services.stats.statsFor([A, B, E, BIG, TINY].map(c))).toEqual(before);
  });

  it('ignores a replayed sale (same transaction hash and log index)', async () => {
    const network = app.services.deps.network;
    const replay = { collection: c(TINY), tokenId: 1n, amount: 1n, price: 1n, currency: network.weth, buyer: addr(0x11), seller: addr(0x22), orderHash: null, strategy: standard, isTakerAsk: false, blockNumber: 1n, txHash: `0x${(seq - 1).toString(16).padStart(64, '0')}`, logIndex: 0, timestamp: at(-H) };
    expect(await app.services.sales.recordSale(replay)).toBe(false);
    expect((await stats(TINY)).count24h).toBe('2');
  });

  it('equals a plain scan of the sales for 400 random sales at many clocks (edges on hours, days, ms)', async () => {
    const rnd = prng(2026);
    const sales: { ms: number; price: bigint }[] = [];
    for (let i = 0; i < 400; i++) {
      // Half of them on or next to a window edge of NOW, the rest anywhere in 800 days.
      const edge = STATS_WINDOWS[rnd.int(0, STATS_WINDOWS.length - 1)]!.seconds * 1000 * rnd.int(1, 2);
      const offset = rnd.next() < 0.5 ? -edge + rnd.int(-1, 1) * rnd.pick([1, 1000, H]) : -Math.floor(rnd.next() * 800 * D);
      const price = BigInt(rnd.int(1, 1_000_000)) * (rnd.next() < 0.1 ? M / 1_000_000n : 1n);
      sales.push({ ms: NOW.getTime() + offset, price });
      await sale(RANDOM, offset, price);
    }
    const clocks = [NOW, new Date('2026-06-01T00:00:00.000Z'), new Date('2026-06-01T12:00:00.000Z'), at(-H / 2), at(-3 * D + 1), at(D - 1)];
    for (const clock of clocks) {
      app.clock.now = clock;
      try {
        const s = await stats(RANDOM);
        const t = clock.getTime();
        const sum = (lo: number, hi: number) => {
          const inside = sales.filter((x) => x.ms > lo && x.ms <= hi);
          return { volume: inside.reduce((a, x) => a + x.price, 0n).toString(), count: String(inside.length) };
        };
        const all = sum(-Infinity, t);
        expect([s.volumeAll, s.countAll], `all at ${clock.toISOString()}`).toEqual([all.volume, all.count]);
        for (const w of STATS_WINDOWS) {
          const ms = w.seconds * 1000;
          const cur = sum(t - ms, t);
          expect([s[`volume${w.label}`], s[`count${w.label}`]], `${w.label} at ${clock.toISOString()}`).toEqual([cur.volume, cur.count]);
        }
      } finally {
        app.clock.now = NOW;
      }
    }
  });
});
