// Query.listingRewards in SQL (src/read-engine/listing-reward-reads.ts) against its resolver, byte
// for byte: ranks and ties, our floor below and above theirs, a floor beyond 2^53, stale and
// unverified data left out, the program off; and the collection page, rewards included, is one
// statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';

const NOW = new Date('2026-06-01T12:30:15.500Z');
const ETH = 10n ** 18n;
const MAX = (1n << 256n) - 1n;
const addr = (n: number) => `0x${String(n).padStart(2, '0').repeat(20)}`;

let app: TestApp;
let off: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { now: NOW });
  off = await startTestApp({ LISTING_REWARDS_ENABLED: 'false' }, { now: NOW });
  const nowSec = Math.floor(NOW.getTime() / 1000);
  const net = app.services.deps.network;
  for (const n of [11, 21, 22, 44, 55, 66, 77]) await app.services.collections.upsertCollection({ address: addr(n), type: 'ERC721', isVerified: n !== 77, name: n === 44 ? null : `Reward "${n}"` });
  for (const [i, [n, price]] of ([[11, 9n * 10n ** 17n], [11, 2n * ETH], [21, 5n * ETH], [55, 1n]] as const).entries()) {
    await app.db.prisma.order.create({
      data: {
        hash: `0x${(0xfeed00 + i).toString(16).padStart(64, '0')}`, collectionAddress: addr(n), tokenId: String(i + 1), isOrderAsk: true,
        signer: addr(1), strategy: net.strategies.standardSale[0]!, currencyAddress: net.weth, amount: '1', price: price.toString(), nonce: String(i),
        startTime: BigInt(nowSec - 60), endTime: BigInt(nowSec + 86_400), minPercentageToAsk: 9800, signature: '0x', v: 27, r: `0x${'0'.repeat(64)}`, s: `0x${'0'.repeat(64)}`,
      },
    });
  }
  await app.services.listingRewards.upsertMarketData([
    { collection: addr(11), volume24hGlobal: '700', floorGlobal: ETH.toString() },
    { collection: addr(22), volume24hGlobal: '600', floorGlobal: '2' },
    { collection: addr(21), volume24hGlobal: '600', floorGlobal: (3n * ETH).toString() },
    { collection: addr(44), volume24hGlobal: (10n ** 40n).toString(), floorGlobal: MAX.toString() },
    { collection: addr(55), volume24hGlobal: '300', floorGlobal: '5' },
    { collection: addr(66), volume24hGlobal: '900', floorGlobal: '8', observedAt: new Date(NOW.getTime() - 86_400_001).toISOString() },
    { collection: addr(77), volume24hGlobal: '999', floorGlobal: '9' },
  ]);
});
afterAll(async () => {
  await app?.close();
  await off?.close();
});

const SELECTIONS = [
  '{ listingRewards { points volume24hGlobal floorGlobal collection { address name } } }',
  '{ listingRewards { __typename floorGlobal f2: floorGlobal collection { __typename isVerified stats { floorPrice } } } }',
  '{ a: listingRewards { points } b: listingRewards { ...R } } fragment R on ListingRewardCollection { collection { ... on Node { id } } points }',
];

describe(`listing rewards in SQL (${backendName})`, () => {
  it('equals the resolver byte for byte, in one statement', async () => {
    for (const q of SELECTIONS) {
      const engine = await answerVia(app, q, {}, true);
      expect(engine.text).toBe((await answerVia(app, q, {}, false)).text);
      expect(engine.statements.length, q).toBe(1);
    }
    const { text } = await answerVia(app, SELECTIONS[0]!, {}, true);
    const list = JSON.parse(text.slice(4)).data.listingRewards;
    expect(list.map((e: { points: number }) => e.points)).toEqual(app.services.deps.config.listingRewards.points);
    expect(list[0].volume24hGlobal).toBe((10n ** 40n).toString());
    expect(list[0].floorGlobal).toBe(MAX.toString());
    expect(list.find((e: any) => e.collection.address === addr(11)).floorGlobal).toBe((9n * 10n ** 17n).toString());
    expect(list.map((e: any) => e.collection.address)).not.toContain(addr(66));
  });

  it('answers null with the program off', async () => {
    const q = SELECTIONS[0]!;
    const engine = await answerVia(off, q, {}, true);
    expect(engine.text).toBe('200 {"data":{"listingRewards":null}}');
    expect(engine.text).toBe((await answerVia(off, q, {}, false)).text);
  });

  it('answers the collection page, rewards included, in one statement', async () => {
    const q = `query($a: Address!) {
      collection(address: $a) { address name stats { floorPrice volume24h countAll } orders(first: 5, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) { edges { node { hash price } } } }
      listingRewards { points volume24hGlobal floorGlobal collection { address name } }
    }`;
    const engine = await answerVia(app, q, { a: addr(11) }, true);
    expect(engine.text).toBe((await answerVia(app, q, { a: addr(11) }, false)).text);
    expect(engine.statements.length).toBe(1);
  });
});
