// A read that waits for a transaction, on a local EVM with the service's own indexer running (as
// `npm start` runs it): a buyer sends the fill the fulfillment query returned, then reads the
// order with X-Wait-For-Tx (or the GraphQL request's extensions.txHash) at once; the answer comes
// when the indexer has indexed the fill's block, and shows the order EXECUTED, stamped with a
// block at or above the fill's. A transaction that is never mined runs out the wait and says so.
import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTION_OFFER, registerCollections, STANDARD, startWorld, storeOrder, type World, worldEnv } from '../helpers/indexer-world.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const ETH = 10n ** 18n;
let w: World;
let app: TestApp;
let nowSec: number;
const wallet = (i: number): Wallet => w.evm.wallets[i]!;

const FULFILLMENT = `query F($hash: Hash!, $taker: Address!) { fulfillment(hash: $hash, taker: $taker) { ready transaction { to data value } } }`;
const ORDER = `query O($hash: Hash!) { order(hash: $hash) { hash status } }`;

async function gql(query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}, extensions?: Record<string, unknown>) {
  const res = await app.yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables, ...(extensions ? { extensions } : {}) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** Lists token `id` for `price` and sends the fill the service returns for `buyer`; the fill's hash and block. */
async function sendFill(id: number, nonce: bigint): Promise<{ order: string; tx: string; block: number }> {
  const seller = wallet(2);
  const buyer = wallet(3);
  await (await w.c.erc721.connect(wallet(0)).mint(seller.address, id)).wait();
  const listing = await storeOrder(app.testDb.db, w, seller, { collection: w.c.addresses.erc721, tokenId: BigInt(id), nonce, price: ETH }, nowSec);
  const f = await gql(FULFILLMENT, { hash: listing.hash, taker: buyer.address });
  expect(f.body.errors).toBeUndefined();
  expect(f.body.data.fulfillment.ready).toBe(true);
  const tx = f.body.data.fulfillment.transaction;
  const sent = await buyer.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) });
  const receipt = (await sent.wait())!;
  expect(receipt.status).toBe(1);
  return { order: listing.hash, tx: sent.hash, block: receipt.blockNumber };
}

async function caughtUp() {
  const head = await w.evm.provider.getBlockNumber();
  while ((app.services.indexedBlock.current() ?? -1) < head) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(async () => {
  w = await startWorld();
  nowSec = await w.chainNow();
  const n = w.network;
  const seller = wallet(2);
  await (await w.c.exchange.connect(wallet(0)).setCollectionOfferStrategy(COLLECTION_OFFER, true)).wait();
  await (await w.c.erc721.connect(seller).setApprovalForAll(n.transferManagerERC721, true)).wait();
  app = await startTestApp(
    {
      ...worldEnv(w),
      INDEXER: 'on',
      INDEXER_START_BLOCK: '0',
      INDEXER_CONFIRMATIONS: '0',
      // caught up, the indexer pauses this long: a read sent right after a fill has to wait for it
      INDEXER_POLL_MS: '1000',
    },
    { now: new Date(nowSec * 1000) },
  );
  await registerCollections(app.testDb.db, [{ address: w.c.addresses.erc721, type: 'ERC721' }]);
  await caughtUp();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await w?.stop();
});

describe(`waiting for a transaction on a local EVM (${backendName})`, () => {
  it('GraphQL with X-Wait-For-Tx: answered once the fill is indexed, showing the order EXECUTED', async () => {
    const fill = await sendFill(11, 11n);
    const r = await gql(ORDER, { hash: fill.order }, { 'x-wait-for-tx': fill.tx });
    expect(r.status).toBe(200);
    expect(r.body.data.order).toEqual({ hash: fill.order, status: 'EXECUTED' });
    expect(r.body.extensions).toEqual({ indexedBlock: expect.any(Number), consistency: { txHash: fill.tx, reached: true } });
    expect(r.body.extensions.indexedBlock).toBeGreaterThanOrEqual(fill.block);
    expect(Number(r.headers.get('x-indexed-block'))).toBe(r.body.extensions.indexedBlock);
    expect(r.headers.get('x-min-block-reached')).toBe('true');
  });

  it('the same through the GraphQL request extensions, and on REST', async () => {
    const viaExtensions = await sendFill(12, 12n);
    const g = await gql(ORDER, { hash: viaExtensions.order }, {}, { txHash: viaExtensions.tx });
    expect(g.body.data.order.status).toBe('EXECUTED');
    expect(g.body.extensions.consistency).toEqual({ txHash: viaExtensions.tx, reached: true });

    const viaRest = await sendFill(13, 13n);
    const res = await app.yoga.fetch(`http://test/api/v1/orders?hash=${viaRest.order}`, { headers: { 'x-wait-for-tx': viaRest.tx } });
    const body = (await res.json()) as { data: { hash: string; status: string }[] };
    expect(res.status).toBe(200);
    expect(body.data.map((o) => [o.hash, o.status])).toEqual([[viaRest.order, 'EXECUTED']]);
    expect(Number(res.headers.get('x-indexed-block'))).toBeGreaterThanOrEqual(viaRest.block);
    expect(res.headers.get('x-min-block-reached')).toBe('true');
  });

  it('a transaction that is never mined runs out the wait and is answered anyway', async () => {
    const unknown = '0x' + 'cd'.repeat(32);
    const r = await gql(ORDER, { hash: '0x' + '00'.repeat(32) }, { 'x-wait-for-tx': unknown, 'x-max-wait-ms': '300' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { order: null }, extensions: { indexedBlock: expect.any(Number), consistency: { txHash: unknown, reached: false } } });
    expect(r.headers.get('x-min-block-reached')).toBe('false');
  });
});
