// Wei amounts stay decimal strings of wei; the *Eth fields beside them render the same amount in
// ETH for people: Order.priceEth, Sale.priceEth, and every wei field of
// CollectionStats. Exact: the Eth string times 10^18 is the wei string.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
let app: TestApp;

const toWei = (eth: string) => {
  const [whole, fraction = ''] = eth.split('.');
  return (BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'))).toString();
};

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW);
  for (const [i, price] of [1_500_000_000_000_000_000n, 1n].entries()) {
    await app.services.sales.recordSale({
      collection: fixtureCollections[0]!,
      tokenId: BigInt(i + 1),
      amount: 1n,
      price,
      currency: app.config.network.weth,
      buyer: '0x' + '11'.repeat(20),
      seller: '0x' + '22'.repeat(20),
      orderHash: null,
      strategy: app.config.network.strategies.standardSale[0]!,
      isTakerAsk: false,
      blockNumber: BigInt(100 + i),
      txHash: `0x${(i + 1).toString(16).padStart(64, '0')}`,
      logIndex: 0,
      timestamp: new Date(FIXED_NOW.getTime() - 3600_000 * (i + 1)),
    });
  }
});
afterAll(() => app?.close());

describe(`ETH renderings beside wei (${backendName})`, () => {
  it('Order.priceEth, Sale.priceEth and the CollectionStats *Eth fields equal their wei fields', async () => {
    const r = await app.gql(
      `query($c: Address!) {
        orders(first: 50) { edges { node { price priceEth } } }
        sales(collection: $c, first: 5) { edges { node { price priceEth } } }
        collection(address: $c) { stats { floorPrice floorPriceEth marketCap marketCapEth volumeAll volumeAllEth averageAll averageAllEth
          volume24h volume24hEth average24h average24hEth volume1y volume1yEth } }
      }`,
      { c: fixtureCollections[0] },
    );
    expect(r.errors).toBeUndefined();
    const data = r.data as any;
    expect(data.orders.edges.length).toBe(50);
    for (const { node } of data.orders.edges) expect(toWei(node.priceEth)).toBe(node.price);
    expect(data.sales.edges.map((e: any) => e.node.priceEth)).toEqual(['1.5', '0.000000000000000001']);
    const stats = data.collection.stats;
    expect(stats.volumeAllEth).toBe('1.500000000000000001');
    for (const f of ['floorPrice', 'marketCap', 'volumeAll', 'averageAll', 'volume24h', 'average24h', 'volume1y']) {
      if (stats[f] === null) expect(stats[`${f}Eth`], f).toBeNull();
      else expect(toWei(stats[`${f}Eth`]), f).toBe(stats[f]);
    }
  });

  it('priceEth reads the price column only (the read plan knows it)', async () => {
    const log = app.testDb.statements;
    log.length = 0;
    // rendered by the read engine, and by the resolvers over the column plan
    for (const readEngine of [true, false]) {
      app.services.deps.config.readEngine = readEngine;
      log.length = 0;
      const r = await app.gql('{ orders(first: 3) { edges { node { priceEth } } } }');
      app.services.deps.config.readEngine = true;
      expect(r.errors).toBeUndefined();
      const orderSql = log.find((s) => /FROM orders o/.test(s))!;
      expect(orderSql).toMatch(/o\d*\.price/);
      expect(orderSql).not.toContain('.signature');
    }
  });
});
