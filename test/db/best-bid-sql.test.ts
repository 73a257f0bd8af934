// The floor's and the best bid's moves are events of the log (FLOOR_CHANGE, BEST_BID_CHANGE),
// written in the transaction that records them: after a submission, at the catch-up when time alone
// ends the best bid, and not at all when nothing moved. Orders are written directly (as the
// floor-history test does) and through the REST API (a signed bid), and every event is checked.
import { getAddress, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floorCatchUpScript } from '../../src/db/floor-sql.js';
import { signWithEthers6, standardAsk } from '../helpers/maker-orders.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const T0 = Math.floor(FIXED_NOW.getTime() / 1000);
const COLLECTION = getAddress('0x' + '4d'.repeat(20));
let app: TestApp;
let seq = 0;

async function order(isOrderAsk: boolean, price: bigint, endTime = T0 + 1000, tokenId: string | null = String(++seq)) {
  seq++;
  const hash = '0x' + (0xb000 + seq).toString(16).padStart(64, '0');
  const net = app.config.network;
  await app.db.prisma.order.create({
    data: {
      hash,
      collectionAddress: COLLECTION,
      tokenId,
      isOrderAsk,
      signer: COLLECTION,
      strategy: tokenId === null ? net.strategies.collectionOffer[0]! : net.strategies.standardSale[0]!,
      currencyAddress: net.weth ?? COLLECTION,
      amount: '1',
      price: price.toString(),
      nonce: String(seq),
      startTime: BigInt(T0 - 100),
      endTime: BigInt(endTime),
      minPercentageToAsk: 9800,
      signature: '0x',
      v: 27,
      r: '0x' + '2'.repeat(64),
      s: '0x' + '3'.repeat(64),
      status: 'VALID',
    },
  });
  return hash;
}

/** The market-change events of the collection after `afterId`, oldest first. */
async function changes(afterId = '0') {
  return app.db.sql.query<{ id: string; type: string; price: string | null; orderHash: string | null }>(
    `SELECT id::text AS id, type::text AS type, price::text AS price, order_hash AS "orderHash" FROM market_events
      WHERE collection_address = $1 AND type IN ('FLOOR_CHANGE', 'BEST_BID_CHANGE') AND market_events.id > $2::bigint ORDER BY market_events.id`,
    [COLLECTION, afterId],
  );
}
const last = async () => (await app.db.sql.query<{ id: string }>(`SELECT COALESCE(max(id), 0)::text AS id FROM market_events`))[0]!.id;
const tick = () => app.db.sql.exec(floorCatchUpScript(app.services.now(), app.config.network.strategies.standardSale).join(';\n') + ';');

beforeAll(async () => {
  app = await startTestApp();
  app.clock.now = new Date(T0 * 1000);
  await app.db.prisma.collection.create({ data: { address: COLLECTION, owner: COLLECTION, type: 'ERC721', name: 'changes' } });
});
afterAll(() => app?.close());

describe(`floor and best-bid changes in the event log (${backendName})`, () => {
  it('writes one event per move of the floor or the best bid, with the new price and the best bid order, and none when nothing moved', async () => {
    const from = await last();
    await order(true, 50n);
    const bid1 = await order(false, 10n);
    await app.services.stats.recordFloor(COLLECTION);
    expect(await changes(from)).toEqual([
      expect.objectContaining({ type: 'FLOOR_CHANGE', price: '50', orderHash: null }),
      expect.objectContaining({ type: 'BEST_BID_CHANGE', price: '10', orderHash: bid1 }),
    ]);

    // nothing moved: nothing written
    const mark = await last();
    await order(true, 60n);
    await order(false, 9n);
    await app.services.stats.recordFloor(COLLECTION);
    expect(await changes(mark)).toEqual([]);

    // a higher collection offer and a cheaper listing: both move
    const bid2 = await order(false, 12n, T0 + 500, null);
    await order(true, 40n);
    await app.services.stats.recordFloor(COLLECTION);
    expect((await changes(mark)).map((e) => [e.type, e.price, e.orderHash])).toEqual([
      ['FLOOR_CHANGE', '40', null],
      ['BEST_BID_CHANGE', '12', bid2],
    ]);
  });

  it('the catch-up writes the best bid that time alone ended, and the cancelled one at the next write', async () => {
    const mark = await last();
    // bid2 (12) ends at T0 + 500: past it, the best bid is bid1's 10
    app.clock.now = new Date((T0 + 600) * 1000);
    await tick();
    const after = await changes(mark);
    expect(after.map((e) => [e.type, e.price])).toEqual([['BEST_BID_CHANGE', '10']]);
    await tick();
    expect(await changes(mark)).toHaveLength(1);

    // the best bid cancelled: the next write for the collection records the next one (9)
    const [best] = await app.db.sql.query<{ hash: string }>(`SELECT order_hash AS hash FROM collection_best_bids WHERE collection_address = $1`, [COLLECTION]);
    await app.db.sql.query(`UPDATE orders SET status = 'CANCELLED' WHERE hash = $1`, [best!.hash]);
    await tick();
    expect((await changes(mark)).map((e) => [e.type, e.price])).toEqual([['BEST_BID_CHANGE', '10'], ['BEST_BID_CHANGE', '9']]);
  });

  it('a bid submitted through the REST API moves the best bid, recorded by the grouped floor write', async () => {
    const mark = await last();
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const net = app.config.network;
    const bid = standardAsk(net, { signer: wallet.address, collection: COLLECTION, nonce: 1, now: T0 + 600 }, { isOrderAsk: false, price: '1000', tokenId: '3' });
    const res = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(await signWithEthers6(wallet, net.chainId, net.exchange, bid)) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // the bid's answer does not wait for the grouped write that records it
    for (let i = 0; i < 100 && (await changes(mark)).length === 0; i++) await new Promise((ok) => setTimeout(ok, 20));
    const moved = await changes(mark);
    expect(moved.map((e) => [e.type, e.price])).toEqual([['BEST_BID_CHANGE', '1000']]);
    expect(moved[0]!.orderHash).toBe(res.body.data.hash);
  });
});
