// Fulfillment end to end on a local EVM: makers sign a listing, a token offer and collection
// offers; the service answers the calldata, value and steps for a taker; the taker sends the
// step transactions and then exactly the fill the service returned to the test exchange (which
// takes v1's selectors and struct layout, and checks the maker's EIP-712 signature, nonce, price,
// token and time window as v1 does); the fill succeeds, and the service's indexer records the
// sale and marks the order EXECUTED. Then the same order is refused as not fillable.
import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import { COLLECTION_OFFER, registerCollections, STANDARD, startWorld, storedStatus, storeOrder, type OrderSpec, type StoredOrder, type World, worldEnv } from '../helpers/indexer-world.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let w: World;
let app: TestApp;
let ix: Indexer;
let nowSec: number;
const ETH = 10n ** 18n;
const wallet = (i: number): Wallet => w.evm.wallets[i]!;

const FULFILLMENT = /* GraphQL */ `
  query Fulfill($hash: Hash!, $taker: Address!, $tokenId: Uint256, $payWith: PayWith) {
    fulfillment(hash: $hash, taker: $taker, tokenId: $tokenId, payWith: $payWith) {
      orderHash blockNumber function ready
      takerOrder { isOrderAsk taker price tokenId minPercentageToAsk params }
      transaction { to data value }
      steps { code message transaction { to data value } }
    }
  }
`;

type Tx = { to: string; data: string; value: string };
type Answer = { orderHash: string; blockNumber: number; function: string; ready: boolean; takerOrder: Record<string, unknown>; transaction: Tx; steps: { code: string; message: string; transaction: Tx | null }[] };

async function fulfillment(vars: { hash: string; taker: string; tokenId?: string; payWith?: 'ETH' | 'WETH' }) {
  const r = await app.gql<{ fulfillment: Answer }>(FULFILLMENT, vars);
  return r;
}
async function answer(vars: Parameters<typeof fulfillment>[0]): Promise<Answer> {
  const r = await fulfillment(vars);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!.fulfillment;
}
async function send(from: Wallet, tx: Tx) {
  const sent = await from.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) });
  const receipt = (await sent.wait())!;
  expect(receipt.status).toBe(1);
  return receipt;
}
const order = (signer: Wallet, spec: OrderSpec) => storeOrder(app.testDb.db, w, signer, spec, nowSec);

/** Sends the steps, asks again (now ready), sends the fill, indexes: the sale is there and the order EXECUTED. */
async function fillAndIndex(o: StoredOrder, taker: Wallet, first: Answer, vars: Parameters<typeof fulfillment>[0]) {
  for (const step of first.steps) await send(taker, step.transaction!);
  const ready = await answer(vars);
  expect(ready.ready).toBe(true);
  expect(ready.steps).toEqual([]);
  // read again at the head: after the steps' blocks when there were steps
  expect(ready.blockNumber).toBeGreaterThanOrEqual(first.blockNumber + first.steps.length);
  const receipt = await send(taker, ready.transaction);
  await ix.runUntilCaughtUp();
  expect(await storedStatus(app.testDb.db, o.hash)).toBe('EXECUTED');
  const [sale] = await app.testDb.db.sql.query<{ tx_hash: string; buyer: string; seller: string; price: string; token_id: string; is_taker_ask: boolean }>(
    'SELECT tx_hash, buyer, seller, price::text, token_id::text, is_taker_ask FROM sales WHERE order_hash = $1',
    [o.hash],
  );
  expect(sale).toMatchObject({ tx_hash: receipt.hash, price: o.price.toString() });
  if (process.env.FULFILLMENT_TRACE) console.log(`${first.function} ${o.hash}: tx ${receipt.hash} in block ${receipt.blockNumber}, sale indexed`);
  return { sale: sale!, receipt };
}

beforeAll(async () => {
  w = await startWorld();
  nowSec = await w.chainNow();
  const n = w.network;
  app = await startTestApp(
    {
      ...worldEnv(w),
    },
    { now: new Date(nowSec * 1000) },
  );
  await registerCollections(app.testDb.db, [
    { address: w.c.addresses.erc721, type: 'ERC721' },
    { address: w.c.addresses.erc1155, type: 'ERC1155' },
  ]);
  ix = createIndexer({ db: app.testDb.db, provider: w.indexerProvider(), network: n, startBlock: 0, confirmations: 0, batchSize: 50, now: () => new Date(nowSec * 1000), onCursor: app.services.indexedBlock.committed });
  const deployer = wallet(0);
  await (await w.c.exchange.connect(deployer).setCollectionOfferStrategy(COLLECTION_OFFER, true)).wait();
  for (const id of [1, 2, 3]) await (await w.c.erc721.connect(deployer).mint(wallet(2).address, id)).wait();
  await (await w.c.erc721.connect(deployer).mint(wallet(4).address, 40)).wait();
  await (await w.c.erc1155.connect(deployer).mint(wallet(5).address, 9, 5)).wait();
  await (await w.c.erc721.connect(wallet(2)).setApprovalForAll(n.transferManagerERC721, true)).wait();
  await ix.runUntilCaughtUp();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await w?.stop();
});

describe(`fulfillment on a local EVM (${backendName})`, () => {
  it('the test exchange takes the v1 SDK selectors and checks signatures in the v1 domain', async () => {
    const { TypedDataEncoder } = await import('ethers');
    const { exchangeDomain } = await import('../../src/domain/maker-order.js');
    expect(await w.c.exchange.DOMAIN_SEPARATOR()).toBe(TypedDataEncoder.hashDomain(exchangeDomain(31337, w.network.exchange)));
  });

  it('a listing bought with ETH: the calldata and value the service returned fill it, and the sale is indexed', async () => {
    const seller = wallet(2);
    const buyer = wallet(3);
    const listing = await order(seller, { collection: w.c.addresses.erc721, tokenId: 1n, nonce: 1n, price: 2n * ETH });
    const vars = { hash: listing.hash, taker: buyer.address };
    const a = await answer(vars);
    expect(a).toMatchObject({
      orderHash: listing.hash,
      function: 'matchAskWithTakerBidUsingETHAndWETH',
      ready: true,
      steps: [],
      takerOrder: { isOrderAsk: false, taker: buyer.address, price: (2n * ETH).toString(), tokenId: '1', minPercentageToAsk: 9800, params: '0x' },
      transaction: { to: w.network.exchange, value: (2n * ETH).toString() },
    });
    expect(a.blockNumber).toBe(await w.evm.provider.getBlockNumber());
    const { sale } = await fillAndIndex(listing, buyer, a, vars);
    expect(sale).toMatchObject({ buyer: buyer.address, seller: seller.address, token_id: '1', is_taker_ask: false });
    expect(await w.c.erc721.ownerOf(1)).toBe(buyer.address);

    // filled: the same question is now refused with the reason
    const again = await fulfillment(vars);
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: 'ORDER_NOT_FILLABLE', problems: [{ field: 'hash', code: 'EXECUTED' }] });
    const rest = await app.rest(`/api/v1/orders/fulfillment?hash=${listing.hash}&taker=${buyer.address}`);
    expect([rest.status, rest.body.success, rest.body.errors?.[0]?.code]).toEqual([409, false, 'EXECUTED']);
  });

  it('a listing bought with WETH: wrap and approve steps first, then the fill', async () => {
    const seller = wallet(2);
    const buyer = wallet(6);
    const listing = await order(seller, { collection: w.c.addresses.erc721, tokenId: 2n, nonce: 2n, price: ETH });
    // half the price already wrapped
    await (await w.c.weth.connect(buyer).deposit({ value: ETH / 2n })).wait();
    const vars = { hash: listing.hash, taker: buyer.address, payWith: 'WETH' as const };
    const a = await answer(vars);
    expect(a.function).toBe('matchAskWithTakerBid');
    expect(a.transaction.value).toBe('0');
    expect(a.ready).toBe(false);
    expect(a.steps.map((s) => [s.code, s.transaction?.to, s.transaction?.value])).toEqual([
      ['WRAP_ETH', w.network.weth, (ETH / 2n).toString()],
      ['APPROVE_WETH', w.network.weth, '0'],
    ]);
    // the REST answer is the same document
    const rest = await app.rest(`/api/v1/orders/fulfillment?hash=${listing.hash}&taker=${buyer.address.toLowerCase()}&payWith=WETH`);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toEqual(a);
    await fillAndIndex(listing, buyer, a, vars);
    expect(await w.c.erc721.ownerOf(2)).toBe(buyer.address);
    // v1 pays the seller in WETH on both paths: 2 from the ETH sale above, 1 from this one
    expect(await w.c.weth.balanceOf(seller.address)).toBe(3n * ETH);
  });

  it('a token offer sold into: approve the ERC-721 transfer manager, then matchBidWithTakerAsk', async () => {
    const bidder = wallet(7);
    const seller = wallet(4);
    await (await w.c.weth.connect(bidder).deposit({ value: ETH })).wait();
    await (await w.c.weth.connect(bidder).approve(w.network.exchange, ETH)).wait();
    const offer = await order(bidder, { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: 40n, nonce: 1n, price: ETH });
    await ix.runUntilCaughtUp();
    const vars = { hash: offer.hash, taker: seller.address };
    const a = await answer(vars);
    expect(a.function).toBe('matchBidWithTakerAsk');
    expect(a.takerOrder).toMatchObject({ isOrderAsk: true, taker: seller.address, tokenId: '40' });
    expect(a.steps.map((s) => [s.code, s.transaction?.to])).toEqual([['APPROVE_TRANSFER_MANAGER', w.c.addresses.erc721]]);
    // someone who does not own the token is told so (no transaction can fix that)
    const stranger = await answer({ hash: offer.hash, taker: wallet(8).address });
    expect(stranger.steps.map((s) => [s.code, s.transaction])).toEqual([
      ['NOT_TOKEN_OWNER', null],
      ['APPROVE_TRANSFER_MANAGER', expect.objectContaining({ to: w.c.addresses.erc721 })],
    ]);
    const { sale } = await fillAndIndex(offer, seller, a, vars);
    expect(sale).toMatchObject({ buyer: bidder.address, seller: seller.address, is_taker_ask: true });
    expect(await w.c.erc721.ownerOf(40)).toBe(bidder.address);
  });

  it('a collection offer on ERC-1155: the taker names the token; the ERC-1155 transfer manager moves it', async () => {
    const bidder = wallet(9);
    const seller = wallet(5);
    await (await w.c.weth.connect(bidder).deposit({ value: ETH })).wait();
    await (await w.c.weth.connect(bidder).approve(w.network.exchange, ETH)).wait();
    const offer = await order(bidder, { isOrderAsk: false, collection: w.c.addresses.erc1155, collectionType: 'ERC1155', tokenId: null, amount: 2n, nonce: 1n, price: ETH / 4n });
    await ix.runUntilCaughtUp();

    const missing = await fulfillment({ hash: offer.hash, taker: seller.address });
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', problems: [{ field: 'tokenId', code: 'REQUIRED' }] });
    const payWith = await fulfillment({ hash: offer.hash, taker: seller.address, tokenId: '9', payWith: 'WETH' });
    expect(payWith.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', problems: [{ field: 'payWith', code: 'NOT_ALLOWED' }] });

    const vars = { hash: offer.hash, taker: seller.address, tokenId: '9' };
    const a = await answer(vars);
    expect(a.takerOrder).toMatchObject({ isOrderAsk: true, tokenId: '9', price: (ETH / 4n).toString() });
    expect(a.steps.map((s) => [s.code, s.transaction?.data.slice(0, 10)])).toEqual([['APPROVE_TRANSFER_MANAGER', '0xa22cb465']]);
    const { sale } = await fillAndIndex(offer, seller, a, vars);
    expect(sale).toMatchObject({ token_id: '9', buyer: bidder.address });
    expect(await w.c.erc1155.balanceOf(bidder.address, 9)).toBe(2n);
  });

  it('refuses a token id for an order that names its token, and answers NOT_FOUND for an unknown hash', async () => {
    const listing = await order(wallet(2), { collection: w.c.addresses.erc721, tokenId: 3n, nonce: 3n });
    const r = await fulfillment({ hash: listing.hash, taker: wallet(3).address, tokenId: '3' });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', problems: [{ field: 'tokenId', code: 'NOT_ALLOWED' }] });
    const unknown = await fulfillment({ hash: `0x${'ab'.repeat(32)}`, taker: wallet(3).address });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const rest = await app.rest(`/api/v1/orders/fulfillment?hash=0x${'ab'.repeat(32)}&taker=${wallet(3).address}`);
    expect([rest.status, rest.body.success]).toEqual([404, false]);
  });
});
