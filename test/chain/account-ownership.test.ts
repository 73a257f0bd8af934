// An account's holdings and the offers it could fill follow the chain: tokens minted and moved on
// a local EVM reach token_balances through the indexer, and account(address) reads them from
// there (engine and resolvers agreeing byte for byte), with the best bids of the book.
import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import { answerVia } from '../helpers/engine-answer.js';
import { COLLECTION_OFFER, registerCollections, STANDARD, startWorld, storeOrder, type OrderSpec, type StoredOrder, type World, worldEnv } from '../helpers/indexer-world.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let w: World;
let app: TestApp;
let ix: Indexer;
let nowSec: number;
const ETH = 10n ** 18n;
const wallet = (i: number): Wallet => w.evm.wallets[i]!;
const order = (signer: Wallet, spec: OrderSpec) => storeOrder(app.testDb.db, w, signer, spec, nowSec);
let tokenOffer: StoredOrder, collectionOffer: StoredOrder, ownOffer: StoredOrder;

const ACCOUNT = `query($a: Address!) { account(address: $a) {
  holdings { totalCount valueAtBestBid edges { cursor node { balance bestBidPrice token { tokenId owners { owner balance } bestBid { hash } } } } }
  offersReceived { totalCount edges { node { hash price tokenId } } }
  activity(filter: { types: [TRANSFER, MINT] }) { edges { node { type tokenId from to } } }
} }`;

/** The account as the engine and the resolvers answer it (equal), and the statements the engine sent. */
async function account(a: Wallet) {
  const engine = await answerVia(app, ACCOUNT, { a: a.address }, true);
  const resolvers = await answerVia(app, ACCOUNT, { a: a.address }, false);
  expect(engine.text).toBe(resolvers.text);
  // one statement of the engine's (the first request of the app also reads the market clock once)
  expect(engine.statements.filter((s) => s.includes(`'{"`)), engine.statements.map((s) => s.slice(0, 200)).join('\n')).toHaveLength(1);
  const body = JSON.parse(engine.text.slice(4));
  expect(body.errors).toBeUndefined();
  return body.data.account;
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
  for (const id of [1, 2]) await (await w.c.erc721.connect(deployer).mint(wallet(2).address, id)).wait();
  await (await w.c.erc1155.connect(deployer).mint(wallet(2).address, 9, 5)).wait();
  // the bidder can pay: WETH held and approved, so its offers stay VALID
  for (const bidder of [wallet(3), wallet(2)]) {
    await (await w.c.weth.connect(bidder).deposit({ value: 10n * ETH })).wait();
    await (await w.c.weth.connect(bidder).approve(n.exchange, 10n * ETH)).wait();
  }
  tokenOffer = await order(wallet(3), { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: 1n, nonce: 1n, price: 2n * ETH });
  collectionOffer = await order(wallet(3), { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: null, nonce: 2n, price: ETH });
  ownOffer = await order(wallet(2), { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: 2n, nonce: 1n, price: 3n * ETH });
  await ix.runUntilCaughtUp();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await w?.stop();
});

describe(`account holdings and offers from the indexed chain (${backendName})`, () => {
  it('reads what was minted to the account, and the offers it could fill', async () => {
    const a = await account(wallet(2));
    expect(a.holdings.edges.map((e: any) => [e.cursor, e.node.balance])).toEqual(
      [[`${w.c.addresses.erc1155}:9`, '5'], [`${w.c.addresses.erc721}:1`, '1'], [`${w.c.addresses.erc721}:2`, '1']].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    const one = a.holdings.edges.find((e: any) => e.cursor === `${w.c.addresses.erc721}:1`).node;
    expect(one).toMatchObject({ bestBidPrice: (2n * ETH).toString(), token: { owners: [{ owner: wallet(2).address, balance: '1' }], bestBid: { hash: tokenOffer.hash } } });
    // token 2's best bid is the holder's own offer; the holdings value it as Token.bestBid does
    expect(a.holdings.valueAtBestBid).toBe((2n * ETH + 3n * ETH).toString());
    // its own offer on token 2 is not one it could fill
    expect(a.offersReceived.edges.map((e: any) => e.node.hash)).toEqual([tokenOffer.hash, collectionOffer.hash]);
    expect(a.activity.edges.map((e: any) => [e.node.type, e.node.tokenId])).toEqual([['MINT', '9'], ['MINT', '2'], ['MINT', '1']]);
    expect((await account(wallet(4))).holdings.totalCount).toBe(0);
  });

  it('follows a transfer: the token and the offer on it move to the receiver', async () => {
    await (await w.c.erc721.connect(wallet(2)).transferFrom(wallet(2).address, wallet(4).address, 1)).wait();
    await ix.runUntilCaughtUp();
    const sender = await account(wallet(2));
    expect(sender.holdings.edges.map((e: any) => e.cursor).sort()).toEqual([`${w.c.addresses.erc1155}:9`, `${w.c.addresses.erc721}:2`].sort());
    expect(sender.offersReceived.edges.map((e: any) => e.node.hash)).toEqual([collectionOffer.hash]);
    const receiver = await account(wallet(4));
    expect(receiver.holdings.edges.map((e: any) => [e.cursor, e.node.token.owners])).toEqual([[`${w.c.addresses.erc721}:1`, [{ owner: wallet(4).address, balance: '1' }]]]);
    // wallet 2's offer on token 2 is still not one wallet 4 could fill: it does not hold token 2
    expect(receiver.offersReceived.edges.map((e: any) => e.node.hash)).toEqual([tokenOffer.hash, collectionOffer.hash]);
    expect(receiver.offersReceived.edges.map((e: any) => e.node.hash)).not.toContain(ownOffer.hash);
    expect(receiver.activity.edges[0].node).toEqual({ type: 'TRANSFER', tokenId: '1', from: wallet(2).address, to: wallet(4).address });
  });
});
