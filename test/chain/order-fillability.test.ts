// Order.fillability against a local EVM and the indexer: a bid whose maker sends WETH away says
// how much it lacks by the chain's balanceOf at the block the indexer read it, the figure follows
// the maker's WETH coming back (and its allowance for ERC20_APPROVAL), a submission settled at the
// cursor block keeps its read too, a reorg forgets the reads of the blocks it replaced, and an order
// the indexed chain expired names that batch's block. The
// read engine and the resolvers answer alike throughout.
import type { ContractTransactionResponse, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import type { Database } from '../../src/db/database.js';
import { registerCollections, startWorld, storedStatus, storeOrder, type OrderSpec, type StoredOrder, type World, worldEnv, send } from '../helpers/indexer-world.js';
import { answerVia } from '../helpers/engine-answer.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const ETH = 10n ** 18n;
let w: World;
let app: TestApp;
let db: Database;
let ix: Indexer;
let t0: number;
const wallet = (i: number): Wallet => w.evm.wallets[i]!;
const bidder = () => wallet(3);
const friend = () => wallet(4);
const order = (signer: Wallet, spec: OrderSpec) => storeOrder(db, w, signer, spec, t0);
const cursorBlock = async () => (await db.sql.query<{ n: string }>(`SELECT block_number::text AS n FROM indexer_cursor`))[0]!.n;
/** indexes up to the head, and moves the app's market clock to the indexed block's time */
async function sync() {
  await ix.runUntilCaughtUp();
  app.clock.now = new Date(Math.max(app.clock.now.getTime(), (await w.chainNow()) * 1000));
}

const QUERY = `query($h: Hash!) { order(hash: $h) { fillability { reason blockNumber txHash missing { currency needed balance allowance shortfall blockNumber } } } }`;
/** the order's fillability, the read engine's answer checked against the resolvers' */
async function fillability(o: StoredOrder) {
  const engine = await answerVia(app, QUERY, { h: o.hash }, true);
  expect(engine.text).toBe((await answerVia(app, QUERY, { h: o.hash }, false)).text);
  return JSON.parse(engine.text.slice(4)).data.order.fillability;
}
/** what the chain says of the bidder's WETH now */
async function onChain() {
  const [balance, allowance] = await Promise.all([w.c.weth.balanceOf(bidder().address), w.c.weth.allowance(bidder().address, w.network.exchange)]);
  return { balance: String(balance), allowance: String(allowance) };
}

let bid: StoredOrder;

beforeAll(async () => {
  w = await startWorld();
  t0 = await w.chainNow();
  app = await startTestApp(worldEnv(w), { now: new Date(t0 * 1000) });
  db = app.testDb.db;
  await registerCollections(db, [{ address: w.c.addresses.erc721, type: 'ERC721' }]);
  await send(w.c.weth.connect(bidder()).deposit({ value: 2n * ETH }));
  await send(w.c.weth.connect(bidder()).approve(w.network.exchange, 2n * ETH));
  bid = await order(bidder(), { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: null, nonce: 1n, price: ETH });
  // the app's indexed block hears each commit, as src/app.ts wires it: its poll alone would let the
  // two answers compared below carry different extensions.indexedBlock
  ix = createIndexer({ db, provider: w.indexerProvider(), network: w.network, startBlock: 0, confirmations: 0, batchSize: 50, now: () => app.clock.now, onCursor: app.services.indexedBlock.committed });
  await sync();
});
afterAll(async () => {
  await ix?.stop();
  await app?.close();
  await w?.stop();
});

describe(`Order.fillability on chain (${backendName})`, () => {
  it('misses nothing while the bid is fillable', async () => {
    expect(await storedStatus(db, bid.hash)).toBe('VALID');
    expect(await fillability(bid)).toEqual({ reason: null, blockNumber: null, txHash: null, missing: null });
  });

  it('says how much WETH is missing when the maker sends it away, by balanceOf at the block read', async () => {
    await send(w.c.weth.connect(bidder()).transfer(friend().address, (15n * ETH) / 10n));
    await sync();
    const block = await cursorBlock();
    const chain = await onChain();
    expect(chain.balance).toBe(String(ETH / 2n));
    const f = await fillability(bid);
    expect(f).toMatchObject({ reason: 'ERC20_BALANCE', blockNumber: block, txHash: null });
    expect(f.missing).toEqual({ currency: w.network.weth, needed: String(ETH), ...chain, shortfall: String(ETH - BigInt(chain.balance)), blockNumber: block });
  });

  it('follows the WETH that comes back, then misses nothing', async () => {
    await send(w.c.weth.connect(friend()).transfer(bidder().address, (3n * ETH) / 10n));
    await sync();
    const chain = await onChain();
    const f = await fillability(bid);
    expect(f.reason).toBe('ERC20_BALANCE');
    expect(f.missing).toMatchObject({ ...chain, shortfall: String((2n * ETH) / 10n), blockNumber: await cursorBlock() });

    await send(w.c.weth.connect(friend()).transfer(bidder().address, (12n * ETH) / 10n));
    await sync();
    expect(await fillability(bid)).toMatchObject({ reason: null, missing: null });
  });

  it('says how much allowance is missing for ERC20_APPROVAL', async () => {
    await send(w.c.weth.connect(bidder()).approve(w.network.exchange, ETH - 7n));
    await sync();
    const chain = await onChain();
    const f = await fillability(bid);
    expect(f.reason).toBe('ERC20_APPROVAL');
    expect(f.missing).toEqual({ currency: w.network.weth, needed: String(ETH), ...chain, shortfall: '7', blockNumber: await cursorBlock() });
    await send(w.c.weth.connect(bidder()).approve(w.network.exchange, 2n * ETH));
    await sync();
    expect(await fillability(bid)).toMatchObject({ reason: null, missing: null });
  });

  it('forgets the reads of blocks a reorg replaced', async () => {
    const fork = BigInt(await cursorBlock());
    const snapshot = await w.rpc<string>('evm_snapshot');
    await send(w.c.weth.connect(bidder()).withdraw((19n * ETH) / 10n));
    await w.rpc('evm_mine');
    await sync();
    expect((await fillability(bid)).missing).toMatchObject({ shortfall: String((9n * ETH) / 10n) });
    const oldHead = await w.evm.provider.getBlockNumber();

    // the withdrawal's blocks are replaced by a longer chain without it
    expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
    for (let i = 0; i < 4; i++) await send(w.c.weth.connect(friend()).deposit({ value: BigInt(i + 1) }));
    expect(await w.evm.provider.getBlockNumber()).toBeGreaterThan(oldHead);
    await sync();
    expect(await storedStatus(db, bid.hash)).toBe('VALID');
    expect(await fillability(bid)).toMatchObject({ reason: null, missing: null });
    const rows = await db.sql.query<{ block_number: string }>('SELECT block_number::text AS block_number FROM currency_holdings WHERE signer = $1', [bidder().address]);
    // the read of the withdrawal's block is gone; nothing on the new chain read the bidder again
    expect(rows.filter((r) => BigInt(r.block_number) > fork)).toEqual([]);
  });

  it('keeps the read of a submission settled at the cursor block when no block came', async () => {
    const broke = wallet(5);
    const submitted = await order(broke, { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: null, nonce: 1n, price: ETH });
    const cursor = await cursorBlock();
    // as the submission service leaves it: its checks read an earlier block (unsettled-orders.ts)
    await db.sql.exec(`UPDATE orders SET chain_checked_block = ${BigInt(cursor) - 1n} WHERE hash = '${submitted.hash}'`);
    await sync();
    expect(await cursorBlock()).toBe(cursor);
    const balance = String(await w.c.weth.balanceOf(broke.address));
    const f = await fillability(submitted);
    expect(f.reason).toBe('ERC20_BALANCE');
    expect(f.missing).toMatchObject({ needed: String(ETH), balance, shortfall: String(ETH - BigInt(balance)), blockNumber: cursor });
  });

  it('names the block of the batch that saw an order expire', async () => {
    const now = await w.chainNow();
    const expiring = await order(bidder(), { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: null, nonce: 2n, price: ETH / 10n, endTime: BigInt(now + 100) });
    await sync();
    await w.rpc('evm_increaseTime', [200]);
    await w.rpc('evm_mine');
    await sync();
    expect(await fillability(expiring)).toEqual({ reason: 'EXPIRED', blockNumber: await cursorBlock(), txHash: null, missing: null });
  });
});
