// Discovery for analysts against hand-computed expectations: collections ranked by each order
// with filters, paging and totalCount; sales by collection and time range; hourly and daily
// series of volume, sales count and floor; top bid and listed count per collection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerVia } from '../helpers/engine-answer.js';
import { expectBackwardMirrorsForward } from '../helpers/relay-pages.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = new Date('2026-06-01T12:30:00.000Z');
const H = 3_600_000;
const D = 24 * H;
const nowSec = NOW.getTime() / 1000;
const sec = (offsetMs: number) => (NOW.getTime() + offsetMs) / 1000;
const addr = (n: number) => `0x${n.toString(16).padStart(2, '0').repeat(20)}`;

let app: TestApp;
let A: string, B: string, C: string;
let seq = 0;

async function sale(collection: string, offsetMs: number, price: bigint) {
  const n = seq++;
  await app.services.sales.recordSale({
    collection,
    tokenId: BigInt(n),
    amount: 1n,
    price,
    currency: app.services.deps.network.weth,
    buyer: addr(0x11),
    seller: addr(0x22),
    orderHash: null,
    strategy: app.services.deps.network.strategies.standardSale[0]!,
    isTakerAsk: false,
    blockNumber: BigInt(1000 + n),
    txHash: `0x${n.toString(16).padStart(64, '0')}`,
    logIndex: 0,
    timestamp: new Date(NOW.getTime() + offsetMs),
  });
}

let orderSeq = 0;
async function order(collection: string, o: { ask: boolean; price: bigint; tokenId: number; status?: 'VALID' | 'CANCELLED'; start?: number; end?: number }) {
  const n = orderSeq++;
  const row = await app.db.prisma.order.create({
    data: {
      hash: `0x${(0xd15c0 + n).toString(16).padStart(64, '0')}`,
      collectionAddress: collection,
      tokenId: String(o.tokenId),
      isOrderAsk: o.ask,
      signer: addr(0x33),
      strategy: app.services.deps.network.strategies.standardSale[0]!,
      currencyAddress: app.services.deps.network.weth,
      amount: '1',
      price: o.price.toString(),
      nonce: String(n),
      startTime: BigInt(o.start ?? nowSec - 10 * 86_400),
      endTime: BigInt(o.end ?? nowSec + 10 * 86_400),
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

let bestBid: string;

beforeAll(async () => {
  app = await startTestApp({}, { now: NOW });
  const upsert = async (address: string, name: string, type: 'ERC721' | 'ERC1155', isVerified: boolean) =>
    (await app.services.collections.upsertCollection({ address, name, type, isVerified })).collection.address;
  A = await upsert(addr(0xa1), 'Alpha Apes', 'ERC721', true);
  B = await upsert(addr(0xb2), 'beta birds', 'ERC1155', false);
  C = await upsert(addr(0xc3), 'Gamma', 'ERC721', true);

  // A: 24h volume 300, the 24h before 50 (change +500.00), 7d 350
  await sale(A, -30 * H, 50n);
  await sale(A, -2 * H, 200n);
  await sale(A, -1 * H, 100n);
  // B: 24h volume 1000 with no sale the 24h before (change null), 7d 6000
  await sale(B, -3 * H, 1000n);
  await sale(B, -3 * D, 5000n);
  // C: nothing (change "0.00")

  // A's book: token 1 listed twice (floor 900), token 2 cancelled, token 3 not started yet
  await order(A, { ask: true, price: 1000n, tokenId: 1 });
  await order(A, { ask: true, price: 900n, tokenId: 1 });
  await order(A, { ask: true, price: 50n, tokenId: 2, status: 'CANCELLED' });
  await order(A, { ask: true, price: 60n, tokenId: 3, start: nowSec + 3600 });
  // offers: 300, 500 (best live), 800 cancelled, 700 ended
  await order(A, { ask: false, price: 300n, tokenId: 1 });
  bestBid = await order(A, { ask: false, price: 500n, tokenId: 2 });
  await order(A, { ask: false, price: 800n, tokenId: 1, status: 'CANCELLED' });
  await order(A, { ask: false, price: 700n, tokenId: 1, end: nowSec - 1 });
  await order(B, { ask: true, price: 400n, tokenId: 7 });

  // A's floor history (written directly: the points the series reads)
  await app.db.prisma.floorPoint.createMany({
    data: [
      { collectionAddress: A, floorPrice: '1200', at: new Date(NOW.getTime() - 2 * D - 7.5 * H) }, // 2026-05-30 05:00
      { collectionAddress: A, floorPrice: '1000', at: new Date(NOW.getTime() - 4.5 * H) }, // 08:00
      { collectionAddress: A, floorPrice: '900', at: new Date(NOW.getTime() - 2.25 * H) }, // 10:15
      { collectionAddress: A, floorPrice: null, at: new Date(NOW.getTime() - 1.5 * H) }, // 11:00 exactly
    ],
  });
});
afterAll(() => app?.close());

const names = (r: { data?: unknown }) => (r.data as any).collections.edges.map((e: any) => e.node.name);

describe(`discovery (${backendName})`, () => {
  it.each([
    ['VOLUME_24H', ['beta birds', 'Alpha Apes', 'Gamma']], // 1000, 300, 0
    ['VOLUME_7D', ['beta birds', 'Alpha Apes', 'Gamma']], // 6000, 350, 0
    ['FLOOR', ['beta birds', 'Alpha Apes', 'Gamma']], // 400, 900, none last
    ['CHANGE_24H', ['Alpha Apes', 'Gamma', 'beta birds']], // 500.00, 0.00, null last
    ['NAME', ['Alpha Apes', 'beta birds', 'Gamma']], // any letter case
  ])('collections(orderBy: %s)', async (orderBy, expected) => {
    const r = await app.gql(`{ collections(orderBy: ${orderBy}) { totalCount edges { node { name } } } }`);
    expect(r.errors).toBeUndefined();
    expect(names(r)).toEqual(expected);
    expect((r.data as any).collections.totalCount).toBe(3);
  });

  it('collections: filters, pages with the address cursor, counts all pages', async () => {
    const verified = await app.gql('{ collections(filter: { isVerified: true }) { totalCount edges { node { name } } } }');
    expect(names(verified)).toEqual(['Alpha Apes', 'Gamma']);
    expect(names(await app.gql('{ collections(filter: { type: ERC1155 }) { edges { node { name } } } }'))).toEqual(['beta birds']);
    expect(names(await app.gql('{ collections(filter: { nameContains: "BIRD" }) { edges { node { name } } } }'))).toEqual(['beta birds']);

    const p1 = (await app.gql('{ collections(orderBy: VOLUME_24H, first: 2) { totalCount edges { cursor node { name } } pageInfo { hasNextPage endCursor } } }')).data as any;
    expect(p1.collections.edges.map((e: any) => e.node.name)).toEqual(['beta birds', 'Alpha Apes']);
    expect(p1.collections.pageInfo).toEqual({ hasNextPage: true, endCursor: A });
    expect(p1.collections.totalCount).toBe(3);
    const p2 = (await app.gql(`{ collections(orderBy: VOLUME_24H, first: 2, after: "${A}") { totalCount edges { node { name } } pageInfo { hasNextPage } } }`)).data as any;
    expect(p2.collections.edges.map((e: any) => e.node.name)).toEqual(['Gamma']);
    expect(p2.collections.pageInfo.hasNextPage).toBe(false);

    const bad = await app.gql('{ collections(first: 151) { totalCount } }');
    expect(bad.status).toBe(400);
    expect(bad.errors![0]!.message).toBe('Invalid argument first: must be a whole number from 1 to 150');
  });

  it('sales: newest first, by collection, from inclusive, to exclusive, paged, counted', async () => {
    const q = (args: string) => app.gql(`{ sales${args ? `(${args})` : ''} { totalCount edges { cursor node { price timestamp collectionAddress } } pageInfo { hasNextPage endCursor } } }`);
    const all = (await q(`collection: "${A}"`)).data as any;
    expect(all.sales.edges.map((e: any) => e.node.price)).toEqual(['100', '200', '50']);
    expect(all.sales.totalCount).toBe(3);
    expect(all.sales.edges[0].node.timestamp).toBe(sec(-H));
    const window = (await q(`collection: "${A}", from: ${sec(-3 * H)}, to: ${sec(-H)}`)).data as any;
    expect(window.sales.edges.map((e: any) => e.node.price)).toEqual(['200']); // the sale at exactly `to` is out
    expect(window.sales.totalCount).toBe(1);
    expect(((await q(`from: ${sec(-3 * H)}`)).data as any).sales.totalCount).toBe(3); // A 200, A 100, B 1000
    expect(((await q('')).data as any).sales.totalCount).toBe(5);

    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 5; i++) {
      const page: any = (await q(`collection: "${A}", first: 1${after ? `, after: "${after}"` : ''}`)).data;
      seen.push(...page.sales.edges.map((e: any) => e.node.price));
      if (!page.sales.pageInfo.hasNextPage) break;
      after = page.sales.pageInfo.endCursor;
    }
    expect(seen).toEqual(['100', '200', '50']);
    expect((await q('after: "nope"')).errors![0]!.extensions!.code).toBe('INVALID_CURSOR');
  });

  it('collections and sales page backward (last/before) through the rows forward paging gives, engine = resolvers', async () => {
    /** One page's connection, from the engine, checked equal to the resolvers' answer. */
    const both = async (query: string, field: 'collections' | 'sales') => {
      const engine = await answerVia(app, query, {}, true);
      expect(engine.text, query).toBe((await answerVia(app, query, {}, false)).text);
      const body = JSON.parse(engine.text.slice(4));
      expect(body.errors, query).toBeUndefined();
      return body.data[field];
    };
    const INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
    for (const orderBy of ['VOLUME_24H', 'VOLUME_7D', 'FLOOR', 'CHANGE_24H', 'NAME']) {
      for (const filter of ['', ', filter: { isVerified: true }']) {
        for (const size of [1, 2]) {
          const page = (args: string) => both(`{ collections(orderBy: ${orderBy}${filter}, ${args}) { totalCount edges { cursor node { name } } ${INFO} } }`, 'collections');
          const list = await expectBackwardMirrorsForward(page, size);
          expect(list.length, `${orderBy}${filter}`).toBe(filter ? 2 : 3);
        }
      }
    }
    const last = await both(`{ collections(orderBy: VOLUME_24H, last: 2) { totalCount edges { node { name } } ${INFO} } }`, 'collections');
    expect(last.edges.map((e: any) => e.node.name)).toEqual(['Alpha Apes', 'Gamma']);
    expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true, startCursor: A });
    for (const args of ['', `collection: "${A}"`, `from: ${sec(-3 * H)}`]) {
      for (const size of [1, 2]) {
        const page = (paging: string) => both(`{ sales(${[args, paging].filter(Boolean).join(', ')}) { totalCount edges { cursor node { price } } ${INFO} } }`, 'sales');
        await expectBackwardMirrorsForward(page, size);
      }
    }
    const code = async (q: string) => (await app.gql(q)).errors?.[0]?.extensions?.code;
    expect(await code('{ collections(first: 1, last: 1) { totalCount } }')).toBe('BAD_REQUEST');
    expect(await code(`{ collections(last: 1, before: "${addr(0xee)}") { totalCount } }`)).toBe('INVALID_CURSOR');
    expect(await code('{ sales(first: 1, last: 1) { totalCount } }')).toBe('BAD_REQUEST');
    expect(await code('{ sales(last: 151) { totalCount } }')).toBe('BAD_REQUEST');
    expect(await code('{ sales(last: 1, before: "nope") { totalCount } }')).toBe('INVALID_CURSOR');
    expect(await code('{ sales(last: 1, before: "999999") { totalCount } }')).toBe('INVALID_CURSOR');
  });

  it('series: hourly and daily volume, sales count and floor at the end of each interval', async () => {
    const hourly = await app.gql(`{ collection(address: "${A}") { series(resolution: HOUR, from: ${sec(-3 * H)}) { start volume salesCount floorPrice } } }`);
    expect(hourly.errors).toBeUndefined();
    const t = (iso: string) => new Date(iso).getTime() / 1000;
    expect((hourly.data as any).collection.series).toEqual([
      { start: t('2026-06-01T09:00:00Z'), volume: '0', salesCount: 0, floorPrice: '1000' },
      { start: t('2026-06-01T10:00:00Z'), volume: '200', salesCount: 1, floorPrice: '900' },
      { start: t('2026-06-01T11:00:00Z'), volume: '100', salesCount: 1, floorPrice: null },
    ]);
    const daily = await app.gql(`{ collection(address: "${A}") { series(resolution: DAY, from: ${sec(-2 * D)}, to: ${nowSec}) { start volume salesCount floorPrice } } }`);
    expect((daily.data as any).collection.series).toEqual([
      { start: t('2026-05-30T00:00:00Z'), volume: '0', salesCount: 0, floorPrice: '1200' },
      { start: t('2026-05-31T00:00:00Z'), volume: '50', salesCount: 1, floorPrice: '1200' },
    ]);
    const tooMany = await app.gql(`{ collection(address: "${A}") { series(resolution: HOUR, from: ${sec(-50 * D)}) { start } } }`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.errors![0]!.extensions!.code).toBe('BAD_REQUEST');
  });

  it('top bid (best live VALID offer) and listed count (distinct tokens listed now), batched', async () => {
    const r = await app.gql('{ collections(orderBy: NAME) { edges { node { name listedCount topBid { hash price isOrderAsk } } } } }');
    expect(r.errors).toBeUndefined();
    expect((r.data as any).collections.edges.map((e: any) => e.node)).toEqual([
      { name: 'Alpha Apes', listedCount: 1, topBid: { hash: bestBid, price: '500', isOrderAsk: false } },
      { name: 'beta birds', listedCount: 1, topBid: null },
      { name: 'Gamma', listedCount: 0, topBid: null },
    ]);
  });

  it('top bid ties go to the oldest offer by id as a number (id 999 before id 1000), on the engine and the resolvers', async () => {
    const older = await order(C, { ask: false, price: 70n, tokenId: 1 });
    const newer = await order(C, { ask: false, price: 70n, tokenId: 2 });
    // ids whose text order is the reverse of their numeric order
    await app.db.sql.query('UPDATE orders SET id = 999 WHERE hash = $1', [older]);
    await app.db.sql.query('UPDATE orders SET id = 1000 WHERE hash = $1', [newer]);
    for (const readEngine of [true, false]) {
      app.services.deps.config.readEngine = readEngine;
      const r = await app.gql(`{ collection(address: "${C}") { topBid { hash } } }`);
      app.services.deps.config.readEngine = true;
      expect((r.data as any).collection.topBid.hash, `read engine ${readEngine}`).toBe(older);
    }
    await app.db.sql.query('DELETE FROM orders WHERE hash = ANY($1::text[])', [[older, newer]]);
  });
});
