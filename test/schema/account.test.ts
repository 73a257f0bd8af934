// Account against a hand-computed market, on this backend, each answer asked twice: from the read
// engine and from the resolvers (READ_ENGINE off), which must agree byte for byte. The market has
// what the rules exclude (cancelled, ended, future offers, the account's own offers, an ERC-1155
// offer for more than it holds, a private-sale strategy), a collection offer that beats a token
// offer, prices beyond 2^53, and an ERC-1155 balance that multiplies the values.
import { getAddress } from 'ethers';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerVia } from '../helpers/engine-answer.js';
import { expectBackwardMirrorsForward } from '../helpers/relay-pages.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = new Date('2026-06-01T12:30:00.000Z');
const nowSec = NOW.getTime() / 1000;
const E = 10n ** 16n; // 0.01 ETH
const HUGE = (1n << 200n) + 7n;
const addr = (n: number) => getAddress(`0x${n.toString(16).padStart(2, '0').repeat(20)}`);

let app: TestApp;
const [C721, C1155, OTHER] = [addr(0xa7), addr(0xb1), addr(0xc4)];
// ME holds tokens; W1..W3 make offers; NOBODY holds nothing
const ME = addr(0x1a);
const W = [addr(0x2b), addr(0x3c), addr(0x4d)];
const NOBODY = addr(0x99);
const hashes: Record<string, string> = {};

type Kind = 'standardSale' | 'collectionOffer' | 'privateSale';
let seq = 0;
async function order(name: string, collection: string, o: { ask: boolean; price: bigint; tokenId: bigint | null; signer: string; kind?: Kind; status?: 'VALID' | 'CANCELLED'; start?: number; end?: number; amount?: number }) {
  const n = seq++;
  const row = await app.db.prisma.order.create({
    data: {
      hash: `0x${(0xacc0 + n).toString(16).padStart(64, '0')}`,
      collectionAddress: collection,
      tokenId: o.tokenId === null ? null : o.tokenId.toString(),
      isOrderAsk: o.ask,
      signer: o.signer,
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
      createdAt: new Date((nowSec - 4000 + n) * 1000),
    },
  });
  hashes[name] = row.hash;
}

beforeAll(async () => {
  app = await startTestApp({}, { now: NOW });
  for (const [address, type] of [[C721, 'ERC721'], [C1155, 'ERC1155'], [OTHER, 'ERC721']] as const) {
    expect((await app.services.collections.upsertCollection({ address, name: type, type })).collection.address).toBe(address);
  }
  await app.db.prisma.tokenBalance.createMany({
    data: [
      { collectionAddress: C721, tokenId: '1', owner: ME, balance: '1' },
      { collectionAddress: C721, tokenId: '2', owner: ME, balance: '1' },
      { collectionAddress: C721, tokenId: HUGE.toString(), owner: ME, balance: '1' },
      { collectionAddress: C721, tokenId: '3', owner: W[0]!, balance: '1' },
      { collectionAddress: C1155, tokenId: '7', owner: ME, balance: '5' },
      { collectionAddress: C1155, tokenId: '7', owner: W[1]!, balance: '3' },
      { collectionAddress: C1155, tokenId: '8', owner: ME, balance: '0' },
      { collectionAddress: OTHER, tokenId: '1', owner: W[2]!, balance: '1' },
    ],
  });
  // the ERC-721 floor: 0.30 (a cheaper one cancelled, a private sale not counted)
  await order('a1', C721, { ask: true, tokenId: 3n, price: 30n * E, signer: W[0]! });
  await order('a2', C721, { ask: true, tokenId: 1n, price: 50n * E, signer: ME });
  await order('a3', C721, { ask: true, tokenId: 3n, price: 10n * E, signer: W[0]!, status: 'CANCELLED' });
  await order('a4', C721, { ask: true, tokenId: 3n, price: 1n * E, signer: W[0]!, kind: 'privateSale' });
  // the ERC-1155 floor: beyond 2^53 wei by far
  await order('a5', C1155, { ask: true, tokenId: 7n, price: HUGE, signer: W[1]! });
  // bids on what ME holds
  await order('b1', C721, { ask: false, tokenId: 1n, price: 20n * E, signer: W[0]! });
  await order('b2', C721, { ask: false, tokenId: null, price: 22n * E, signer: W[1]! });
  await order('b3', C721, { ask: false, tokenId: 2n, price: 24n * E, signer: W[2]! });
  await order('b4', C721, { ask: false, tokenId: 2n, price: 24n * E, signer: W[0]! }); // a tie: newer
  await order('b5', C721, { ask: false, tokenId: 1n, price: 90n * E, signer: ME }); // its own
  await order('b6', C721, { ask: false, tokenId: 1n, price: 80n * E, signer: W[0]!, status: 'CANCELLED' });
  await order('b7', C721, { ask: false, tokenId: null, price: 70n * E, signer: W[1]!, end: nowSec - 1 });
  await order('b8', C721, { ask: false, tokenId: 2n, price: 60n * E, signer: W[1]!, start: nowSec + 60 });
  await order('b9', C721, { ask: false, tokenId: 3n, price: 40n * E, signer: W[1]! }); // a token ME does not hold
  await order('b10', C1155, { ask: false, tokenId: 7n, price: 3n * E, signer: W[2]!, amount: 5 });
  await order('b11', C1155, { ask: false, tokenId: 7n, price: 9n * E, signer: W[2]!, amount: 6 }); // more than ME holds
  await order('b12', C1155, { ask: false, tokenId: 8n, price: 9n * E, signer: W[2]! }); // balance 0
  await order('b13', OTHER, { ask: false, tokenId: null, price: 99n * E, signer: W[1]! }); // a collection ME holds nothing of
  await order('b14', C721, { ask: false, tokenId: HUGE, price: HUGE, signer: W[2]! });
  await order('b15', C721, { ask: false, tokenId: 1n, price: 21n * E, signer: W[0]!, kind: 'collectionOffer' }); // not a token offer strategy
});
afterAll(() => app?.close());

/** The engine's statements (it builds JSON text): the service's timers (floor catch-up, deliveries) may log theirs meanwhile. */
const engineStatements = (list: string[]) => list.filter((s) => s.includes(`'{"`));

/** The answer from the engine, checked equal to the resolvers' (text and status). */
async function both(query: string, variables: Record<string, unknown> = {}) {
  const engine = await answerVia(app, query, variables, true);
  const resolvers = await answerVia(app, query, variables, false);
  expect(engine.text, query).toBe(resolvers.text);
  return { ...JSON.parse(engine.text.slice(4)), statements: engineStatements(engine.statements).length };
}

const OFFERS = 'totalCount edges { cursor node { hash price signer tokenId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const HOLDINGS =
  'totalCount valueAtFloor valueAtBestBid edges { cursor node { balance floorPrice valueAtFloor bestBidPrice valueAtBestBid token { id tokenId collectionAddress bestAsk { hash } bestBid { hash } owners { owner balance } listedAt } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

describe(`Account (${backendName})`, () => {
  it('is a Node for every address, in one statement', async () => {
    const { data, statements, errors } = await both(`{ account(address: "${ME.toLowerCase()}") { id address __typename } }`);
    expect(errors).toBeUndefined();
    expect(statements).toBe(1);
    expect(data.account).toEqual({ id: Buffer.from(`Account:${ME}`).toString('base64'), address: ME, __typename: 'Account' });
    const again = await app.gql(`query($id: ID!) { node(id: $id) { ... on Account { address } } }`, { id: data.account.id });
    expect(again.data).toEqual({ node: { address: ME } });
  });

  it('offersReceived: live bids on what it holds, best first, none of its own; pages with the order hash', async () => {
    const { data, statements } = await both(`{ account(address: "${ME}") { offersReceived(first: 150) { ${OFFERS} } } }`);
    expect(statements).toBe(1);
    const want = ['b14', 'b3', 'b4', 'b2', 'b1', 'b10'].map((n) => hashes[n]);
    const got = data.account.offersReceived;
    expect(got.edges.map((e: any) => e.node.hash)).toEqual(want);
    expect(got.totalCount).toBe(6);
    expect(got.edges[0].node.price).toBe(HUGE.toString());
    const seen: string[] = [];
    let after = '';
    for (let i = 0; i < 6; i++) {
      const page = (await both(`{ account(address: "${ME}") { offersReceived(first: 4${after}) { ${OFFERS} } } }`)).data.account.offersReceived;
      seen.push(...page.edges.map((e: any) => e.cursor));
      expect(page.totalCount).toBe(6);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== '');
      if (!page.pageInfo.hasNextPage) break;
      after = `, after: "${page.pageInfo.endCursor}"`;
    }
    expect(seen).toEqual(want);
    const only1155 = (await both(`{ account(address: "${ME}") { offersReceived(collection: "${C1155}") { ${OFFERS} } } }`)).data.account.offersReceived;
    expect(only1155.edges.map((e: any) => e.node.hash)).toEqual([hashes.b10]);
    // a page of one: the better offers of the other collections must not take the page's rows
    const firstOf1155 = (await both(`{ account(address: "${ME}") { offersReceived(collection: "${C1155}", first: 1) { ${OFFERS} } } }`)).data.account.offersReceived;
    expect(firstOf1155.edges.map((e: any) => e.node.hash)).toEqual([hashes.b10]);
    // W[1] holds 3 of token 7: the offers for 5 and 6 are more than it has
    const w1 = (await both(`{ account(address: "${W[1]}") { offersReceived { ${OFFERS} } } }`)).data.account.offersReceived;
    expect(w1.edges).toEqual([]);
    expect(w1.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  });

  it('holdings: each token with its market, valued at the floor and the best bid; totals over every holding', async () => {
    const { data, statements } = await both(`{ account(address: "${ME}") { holdings(first: 150) { ${HOLDINGS} } } }`);
    expect(statements).toBe(1);
    const h = data.account.holdings;
    // by collection address in code-unit order ("0xB1..." before "0xa7..."), then token id as a number
    expect(C1155 < C721).toBe(true);
    expect(h.edges.map((e: any) => e.cursor)).toEqual([`${C1155}:7`, `${C721}:1`, `${C721}:2`, `${C721}:${HUGE}`]);
    const by = Object.fromEntries(h.edges.map((e: any) => [e.cursor, e.node]));
    expect(by[`${C721}:1`]).toMatchObject({ balance: '1', floorPrice: (30n * E).toString(), valueAtFloor: (30n * E).toString(), bestBidPrice: (90n * E).toString(), valueAtBestBid: (90n * E).toString() });
    // the token's best bid is Token.bestBid, whoever made it (here the holder itself)
    expect(by[`${C721}:1`].token).toMatchObject({ tokenId: '1', bestAsk: { hash: hashes.a2 }, bestBid: { hash: hashes.b5 }, owners: [{ owner: ME, balance: '1' }] });
    expect(by[`${C721}:2`]).toMatchObject({ bestBidPrice: (24n * E).toString(), token: { bestBid: { hash: hashes.b3 }, bestAsk: null, listedAt: null } });
    expect(by[`${C721}:${HUGE}`]).toMatchObject({ bestBidPrice: HUGE.toString(), valueAtBestBid: HUGE.toString() });
    expect(by[`${C1155}:7`]).toMatchObject({ balance: '5', floorPrice: HUGE.toString(), valueAtFloor: (HUGE * 5n).toString(), bestBidPrice: (9n * E).toString(), valueAtBestBid: (45n * E).toString() });
    expect(h.totalCount).toBe(4);
    expect(h.valueAtFloor).toBe((3n * 30n * E + 5n * HUGE).toString());
    expect(h.valueAtBestBid).toBe((90n * E + 24n * E + HUGE + 45n * E).toString());
    // the totals are the account's, whatever the page
    const first = (await both(`{ account(address: "${ME}") { holdings(first: 1) { ${HOLDINGS} } } }`)).data.account.holdings;
    expect(first).toMatchObject({ totalCount: 4, valueAtFloor: h.valueAtFloor, valueAtBestBid: h.valueAtBestBid, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const rest = (await both(`{ account(address: "${ME}") { holdings(first: 150, after: "${first.pageInfo.endCursor}") { ${HOLDINGS} } } }`)).data.account.holdings;
    expect([...first.edges, ...rest.edges]).toEqual(h.edges);
    const one = (await both(`{ account(address: "${ME}") { holdings(collection: "${C1155}") { totalCount valueAtFloor edges { node { balance } } } } }`)).data.account.holdings;
    expect(one).toEqual({ totalCount: 1, valueAtFloor: (5n * HUGE).toString(), edges: [{ node: { balance: '5' } }] });
    const none = (await both(`{ account(address: "${NOBODY}") { holdings { ${HOLDINGS} } } }`)).data.account.holdings;
    expect(none).toEqual({ totalCount: 0, valueAtFloor: '0', valueAtBestBid: '0', edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
  });

  it('offersReceived and holdings page backward (last/before) through the rows forward paging gives', async () => {
    for (const size of [1, 2, 4]) {
      const offers = await expectBackwardMirrorsForward(async (args) => (await both(`{ account(address: "${ME}") { offersReceived(${args}) { ${OFFERS} } } }`)).data.account.offersReceived, size);
      expect(offers).toEqual(['b14', 'b3', 'b4', 'b2', 'b1', 'b10'].map((n) => hashes[n]));
      const held = await expectBackwardMirrorsForward(async (args) => (await both(`{ account(address: "${ME}") { holdings(${args}) { ${HOLDINGS} } } }`)).data.account.holdings, size);
      expect(held).toEqual([`${C1155}:7`, `${C721}:1`, `${C721}:2`, `${C721}:${HUGE}`]);
    }
    // the totals are the account's on a backward page too, in one statement
    const { data, statements } = await both(`{ account(address: "${ME}") { holdings(last: 1) { ${HOLDINGS} } } }`);
    expect(statements).toBe(1);
    expect(data.account.holdings).toMatchObject({ totalCount: 4, pageInfo: { hasNextPage: false, hasPreviousPage: true, endCursor: `${C721}:${HUGE}` } });
  });

  it('offersReceived pages through a collection with many offers, ties on price included, in both directions', async () => {
    // each held token and collection gives a page only its first offers past the cursor (and
    // those tied with the last on price): a deep book with ties, own, ended and cancelled offers
    // between them must still page to exactly the hand-computed order
    const DEEP = addr(0x5e);
    const DC = addr(0xd5);
    expect((await app.services.collections.upsertCollection({ address: DC, name: 'deep', type: 'ERC721' })).collection.address).toBe(DC);
    await app.db.prisma.tokenBalance.createMany({ data: [{ collectionAddress: DC, tokenId: '4', owner: DEEP, balance: '1' }] });
    const offer = (name: string, price: bigint, o: { token?: boolean; signer?: string; status?: 'CANCELLED'; end?: number } = {}) =>
      order(name, DC, { ask: false, tokenId: o.token ? 4n : null, price: price * E, signer: o.signer ?? W[seq % 3]!, status: o.status, end: o.end });
    await offer('d1', 5n);
    await offer('d2', 7n);
    await offer('d3', 7n);
    await offer('d4', 9n, { signer: DEEP });
    await offer('d5', 7n, { token: true });
    await offer('d6', 3n);
    await offer('d7', 8n, { status: 'CANCELLED' });
    await offer('d8', 7n);
    await offer('d9', 6n, { token: true });
    await offer('d10', 8n, { end: nowSec - 10 });
    await offer('d11', 6n);
    await offer('d12', 4n, { token: true });
    const want = ['d2', 'd3', 'd5', 'd8', 'd9', 'd11', 'd1', 'd12', 'd6'].map((n) => hashes[n]);
    const all = (await both(`{ account(address: "${DEEP}") { offersReceived(first: 50) { ${OFFERS} } } }`)).data.account.offersReceived;
    expect(all.edges.map((e: any) => e.cursor)).toEqual(want);
    expect(all.totalCount).toBe(9);
    for (const size of [1, 2, 3]) {
      const seen = await expectBackwardMirrorsForward(async (args) => (await both(`{ account(address: "${DEEP}") { offersReceived(${args}) { ${OFFERS} } } }`)).data.account.offersReceived, size);
      expect(seen).toEqual(want);
    }
  });

  it('orders: its orders as maker, the root filter with the signer pinned', async () => {
    const { data, statements } = await both(
      `{ account(address: "${ME}") { all: orders(first: 50) { totalCount edges { node { hash } } } bids: orders(filter: { isOrderAsk: false, signer: "${W[0]}" }) { totalCount edges { node { hash collection { address } } } } } }`,
    );
    expect(statements).toBe(1);
    expect(data.account.all.edges.map((e: any) => e.node.hash)).toEqual([hashes.b5, hashes.a2]);
    expect(data.account.bids).toEqual({ totalCount: 1, edges: [{ node: { hash: hashes.b5, collection: { address: C721 } } }] });
  });

  it('refuses bad input with typed errors, as the resolvers do', async () => {
    const code = async (q: string) => {
      const { errors } = await both(q);
      return errors?.[0]?.extensions?.code;
    };
    // an address is the Address scalar's, refused as every Address argument is (docs/api.md, "Errors")
    for (const [doc, vars] of [[`{ account(address: "0x12") { address } }`, {}], [`query($a: Address!) { account(address: $a) { address } }`, { a: 'nope' }]] as const) {
      const { errors, data } = await both(doc, vars);
      expect(errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', problems: [{ code: 'INVALID_ADDRESS' }] });
      expect(data).toBeUndefined();
    }
    expect(await code(`{ account(address: "${ME}") { offersReceived(first: 151) { totalCount } } }`)).toBe('BAD_REQUEST');
    expect(await code(`{ account(address: "${ME}") { offersReceived(first: 2, last: 2) { totalCount } } }`)).toBe('BAD_REQUEST');
    expect(await code(`{ account(address: "${ME}") { holdings(last: 151) { totalCount } } }`)).toBe('BAD_REQUEST');
    expect(await code(`{ account(address: "${ME}") { offersReceived(last: 2, before: "0x${'e'.repeat(64)}") { totalCount } } }`)).toBe('INVALID_CURSOR');
    expect(await code(`{ account(address: "${ME}") { holdings(last: 2, before: "nope") { totalCount } } }`)).toBe('INVALID_CURSOR');
    expect(await code(`{ account(address: "${ME}") { offersReceived(after: "0x12") { totalCount } } }`)).toBe('INVALID_CURSOR');
    expect(await code(`{ account(address: "${ME}") { offersReceived(after: "0x${'e'.repeat(64)}") { totalCount } } }`)).toBe('INVALID_CURSOR');
    expect(await code(`{ account(address: "${ME}") { holdings(first: 0) { totalCount } } }`)).toBe('BAD_REQUEST');
    expect(await code(`{ account(address: "${ME}") { holdings(after: "${C721}:-1") { totalCount } } }`)).toBe('INVALID_CURSOR');
    expect(await code(`{ account(address: "${ME}") { orders(first: 0) { totalCount } } }`)).toBe('BAD_REQUEST');
    expect(await code(`{ account(address: "${ME}") { activity(after: "x") { totalCount } } }`)).toBe('INVALID_CURSOR');
  });
});

// ---- random documents: engine and resolvers byte for byte ---------------------------------------

const accountDoc = fc
  .record({
    who: fc.constantFrom(ME, W[0]!, W[1]!, W[2]!, NOBODY),
    offers: fc.option(
      fc.record({
        first: fc.integer({ min: 1, max: 4 }),
        back: fc.boolean(),
        after: fc.option(fc.constantFrom('b3', 'b2', 'b10', 'a1'), { nil: undefined }),
        before: fc.option(fc.constantFrom('b14', 'b4', 'b1', 'a1'), { nil: undefined }),
        collection: fc.option(fc.constantFrom(C721, C1155), { nil: undefined }),
      }),
      { nil: undefined },
    ),
    holdings: fc.option(
      fc.record({
        first: fc.integer({ min: 1, max: 3 }),
        back: fc.boolean(),
        after: fc.option(fc.constantFrom('1', '2', '7'), { nil: undefined }),
        before: fc.option(fc.constantFrom('2', '7', `${HUGE}`), { nil: undefined }),
        collection: fc.option(fc.constantFrom(C721, C1155), { nil: undefined }),
      }),
      { nil: undefined },
    ),
    orders: fc.option(fc.record({ first: fc.integer({ min: 1, max: 4 }), ask: fc.option(fc.boolean(), { nil: undefined }), back: fc.boolean() }), { nil: undefined }),
    activity: fc.option(fc.record({ first: fc.integer({ min: 1, max: 4 }), types: fc.option(fc.constantFrom('[OFFER]', '[LIST, COLLECTION_OFFER]'), { nil: undefined }) }), { nil: undefined }),
    id: fc.boolean(),
  })
  .map((a) => {
    const args = (parts: string[]) => (parts.filter(Boolean).length ? `(${parts.filter(Boolean).join(', ')})` : '');
    const sel = [
      a.id ? 'id' : 'address',
      a.offers
        ? `offersReceived${args([`${a.offers.back ? 'last' : 'first'}: ${a.offers.first}`, a.offers.after ? `after: "${hashes[a.offers.after]}"` : '', a.offers.before ? `before: "${hashes[a.offers.before]}"` : '', a.offers.collection ? `collection: "${a.offers.collection}"` : ''])} { totalCount edges { cursor node { hash price collection { name } } } pageInfo { hasNextPage hasPreviousPage endCursor } }`
        : '',
      a.holdings
        ? `holdings${args([`${a.holdings.back ? 'last' : 'first'}: ${a.holdings.first}`, a.holdings.after ? `after: "${C721}:${a.holdings.after}"` : '', a.holdings.before ? `before: "${C721}:${a.holdings.before}"` : '', a.holdings.collection ? `collection: "${a.holdings.collection}"` : ''])} { valueAtBestBid totalCount edges { node { valueAtFloor balance token { tokenId bestBid { hash } lastSale { price } } } } pageInfo { hasNextPage hasPreviousPage startCursor } }`
        : '',
      a.orders ? `orders(${a.orders.back ? 'last' : 'first'}: ${a.orders.first}${a.orders.ask === undefined ? '' : `, filter: { isOrderAsk: ${a.orders.ask} }`}) { totalCount edges { cursor node { hash status } } }` : '',
      a.activity ? `activity(first: ${a.activity.first}${a.activity.types ? `, filter: { types: ${a.activity.types} }` : ''}) { totalCount edges { node { type from tokenId order { hash } } } pageInfo { hasNextPage } }` : '',
    ].filter(Boolean);
    return `{ account(address: "${a.who}") { ${sel.join(' ')} } }`;
  });

describe(`Account by the read engine (${backendName})`, () => {
  it('answers random documents as the resolvers do, in one statement', async () => {
    await fc.assert(
      fc.asyncProperty(accountDoc, async (query) => {
        const engine = await answerVia(app, query, {}, true);
        const resolvers = await answerVia(app, query, {}, false);
        expect(engine.text, query).toBe(resolvers.text);
        expect(engineStatements(engine.statements), query).toHaveLength(1);
      }),
      { numRuns: Number(process.env.READ_ENGINE_RUNS ?? 60) },
    );
  }, 300_000);
});
