// Tokens and book depth against a hand-computed book, on this backend, each answer asked twice:
// from the read engine and from the resolvers (READ_ENGINE off), which must agree byte for byte.
// The book has what the rules exclude (cancelled, ended, not yet started, private sale asks), a
// collection offer that beats a token offer and one that ties with a newer token offer, an
// ERC-1155 token with several holders, price ties for the sorts and the depth levels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';
import { expectBackwardMirrorsForward } from '../helpers/relay-pages.js';

const NOW = new Date('2026-06-01T12:30:00.000Z');
const nowSec = NOW.getTime() / 1000;
const E = 10n ** 16n; // 0.01 ETH
const addr = (n: number) => `0x${n.toString(16).padStart(2, '0').repeat(20)}`;

let app: TestApp;
let C721: string, C1155: string;
const W = [addr(0x1a), addr(0x2b), addr(0x3c), addr(0x4d)];
const hashes: Record<string, string> = {};

type Kind = 'standardSale' | 'collectionOffer' | 'privateSale';
let seq = 0;
async function order(name: string, collection: string, o: { ask: boolean; price: bigint; tokenId: number | null; kind?: Kind; status?: 'VALID' | 'CANCELLED'; start?: number; end?: number; created?: number; amount?: number }) {
  const n = seq++;
  const row = await app.db.prisma.order.create({
    data: {
      hash: `0x${(0x70c3 + n).toString(16).padStart(64, '0')}`,
      collectionAddress: collection,
      tokenId: o.tokenId === null ? null : String(o.tokenId),
      isOrderAsk: o.ask,
      signer: W[n % 4]!,
      strategy: app.services.deps.network.strategies[o.kind ?? (o.tokenId === null ? 'collectionOffer' : 'standardSale')][0]!,
      currencyAddress: app.services.deps.network.weth,
      amount: String(o.amount ?? 1),
      price: o.price.toString(),
      nonce: String(n),
      startTime: BigInt(o.start ?? nowSec - 5000),
      endTime: BigInt(o.end ?? nowSec + 86_400),
      minPercentageToAsk: 9800,
      status: o.status ?? 'VALID',
      signature: '0x',
      v: 27,
      r: `0x${'0'.repeat(64)}`,
      s: `0x${'0'.repeat(64)}`,
      createdAt: new Date((o.created ?? nowSec - 4000) * 1000),
    },
  });
  hashes[name] = row.hash;
}

async function sale(collection: string, tokenId: number, price: bigint, at: number, n: number) {
  await app.services.sales.recordSale({
    collection,
    tokenId: BigInt(tokenId),
    amount: 1n,
    price,
    currency: app.services.deps.network.weth,
    buyer: W[1]!,
    seller: W[0]!,
    orderHash: null,
    strategy: null,
    isTakerAsk: false,
    blockNumber: BigInt(100 + n),
    txHash: `0x${(0x5a1e + n).toString(16).padStart(64, '0')}`,
    logIndex: 0,
    timestamp: new Date(at * 1000),
  });
}

beforeAll(async () => {
  app = await startTestApp({}, { now: NOW });
  const upsert = async (address: string, type: 'ERC721' | 'ERC1155') => (await app.services.collections.upsertCollection({ address, name: type, type })).collection.address;
  C721 = await upsert(addr(0xa7), 'ERC721');
  C1155 = await upsert(addr(0xb1), 'ERC1155');
  await app.db.prisma.tokenBalance.createMany({
    data: [
      ...[1, 2, 3, 4].map((t) => ({ collectionAddress: C721, tokenId: String(t), owner: W[t - 1]!, balance: '1' })),
      { collectionAddress: C1155, tokenId: '7', owner: W[0]!, balance: '5' },
      { collectionAddress: C1155, tokenId: '7', owner: W[1]!, balance: '3' },
      { collectionAddress: C1155, tokenId: '7', owner: W[2]!, balance: '5' },
    ],
  });
  // asks of the ERC-721 collection
  await order('a1', C721, { ask: true, tokenId: 1, price: 50n * E });
  await order('a2', C721, { ask: true, tokenId: 1, price: 30n * E, created: nowSec - 500, start: nowSec - 1000 });
  await order('a3', C721, { ask: true, tokenId: 1, price: 10n * E, status: 'CANCELLED' });
  await order('a4', C721, { ask: true, tokenId: 1, price: 20n * E, end: nowSec - 1 });
  await order('a5', C721, { ask: true, tokenId: 1, price: 1n * E, kind: 'privateSale' });
  await order('a6', C721, { ask: true, tokenId: 2, price: 30n * E, created: nowSec - 2000, start: nowSec - 100 });
  await order('a7', C721, { ask: true, tokenId: 3, price: 70n * E, start: nowSec + 60 });
  await order('a8', C721, { ask: true, tokenId: 9, price: 40n * E, end: nowSec - 60 });
  await order('a9', C721, { ask: true, tokenId: 2, price: 30n * E });
  // bids
  await order('b1', C721, { ask: false, tokenId: 1, price: 20n * E });
  await order('b2', C721, { ask: false, tokenId: 1, price: 25n * E, status: 'CANCELLED' });
  await order('b3', C721, { ask: false, tokenId: null, price: 22n * E });
  await order('b4', C721, { ask: false, tokenId: 2, price: 24n * E });
  await order('b5', C721, { ask: false, tokenId: null, price: 23n * E, end: nowSec - 1 });
  await order('b6', C721, { ask: false, tokenId: 4, price: 22n * E });
  // the ERC-1155 token: one level of two orders (amounts 2 and 3), another of one
  await order('c1', C1155, { ask: true, tokenId: 7, price: 10n * E, amount: 2 });
  await order('c2', C1155, { ask: true, tokenId: 7, price: 10n * E, amount: 3 });
  await order('c3', C1155, { ask: true, tokenId: 7, price: 20n * E, amount: 1 });
  await sale(C721, 1, 10n * E, nowSec - 7200, 1);
  await sale(C721, 1, 20n * E, nowSec - 3600, 2);
  await sale(C721, 2, 15n * E, nowSec - 86_400, 3);
});
afterAll(() => app?.close());

/** The answer from the engine, checked equal to the resolvers' (text and status). */
async function both(query: string, variables: Record<string, unknown> = {}) {
  const ask = async (engine: boolean) => {
    const r = await answerVia(app, query, variables, engine);
    return { text: r.text, statements: r.statements.length };
  };
  const engine = await ask(true);
  const resolvers = await ask(false);
  expect(engine.text, query).toBe(resolvers.text);
  const body = JSON.parse(engine.text.slice(4));
  return { ...body, statements: engine.statements };
}

const TOKEN_FIELDS = 'id tokenId collectionAddress owners { owner balance } bestAsk { hash price } bestBid { hash price } lastSale { price timestamp } listedAt name image attributes { traitType }';

describe(`Token (${backendName})`, () => {
  it('best ask: the cheapest live fixed-price listing; cancelled, ended, future and private sale asks excluded; listedAt', async () => {
    const { data, statements } = await both(`{ t1: token(collection: "${C721}", tokenId: "1") { ${TOKEN_FIELDS} } t2: token(collection: "${C721.toLowerCase()}", tokenId: "2") { bestAsk { hash } listedAt } }`);
    expect(statements).toBe(1);
    expect(data.t1.bestAsk).toEqual({ hash: hashes.a2, price: (30n * E).toString() });
    expect(data.t1.listedAt).toBe(nowSec - 500); // stored after its startTime
    // a tie at 0.3 ETH goes to the older listing; listed when its startTime came (after it was stored)
    expect(data.t2).toEqual({ bestAsk: { hash: hashes.a6 }, listedAt: nowSec - 100 });
    expect(data.t1).toMatchObject({ tokenId: '1', collectionAddress: C721, name: null, image: null, attributes: null, owners: [{ owner: W[0], balance: '1' }] });
    expect(Buffer.from(data.t1.id, 'base64').toString()).toBe(`Token:${C721}:1`);
  });

  it('best bid: the higher of token offers and collection offers; the older wins a tie', async () => {
    const { data } = await both(`{ ${[1, 2, 3, 4].map((t) => `t${t}: token(collection: "${C721}", tokenId: "${t}") { bestBid { hash price } bestAsk { hash } listedAt }`).join(' ')} }`);
    // token 1: its offer 0.20 (0.25 cancelled) loses to the collection offer 0.22 (0.23 ended)
    expect(data.t1.bestBid).toEqual({ hash: hashes.b3, price: (22n * E).toString() });
    expect(data.t2.bestBid).toEqual({ hash: hashes.b4, price: (24n * E).toString() });
    // token 3: no token offer, no live listing (it starts later)
    expect(data.t3).toEqual({ bestBid: { hash: hashes.b3, price: (22n * E).toString() }, bestAsk: null, listedAt: null });
    // token 4: its own offer ties with the older collection offer
    expect(data.t4.bestBid.hash).toBe(hashes.b3);
  });

  it('last sale, ERC-1155 holders by balance, unknown tokens and collections are null', async () => {
    const { data } = await both(
      `{ t1: token(collection: "${C721}", tokenId: "1") { lastSale { price timestamp } } t4: token(collection: "${C721}", tokenId: "4") { lastSale { price } }
         e: token(collection: "${C1155}", tokenId: "7") { owners { owner balance } bestAsk { hash } }
         unknown: token(collection: "${C721}", tokenId: "5") { tokenId } none: token(collection: "${addr(0xee)}", tokenId: "1") { tokenId }
         nine: token(collection: "${C721}", tokenId: "9") { tokenId owners { owner } bestAsk { hash } } }`,
    );
    expect(data.t1.lastSale).toEqual({ price: (20n * E).toString(), timestamp: nowSec - 3600 });
    expect(data.t4.lastSale).toBeNull();
    const [first, second] = [W[0]!, W[2]!].sort();
    expect(data.e.owners).toEqual([
      { owner: first, balance: '5' },
      { owner: second, balance: '5' },
      { owner: W[1], balance: '3' },
    ]);
    expect(data.e.bestAsk.hash).toBe(hashes.c1);
    expect(data.unknown).toBeNull();
    expect(data.none).toBeNull();
    // known from an (expired) order alone: no holder, no live listing
    expect(data.nine).toEqual({ tokenId: '9', owners: [], bestAsk: null });
  });

  it('node(id) fetches a token again; a non-canonical id is null', async () => {
    const id = Buffer.from(`Token:${C721}:2`).toString('base64');
    const bad = Buffer.from(`Token:${C721.toLowerCase()}:2`).toString('base64');
    const res = await app.gql(`{ node(id: "${id}") { id ... on Token { tokenId bestAsk { hash } } } bad: node(id: "${bad}") { id } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ node: { id, tokenId: '2', bestAsk: { hash: hashes.a6 } }, bad: null });
  });
});

describe(`GET /api/v1/tokens (${backendName})`, () => {
  it('answers the token in the v1 envelope, its orders in the v1 order shape; null for an unknown token', async () => {
    const res = await app.rest(`/api/v1/tokens?collection=${C721.toLowerCase()}&tokenId=1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: null });
    const t = res.body.data;
    expect(Object.keys(t).sort()).toEqual(
      ['collectionAddress', 'tokenId', 'name', 'description', 'image', 'attributes', 'rarity', 'owners', 'bestAsk', 'bestBid', 'lastSale', 'listedAt',
        'tokenURI', 'imageURI', 'animationURI', 'isExplicit', 'isAnimated', 'flag'].sort(),
    );
    // v1's fields of a token whose metadata was never read
    expect(t).toMatchObject({ collectionAddress: C721, tokenId: '1', owners: [{ owner: W[0], balance: '1' }], listedAt: nowSec - 500 });
    expect(t).toMatchObject({ name: null, imageURI: null, tokenURI: null, attributes: null, isExplicit: false, isAnimated: false, flag: 'NO_IMAGE', rarity: null });
    expect(t.bestAsk).toMatchObject({ hash: hashes.a2, isOrderAsk: true, status: 'VALID', tokenId: '1', params: '' });
    expect(t.bestBid).toMatchObject({ hash: hashes.b3, tokenId: null, isOrderAsk: false });
    expect(t.lastSale).toMatchObject({ price: (20n * E).toString(), timestamp: nowSec - 3600 });
    expect((await app.rest(`/api/v1/tokens?collection=${C721}&tokenId=5`)).body).toEqual({ success: true, message: null, data: null });
  });

  it('answers 400 with every problem for missing or malformed parameters', async () => {
    const cases: [string, string[]][] = [
      ['', ['REQUIRED', 'REQUIRED']],
      [`?collection=${C721}`, ['REQUIRED']],
      ['?collection=0x12&tokenId=1', ['INVALID_ADDRESS']],
      [`?collection=${C721}&tokenId=-1`, ['INVALID_UINT256']],
      [`?collection=${C721}&tokenId=${1n << 256n}`, ['INVALID_UINT256']],
      [`?collection[]=${C721}&tokenId=1`, ['REQUIRED']],
    ];
    for (const [q, codes] of cases) {
      const res = await app.rest(`/api/v1/tokens${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.errors.map((e: { code: string }) => e.code), q).toEqual(codes);
    }
  });
});

describe(`tokens (${backendName})`, () => {
  const ids = (data: any) => data.tokens.edges.map((e: any) => e.node.tokenId);
  const page = (args: string) => both(`{ tokens(collection: "${C721}"${args}) { totalCount edges { cursor node { tokenId bestAsk { price } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);

  it('every known token, cheapest listing first, unlisted by token id; the other sorts and filters', async () => {
    const all = await page('');
    expect(ids(all.data)).toEqual(['1', '2', '3', '4', '9']);
    expect(all.data.tokens.totalCount).toBe(5);
    expect(all.statements).toBe(1);
    expect(ids((await page(', sort: PRICE_DESC')).data)).toEqual(['1', '2', '3', '4', '9']);
    expect(ids((await page(', sort: TOKEN_ID')).data)).toEqual(['1', '2', '3', '4', '9']);
    const listed = await page(', filter: { listed: true }');
    expect(ids(listed.data)).toEqual(['1', '2']);
    expect(listed.data.tokens.totalCount).toBe(2);
    expect(ids((await page(', filter: { listed: false }, sort: PRICE_DESC')).data)).toEqual(['3', '4', '9']);
    const erc1155 = await both(`{ tokens(collection: "${C1155}", sort: PRICE_DESC) { totalCount edges { node { tokenId bestAsk { price } } } } }`);
    expect(erc1155.data.tokens).toEqual({ totalCount: 1, edges: [{ node: { tokenId: '7', bestAsk: { price: (10n * E).toString() } } }] });
  });

  it('pages with the cursor: every token once, in order', async () => {
    for (const sort of ['PRICE_ASC', 'PRICE_DESC', 'TOKEN_ID']) {
      const seen: string[] = [];
      let after = '';
      for (let i = 0; i < 5; i++) {
        const { data } = await page(`, sort: ${sort}, first: 2${after}`);
        seen.push(...ids(data));
        expect(data.tokens.pageInfo.hasPreviousPage).toBe(after !== '');
        if (!data.tokens.pageInfo.hasNextPage) break;
        after = `, after: "${data.tokens.pageInfo.endCursor}"`;
      }
      expect(seen, sort).toEqual(['1', '2', '3', '4', '9']);
    }
    expect((await page(', first: 2')).data.tokens.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: `${30n * E}:1`, endCursor: `${30n * E}:2` });
  });

  it('pages backward (last/before) through the rows forward paging gives, in every sort and filter', async () => {
    for (const sort of ['PRICE_ASC', 'PRICE_DESC', 'TOKEN_ID']) {
      for (const filter of ['', ', filter: { listed: true }', ', filter: { listed: false }']) {
        for (const size of [1, 2]) {
          const forward = await expectBackwardMirrorsForward(async (args) => (await page(`, sort: ${sort}${filter}, ${args}`)).data.tokens, size);
          expect(forward.length, `${sort}${filter}`).toBe(filter === '' ? 5 : filter.includes('true') ? 2 : 3);
        }
      }
    }
    const last = await page(', last: 2');
    expect(ids(last.data)).toEqual(['4', '9']);
    expect(last.statements).toBe(1);
    expect(last.data.tokens.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('refuses bad arguments as the resolvers do', async () => {
    for (const args of [', first: 0', ', first: 151', ', after: "nonsense"', ', after: "1:-2"', ', first: 2, last: 2', ', last: 0', ', last: 2, before: "nonsense"']) {
      const { errors } = await page(args);
      expect(errors?.[0]?.extensions?.code, args).toMatch(/BAD_REQUEST|INVALID_CURSOR/);
    }
    const { errors } = await both(`{ token(collection: "${C721}", tokenId: "-1") { tokenId } }`);
    expect(errors[0].message).toMatch(/tokenId/);
  });
});

describe(`book depth (${backendName})`, () => {
  const LEVELS = 'side levelCount orderCount totalAmount minPrice maxPrice levels { price priceEth orderCount amount cumulativeAmount }';
  const level = (price: bigint, orderCount: number, amount: number, cumulative: number) => ({
    price: price.toString(),
    priceEth: `0.${price.toString().padStart(18, '0').replace(/0+$/, '')}`,
    orderCount,
    amount: String(amount),
    cumulativeAmount: String(cumulative),
  });

  it('a collection: asks ascending, bids descending, sums over the whole side, levels limited by first', async () => {
    const { data, statements } = await both(
      `{ collection(address: "${C721}") { asks: depth(side: ASK) { ${LEVELS} } bids: depth(side: BID, first: 2) { ${LEVELS} } } }`,
    );
    expect(statements).toBe(1);
    expect(data.collection.asks).toEqual({
      side: 'ASK', levelCount: 2, orderCount: 4, totalAmount: '4', minPrice: (30n * E).toString(), maxPrice: (50n * E).toString(),
      levels: [level(30n * E, 3, 3, 3), level(50n * E, 1, 1, 4)],
    });
    expect(data.collection.bids).toEqual({
      side: 'BID', levelCount: 3, orderCount: 4, totalAmount: '4', minPrice: (20n * E).toString(), maxPrice: (24n * E).toString(),
      levels: [level(24n * E, 1, 1, 1), level(22n * E, 2, 2, 3)],
    });
  });

  it('a token: its asks; its token offers with the collection offers; ERC-1155 amounts; an empty side', async () => {
    const { data } = await both(
      `{ t1: token(collection: "${C721}", tokenId: "1") { asks: depth(side: ASK) { ${LEVELS} } bids: depth(side: BID) { ${LEVELS} } }
         t3: token(collection: "${C721}", tokenId: "3") { depth(side: ASK, first: 1) { ${LEVELS} } }
         e: token(collection: "${C1155}", tokenId: "7") { depth(side: ASK) { levelCount totalAmount levels { price orderCount amount cumulativeAmount } } } }`,
    );
    expect(data.t1.asks.levels).toEqual([level(30n * E, 1, 1, 1), level(50n * E, 1, 1, 2)]);
    expect(data.t1.bids.levels).toEqual([level(22n * E, 1, 1, 1), level(20n * E, 1, 1, 2)]);
    expect(data.t3.depth).toEqual({ side: 'ASK', levelCount: 0, orderCount: 0, totalAmount: '0', minPrice: null, maxPrice: null, levels: [] });
    expect(data.e.depth).toEqual({
      levelCount: 2,
      totalAmount: '6',
      levels: [
        { price: (10n * E).toString(), orderCount: 2, amount: '5', cumulativeAmount: '5' },
        { price: (20n * E).toString(), orderCount: 1, amount: '1', cumulativeAmount: '6' },
      ],
    });
  });

  it('refuses a level count outside 1..100 as the resolvers do', async () => {
    for (const first of [0, 101]) {
      const { errors, data } = await both(`{ collection(address: "${C721}") { depth(side: ASK, first: ${first}) { levelCount } } }`);
      expect(errors[0].extensions.code).toBe('BAD_REQUEST');
      expect(data).toEqual({ collection: null });
    }
  });
});
