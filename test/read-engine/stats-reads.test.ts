// Collection.stats in SQL (src/read-engine/stats-reads.ts) against statsFor (the resolvers),
// byte for byte, for every CollectionStats field: sales on every edge a window has (now, hour and
// day starts, exactly 24 h / 7 d / 30 d back and twice that, the future), floor history before and
// after each floor-change edge (and a null floor in it), listings of every status and time, with
// and without supply, at several instants, alone and in a page of collections. And the collection
// page is one statement.
import { getNamedType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../src/demo/prng.js';
import { schema } from '../../src/schema/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';

const H = 3_600_000;
const D = 24 * H;
const START = new Date('2026-06-01T12:30:00.250Z');
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

let app: TestApp;
const collections: string[] = [];
const STATS_FIELDS = Object.keys((getNamedType(schema.getType('CollectionStats')!) as GraphQLObjectType).getFields());

beforeAll(async () => {
  app = await startTestApp({}, { now: START });
  const rnd = prng(7171);
  const net = app.services.deps.network;
  for (let i = 0; i < 8; i++) {
    const { collection } = await app.services.collections.upsertCollection({ address: addr(0xa0 + i), type: i % 2 ? 'ERC721' : 'ERC1155', name: `Stats ${i}` });
    collections.push(collection.address);
  }
  const now = START.getTime();
  const hourStart = Math.floor(now / H) * H - now;
  const dayStart = Math.floor(now / D) * D - now;
  const edges = [0, -1, 1, -H, hourStart, hourStart - 1, dayStart, dayStart - 1, -D, -D - 1, -D + 1, -2 * D, -2 * D + 1, -7 * D, -7 * D + 1, -14 * D, -30 * D, -30 * D - 1, -60 * D, -90 * D, -180 * D, -365 * D, -366 * D, -730 * D - 5, 2 * H];
  let seq = 0;
  for (let k = 0; k < 220; k++) {
    // the last two collections sell nothing; prices repeat so changes tie and round on halves
    const c = collections[rnd.int(0, 5)]!;
    const offset = k < edges.length * 2 ? edges[k % edges.length]! + (k % 2) * 11 * 60_000 : -rnd.int(0, 400 * D);
    await app.services.sales.recordSale({
      collection: c, tokenId: BigInt(k), amount: 1n, price: BigInt(rnd.int(1, 7)) * 10n ** 17n + BigInt(rnd.int(0, 3)), currency: net.weth,
      buyer: addr(0xb0), seller: addr(0x5e), orderHash: null, strategy: net.strategies.standardSale[0]!, isTakerAsk: false,
      blockNumber: BigInt(1000 + seq), txHash: `0x${(seq++).toString(16).padStart(64, '0')}`, logIndex: 0, timestamp: new Date(now + offset),
    });
  }
  const nowS = Math.floor(now / 1000);
  await app.db.prisma.order.createMany({
    data: Array.from({ length: 60 }, (_x, n) => ({
      hash: `0x${(0x5ca1e + n).toString(16).padStart(64, '0')}`,
      collectionAddress: collections[rnd.int(0, 6)]!,
      tokenId: String(rnd.int(1, 5)),
      isOrderAsk: rnd.next() < 0.8,
      signer: addr(0x51),
      strategy: rnd.next() < 0.85 ? net.strategies.standardSale[0]! : net.strategies.collectionOffer[0]!,
      currencyAddress: net.weth,
      amount: '1',
      price: String(BigInt(rnd.int(1, 9)) * 10n ** 17n + BigInt(rnd.int(0, 2))),
      nonce: String(n),
      startTime: BigInt(nowS + rnd.pick([-5 * 86_400, -60, 0, 1, 3600])),
      endTime: BigInt(nowS + rnd.pick([-3 * 86_400, -1, 0, 60, 30 * 86_400])),
      minPercentageToAsk: 9800,
      status: rnd.pick(['VALID', 'VALID', 'VALID', 'CANCELLED', 'EXECUTED'] as const),
      signature: '0x',
      v: 27,
      r: `0x${'0'.repeat(64)}`,
      s: `0x${'0'.repeat(64)}`,
    })),
  });
  // floor history on both sides of each floor-change edge, a null floor among them, same-instant ties
  const floors = [-31 * D, -30 * D - 1, -30 * D, -8 * D, -7 * D, -7 * D + 1, -2 * D, -D - 1, -D, -D, -H];
  for (const [i, c] of collections.slice(0, 6).entries()) {
    for (const [j, offset] of floors.entries()) {
      if ((i + j) % 3 === 2) continue;
      await app.db.prisma.floorPoint.create({ data: { collectionAddress: c, floorPrice: (i + j) % 5 === 4 ? null : String(BigInt(1 + ((i * 7 + j) % 6)) * 10n ** 17n), at: new Date(now + offset) } });
    }
  }
  for (const [i, c] of collections.slice(0, 5).entries()) {
    await app.db.prisma.collectionSupply.create({ data: { collectionAddress: c, totalSupply: String(1000 + i * 333), countOwners: 10 + i } });
  }
});
afterAll(() => app?.close());

async function answer(query: string, variables: Record<string, unknown>, readEngine: boolean) {
  const r = await answerVia(app, query, variables, readEngine);
  // the engine's own statements (they build JSON): a service timer's read may land in the log meanwhile
  return { text: r.text, statements: r.statements.filter((st) => st.includes(`'{"`)).length };
}

describe(`Collection.stats in SQL (${backendName})`, () => {
  const instants = [0, 1, -1, 29 * 60_000 + 750, 30 * 60_000, 11.5 * H - 250, D, 7 * D + 1, 31 * D];
  it.each(instants)('equals statsFor for every field at START + %d ms, alone and in a page', async (shift) => {
    app.clock.now = new Date(START.getTime() + shift);
    const all = STATS_FIELDS.join(' ');
    const page = `query($a: Address!) {
      collection(address: $a) { address stats { ${all} } }
      collections(first: 20, orderBy: NAME) { edges { node { address stats { __typename ${all} } } } }
    }`;
    for (const c of collections) {
      const engine = await answer(page, { a: c }, true);
      const resolvers = await answer(page, { a: c }, false);
      expect(engine.text).toBe(resolvers.text);
      expect(engine.text.startsWith('200 {"data"')).toBe(true);
    }
    // without an all-time figure the daily buckets are read from the oldest edge's day on
    const windowsOnly = `query($a: Address!) { collection(address: $a) { stats { ${STATS_FIELDS.filter((f) => !f.includes('All')).join(' ')} } } }`;
    const dayOnly = `query($a: Address!) { collection(address: $a) { stats { volume7d change24h } } }`;
    for (const c of collections) {
      for (const q of [windowsOnly, dayOnly]) expect((await answer(q, { a: c }, true)).text).toBe((await answer(q, { a: c }, false)).text);
    }
    // cards: the ranking inside the page's statement (stats included; the statistic ranked by is
    // the ranking's key, read once), and the figures really vary
    for (const orderBy of ['VOLUME_24H', 'VOLUME_7D', 'FLOOR']) {
      const cards = `{ collections(first: 20, orderBy: ${orderBy}) { edges { node { stats { floorPrice floorPriceEth marketCap volume24h volume24hEth volume7d volume7dEth count24h change24h averageAll floorChange7d } } } } }`;
      const engine = await answer(cards, {}, true);
      expect(engine.text, orderBy).toBe((await answer(cards, {}, false)).text);
      expect(engine.statements, orderBy).toBe(1);
      if (shift === 0) expect(new Set(engine.text.match(/"volume24h":"\d+"/g)).size, orderBy).toBeGreaterThan(2);
    }
  });

  it('answers any one statistic alone in one statement (each needs its own parameters)', async () => {
    app.clock.now = START;
    for (const f of STATS_FIELDS) {
      const q = `query($a: Address!) { collection(address: $a) { stats { ${f} } } }`;
      const engine = await answer(q, { a: collections[0] }, true);
      expect(engine.text, f).toBe((await answer(q, { a: collections[0] }, false)).text);
      expect(engine.statements, f).toBe(1);
    }
  });

  it('answers the collection page (collection, stats, orders) in one statement', async () => {
    app.clock.now = START;
    const q = `query($a: Address!) { collection(address: $a) { name stats { floorPrice marketCap countOwners totalSupply volume24h change24h volume7d count7d countAll } orders(first: 5) { edges { node { hash } } } } }`;
    const engine = await answer(q, { a: collections[0] }, true);
    expect(engine.text).toBe((await answer(q, { a: collections[0] }, false)).text);
    expect(engine.statements).toBe(1);
  });
});
