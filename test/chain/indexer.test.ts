// The chain indexer against a real local EVM (Hardhat Network) with the test contracts deployed:
// every status transition and recovery of spec 3, sales, sibling and minimum nonces, ownership and
// supply, a reorg rolled back and re-indexed, a restart in the middle of a range, and (PostgreSQL
// only) one active indexer among several.
import { spawn } from 'node:child_process';
import type { ContractTransactionResponse, JsonRpcProvider, Wallet } from 'ethers';
import { JsonRpcProvider as Provider, MaxUint256, toBeHex, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveStatus } from '../../src/domain/order-status.js';
import { createIndexer, type Indexer, type IndexerEvent } from '../../src/chain/indexer/indexer.js';
import { TOPICS } from '../../src/chain/indexer/events.js';
import { INDEXER_LOCK_ID } from '../../src/chain/indexer/indexer-lock.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { ZERO_ADDRESS } from '../../src/domain/address.js';
import type { ExchangeFill } from '../helpers/evm/deploy.js';
import {
  COLLECTION_OFFER,
  deployLogEmitter,
  registerCollections,
  STANDARD,
  startWorld,
  storedStatus,
  storeOrder,
  type OrderSpec,
  type StoredOrder,
  type World,
  send,
} from '../helpers/indexer-world.js';
import { backendName, createPostgresDatabase, openTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-database.js';
import { titled } from '../helpers/skip-reasons.js';

let w: World;
let t: TestDatabase;
let db: Database;
let ix: Indexer;
let nowSec: number;
const events: IndexerEvent[] = [];
const ETH = 10n ** 18n;

const wallet = (i: number): Wallet => w.evm.wallets[i]!;
const sync = async () => {
  const r = await ix.runUntilCaughtUp();
  expect(r).not.toBeNull();
  return r!;
};
const status = (o: StoredOrder) => storedStatus(db, o.hash);
const order = (signer: Wallet, spec: OrderSpec) => storeOrder(db, w, signer, spec, nowSec);
const fillOf = (o: StoredOrder, over: Partial<ExchangeFill> = {}): ExchangeFill => ({
  orderHash: o.hash,
  orderNonce: o.nonce,
  maker: o.signer,
  strategy: o.tokenId === null ? COLLECTION_OFFER : STANDARD,
  currency: w.network.weth,
  collection: o.collection,
  tokenId: o.tokenId ?? 0n,
  amount: o.amount,
  price: o.price,
  isERC1155: o.collectionType === 'ERC1155',
  ...over,
});

function indexerFor(database: Database, provider: JsonRpcProvider, batchSize = 50) {
  return createIndexer({ db: database, provider, network: w.network, startBlock: 0, confirmations: 0, batchSize, now: () => new Date(nowSec * 1000) });
}

beforeAll(async () => {
  w = await startWorld();
  t = await openTestDatabase();
  db = t.db;
  nowSec = await w.chainNow();
  await registerCollections(db, [
    { address: w.c.addresses.erc721, type: 'ERC721' },
    { address: w.c.addresses.erc1155, type: 'ERC1155' },
  ]);
  ix = createIndexer({
    db,
    provider: w.indexerProvider(),
    network: w.network,
    startBlock: 0,
    confirmations: 0,
    batchSize: 50,
    now: () => new Date(nowSec * 1000),
    onEvent: (e) => events.push(e),
    keepBlocks: 10_000, // the journal assertions below look far back
  });
  // Deployment blocks are indexed too: nothing in them concerns an order.
  await sync();
});
afterAll(async () => {
  await t?.close();
  await w?.stop();
});

describe(`chain indexer (${backendName}, local EVM)`, () => {
  const minter = () => wallet(0);
  const seller = () => wallet(2);
  const seller2 = () => wallet(3);
  const buyer = () => wallet(4);
  const holder = () => wallet(6);
  const bidder = () => wallet(7);
  const friend = () => wallet(8);

  let askA: StoredOrder;
  let askB: StoredOrder;
  let askC: StoredOrder;

  it('marks a filled ask EXECUTED, records the sale, and cancels the siblings on its nonce', async () => {
    const { c } = w;
    for (const id of [1, 2, 3]) await send(c.erc721.connect(minter()).mint(seller().address, id));
    await send(c.erc721.connect(seller()).setApprovalForAll(w.network.transferManagerERC721, true));
    await send(c.weth.connect(buyer()).deposit({ value: 10n * ETH }));
    await send(c.weth.connect(buyer()).approve(w.network.exchange, MaxUint256));
    askA = await order(seller(), { collection: c.addresses.erc721, tokenId: 1n, nonce: 1n, price: 2n * ETH });
    askB = await order(seller(), { collection: c.addresses.erc721, tokenId: 2n, nonce: 1n });
    askC = await order(seller(), { collection: c.addresses.erc721, tokenId: 3n, nonce: 2n });
    await sync();
    expect([await status(askA), await status(askB), await status(askC)]).toEqual(['VALID', 'VALID', 'VALID']);

    const receipt = await send(c.exchange.connect(buyer()).fillAsk(fillOf(askA)));
    const r = await sync();
    // TakerBid + ERC-721 Transfer; the buyer's WETH Transfer is not fetched: the buyer has no bids
    expect(r.events).toBeGreaterThanOrEqual(2);
    expect([await status(askA), await status(askB), await status(askC)]).toEqual(['EXECUTED', 'CANCELLED', 'VALID']);

    const log = receipt.logs.find((l) => l.topics[0] === TOPICS.TakerBid)!;
    const block = (await w.evm.provider.getBlock(receipt.blockNumber))!;
    const sales = await db.sql.query<Record<string, unknown>>(
      `SELECT collection_address, token_id::text, amount::text, price::text, currency_address, buyer, seller, order_hash, strategy,
              is_taker_ask, block_number::text, tx_hash, log_index, timestamp FROM sales`,
    );
    expect(sales).toEqual([
      {
        collection_address: c.addresses.erc721,
        token_id: '1',
        amount: '1',
        price: (2n * ETH).toString(),
        currency_address: w.network.weth,
        buyer: buyer().address,
        seller: seller().address,
        order_hash: askA.hash,
        strategy: STANDARD,
        is_taker_ask: false,
        block_number: String(receipt.blockNumber),
        tx_hash: receipt.hash,
        log_index: log.index,
        timestamp: new Date(block.timestamp * 1000),
      },
    ]);
    const buckets = await db.sql.query<{ volume: string; count: number }>('SELECT volume::text AS volume, count FROM sale_buckets');
    expect(buckets).toEqual([{ volume: (2n * ETH).toString(), count: 1 }]);
    const days = await db.sql.query<{ volume: string; count: number }>('SELECT volume::text AS volume, count FROM sale_day_buckets');
    expect(days).toEqual([{ volume: (2n * ETH).toString(), count: 1 }]);
    const dead = await db.sql.query('SELECT signer, nonce::text AS nonce, reason::text AS reason FROM dead_nonces');
    expect(dead).toEqual([{ signer: seller().address, nonce: '1', reason: 'EXECUTED' }]);
    const owner = await db.sql.query('SELECT owner FROM token_balances WHERE collection_address = $1 AND token_id = 1', [c.addresses.erc721]);
    expect(owner).toEqual([{ owner: buyer().address }]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'orderStatusChanged', orderHash: askA.hash, oldStatus: 'VALID', newStatus: 'EXECUTED' }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'orderStatusChanged', orderHash: askB.hash, newStatus: 'CANCELLED' }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'sale' }));
    // the floor moved with the asks' statuses: only askC (1 ETH) is still listed
    const floor = await db.sql.query<{ floor_price: string }>(
      'SELECT floor_price::text AS floor_price FROM floor_history WHERE collection_address = $1 ORDER BY at DESC, id DESC LIMIT 1',
      [c.addresses.erc721],
    );
    expect(floor).toEqual([{ floor_price: ETH.toString() }]);
  });

  it('marks a filled bid EXECUTED (TakerAsk: the maker buys), its sibling CANCELLED, and the seller ask on the token INVALID_OWNER', async () => {
    const { c } = w;
    const bidD = await order(buyer(), { isOrderAsk: false, collection: c.addresses.erc721, tokenId: 3n, nonce: 7n, price: ETH });
    const bidE = await order(buyer(), { isOrderAsk: false, collection: c.addresses.erc721, tokenId: null, nonce: 7n, price: ETH });
    await sync();
    const receipt = await send(c.exchange.connect(seller()).fillBid(fillOf(bidD)));
    await sync();
    expect([await status(bidD), await status(bidE), await status(askC)]).toEqual(['EXECUTED', 'CANCELLED', 'INVALID_OWNER']);
    const [sale] = await db.sql.query<{ buyer: string; seller: string; is_taker_ask: boolean; tx_hash: string }>(
      'SELECT buyer, seller, is_taker_ask, tx_hash FROM sales WHERE order_hash = $1',
      [bidD.hash],
    );
    expect(sale).toEqual({ buyer: buyer().address, seller: seller().address, is_taker_ask: true, tx_hash: receipt.hash });
    expect((await db.sql.query<{ count: number }>('SELECT count FROM sale_buckets'))[0]!.count).toBe(2);
  });

  it('cancels the orders on nonces cancelled with CancelMultipleOrders, and only those', async () => {
    const { c } = w;
    for (const id of [10, 11, 12]) await send(c.erc721.connect(minter()).mint(seller2().address, id));
    await send(c.erc721.connect(seller2()).setApprovalForAll(w.network.transferManagerERC721, true));
    const o5 = await order(seller2(), { collection: c.addresses.erc721, tokenId: 10n, nonce: 5n });
    const o6 = await order(seller2(), { collection: c.addresses.erc721, tokenId: 11n, nonce: 6n });
    const o7 = await order(seller2(), { collection: c.addresses.erc721, tokenId: 12n, nonce: 7n });
    await sync();
    await send(c.exchange.connect(seller2()).cancelMultipleMakerOrders([5, 6]));
    await sync();
    expect([await status(o5), await status(o6), await status(o7)]).toEqual(['CANCELLED', 'CANCELLED', 'VALID']);
    const dead = await db.sql.query('SELECT nonce::text AS nonce, reason::text AS reason FROM dead_nonces WHERE signer = $1 ORDER BY nonce', [seller2().address]);
    expect(dead).toEqual([
      { nonce: '5', reason: 'CANCELLED' },
      { nonce: '6', reason: 'CANCELLED' },
    ]);
  });

  it('cancels every order below a new minimum nonce (CancelAllOrders)', async () => {
    const { c } = w;
    const o10 = await order(seller2(), { collection: c.addresses.erc721, tokenId: 12n, nonce: 10n });
    const o14 = await order(seller2(), { collection: c.addresses.erc721, tokenId: 12n, nonce: 14n });
    const o15 = await order(seller2(), { collection: c.addresses.erc721, tokenId: 12n, nonce: 15n });
    await sync();
    await send(c.exchange.connect(seller2()).cancelAllOrdersForSender(15));
    await sync();
    expect([await status(o10), await status(o14), await status(o15)]).toEqual(['CANCELLED', 'CANCELLED', 'VALID']);
    const [state] = await db.sql.query<{ min_nonce: string }>('SELECT min_nonce::text AS min_nonce FROM signer_nonce_state WHERE signer = $1', [seller2().address]);
    expect(state!.min_nonce).toBe('15');
    // the VALID order on nonce 7 from the previous test is below the minimum too
    const n7 = await db.sql.query<{ status: string }>(`SELECT status::text AS status FROM orders WHERE signer = $1 AND nonce = 7`, [seller2().address]);
    expect(n7).toEqual([{ status: 'CANCELLED' }]);
  });

  let askX: StoredOrder;
  it('INVALID_OWNER when the token leaves the signer and VALID when it comes back (ERC-721, ERC-1155 single and batch)', async () => {
    const { c } = w;
    await send(c.erc721.connect(minter()).mint(holder().address, 20));
    await send(c.erc721.connect(holder()).setApprovalForAll(w.network.transferManagerERC721, true));
    await send(c.erc1155.connect(minter()).mint(holder().address, 7, 3));
    await send(c.erc1155.connect(minter()).mint(holder().address, 8, 1));
    await send(c.erc1155.connect(holder()).setApprovalForAll(w.network.transferManagerERC1155, true));
    askX = await order(holder(), { collection: c.addresses.erc721, tokenId: 20n, nonce: 1n });
    const askY = await order(holder(), { collection: c.addresses.erc1155, tokenId: 7n, amount: 3n, nonce: 2n });
    await sync();

    await send(c.erc721.connect(holder()).transferFrom(holder().address, friend().address, 20));
    await send(c.erc1155.connect(holder()).safeTransferFrom(holder().address, friend().address, 7, 1, '0x'));
    await sync();
    expect([await status(askX), await status(askY)]).toEqual(['INVALID_OWNER', 'INVALID_OWNER']);

    await send(c.erc721.connect(friend()).transferFrom(friend().address, holder().address, 20));
    await send(c.erc1155.connect(friend()).safeTransferFrom(friend().address, holder().address, 7, 1, '0x'));
    await sync();
    expect([await status(askX), await status(askY)]).toEqual(['VALID', 'VALID']);

    await send(c.erc1155.connect(holder()).safeBatchTransferFrom(holder().address, friend().address, [8, 7], [1, 2], '0x'));
    await sync();
    expect(await status(askY)).toBe('INVALID_OWNER');
    await send(c.erc1155.connect(friend()).safeBatchTransferFrom(friend().address, holder().address, [7, 8], [2, 1], '0x'));
    await sync();
    expect(await status(askY)).toBe('VALID');

    // away and back inside one batch: the status follows the chain at the batch's last block
    await send(c.erc721.connect(holder()).transferFrom(holder().address, friend().address, 20));
    await send(c.erc721.connect(friend()).transferFrom(friend().address, holder().address, 20));
    await sync();
    expect(await status(askX)).toBe('VALID');
  });

  it('ERC_APPROVAL when the transfer manager approval is revoked and VALID when restored; ownership takes precedence', async () => {
    const { c } = w;
    const tm = w.network.transferManagerERC721;
    await send(c.erc721.connect(holder()).setApprovalForAll(tm, false));
    await sync();
    expect(await status(askX)).toBe('ERC_APPROVAL');
    // approving another operator does not help
    await send(c.erc721.connect(holder()).setApprovalForAll(w.network.exchange, true));
    await sync();
    expect(await status(askX)).toBe('ERC_APPROVAL');
    // not owned and not approved: INVALID_OWNER first (order-status-rules.ts precedence)
    await send(c.erc721.connect(holder()).transferFrom(holder().address, friend().address, 20));
    await sync();
    expect(await status(askX)).toBe('INVALID_OWNER');
    await send(c.erc721.connect(friend()).transferFrom(friend().address, holder().address, 20));
    await sync();
    expect(await status(askX)).toBe('ERC_APPROVAL');
    await send(c.erc721.connect(holder()).setApprovalForAll(tm, true));
    await sync();
    expect(await status(askX)).toBe('VALID');
  });

  let bidZ: StoredOrder;
  it('ERC20_BALANCE when WETH is withdrawn or sent away and VALID when topped up or returned', async () => {
    const { c } = w;
    await send(c.weth.connect(bidder()).deposit({ value: 2n * ETH }));
    await send(c.weth.connect(bidder()).approve(w.network.exchange, 2n * ETH));
    bidZ = await order(bidder(), { isOrderAsk: false, collection: c.addresses.erc721, tokenId: null, nonce: 1n, price: ETH });
    await sync();
    expect(await status(bidZ)).toBe('VALID');
    await send(c.weth.connect(bidder()).withdraw((15n * ETH) / 10n));
    await sync();
    expect(await status(bidZ)).toBe('ERC20_BALANCE');
    await send(c.weth.connect(bidder()).deposit({ value: ETH }));
    await sync();
    expect(await status(bidZ)).toBe('VALID');
    await send(c.weth.connect(bidder()).transfer(friend().address, (12n * ETH) / 10n));
    await sync();
    expect(await status(bidZ)).toBe('ERC20_BALANCE');
    await send(c.weth.connect(friend()).transfer(bidder().address, (12n * ETH) / 10n));
    await sync();
    expect(await status(bidZ)).toBe('VALID');
  });

  it('ERC20_APPROVAL when the allowance to the exchange drops below the price and VALID when raised; balance takes precedence', async () => {
    const { c } = w;
    await send(c.weth.connect(bidder()).approve(w.network.exchange, ETH - 1n));
    await sync();
    expect(await status(bidZ)).toBe('ERC20_APPROVAL');
    await send(c.weth.connect(bidder()).approve(friend().address, 0)); // another spender: no effect
    await sync();
    expect(await status(bidZ)).toBe('ERC20_APPROVAL');
    await send(c.weth.connect(bidder()).withdraw(ETH)); // low balance and low allowance
    await sync();
    expect(await status(bidZ)).toBe('ERC20_BALANCE');
    await send(c.weth.connect(bidder()).deposit({ value: 2n * ETH }));
    await sync();
    expect(await status(bidZ)).toBe('ERC20_APPROVAL');
    await send(c.weth.connect(bidder()).approve(w.network.exchange, ETH));
    await sync();
    expect(await status(bidZ)).toBe('VALID');
  });

  it('never brings back a terminal status (EXECUTED, CANCELLED, EXPIRED)', async () => {
    const { c } = w;
    const expiring = await order(holder(), { collection: c.addresses.erc721, tokenId: 20n, nonce: 3n, startTime: BigInt(nowSec - 7200), endTime: BigInt(nowSec - 10) });
    const shown = async (o: StoredOrder) => effectiveStatus(await status(o), o.endTime, BigInt(nowSec));
    // askA (EXECUTED): the token comes back to the seller; askB (CANCELLED): its token leaves and returns
    await send(c.erc721.connect(buyer()).transferFrom(buyer().address, seller().address, 1));
    await send(c.erc721.connect(seller()).transferFrom(seller().address, friend().address, 2));
    await send(c.erc721.connect(holder()).transferFrom(holder().address, friend().address, 20));
    await sync();
    expect([await shown(askA), await shown(askB), await shown(expiring)]).toEqual(['EXECUTED', 'CANCELLED', 'EXPIRED']);
    await send(c.erc721.connect(friend()).transferFrom(friend().address, seller().address, 2));
    await send(c.erc721.connect(friend()).transferFrom(friend().address, holder().address, 20));
    await sync();
    expect([await shown(askA), await shown(askB), await shown(expiring)]).toEqual(['EXECUTED', 'CANCELLED', 'EXPIRED']);
    // time is never stored: the expired order was not even re-read from the chain
    expect(await status(expiring)).toBe('VALID');
    expect(await status(askX)).toBe('VALID');
    const journal = await db.sql.query<{ order_hash: string; new_status: string }>(
      'SELECT order_hash, new_status::text AS new_status FROM order_status_changes WHERE order_hash = ANY($1::text[]) ORDER BY id',
      [[askA.hash, askB.hash]],
    );
    expect(journal).toEqual([
      { order_hash: askA.hash, new_status: 'EXECUTED' },
      { order_hash: askB.hash, new_status: 'CANCELLED' },
    ]);
  });

  it('shows CANCELLED for an order cancelled after it expired, exactly as one cancelled before (one precedence)', async () => {
    const { c } = w;
    const expiredFirst = await order(holder(), { collection: c.addresses.erc721, tokenId: 20n, nonce: 40n, startTime: BigInt(nowSec - 7200), endTime: BigInt(nowSec - 5) });
    const cancelledFirst = await order(holder(), { collection: c.addresses.erc721, tokenId: 20n, nonce: 41n, startTime: BigInt(nowSec - 7200), endTime: BigInt(nowSec + 3600) });
    const shownAt = async (o: StoredOrder, at: number) => effectiveStatus(await status(o), o.endTime, BigInt(at));
    expect(await shownAt(expiredFirst, nowSec)).toBe('EXPIRED');
    await send(c.exchange.connect(holder()).cancelMultipleMakerOrders([40n, 41n]));
    await sync();
    expect(await shownAt(expiredFirst, nowSec)).toBe('CANCELLED');
    expect(await shownAt(cancelledFirst, nowSec)).toBe('CANCELLED');
    // and once the second one is past its end too, it still reads CANCELLED
    expect(await shownAt(cancelledFirst, nowSec + 7200)).toBe('CANCELLED');
  });

  it('keeps ownership per token and supply per collection from transfers (mints, moves, burns)', async () => {
    const { c } = w;
    const balances = await db.sql.query<{ token_id: string; owner: string; balance: string }>(
      'SELECT token_id::text AS token_id, owner, balance::text AS balance FROM token_balances WHERE collection_address = $1 ORDER BY token_balances.token_id',
      [c.addresses.erc721],
    );
    const minted = [1, 2, 3, 10, 11, 12, 20];
    expect(balances.map((b) => b.token_id)).toEqual(minted.map(String));
    for (const b of balances) {
      expect(b.owner).toBe(await c.erc721.ownerOf(b.token_id));
      expect(b.balance).toBe('1');
    }
    const owners = new Set(balances.map((b) => b.owner));
    const supply = await db.sql.query<{ collection_address: string; total_supply: string; count_owners: number }>(
      'SELECT collection_address, total_supply::text AS total_supply, count_owners FROM collection_supply ORDER BY collection_address',
    );
    expect(supply).toContainEqual({ collection_address: c.addresses.erc721, total_supply: String(await c.erc721.totalSupply()), count_owners: owners.size });
    expect(supply).toContainEqual({ collection_address: c.addresses.erc1155, total_supply: '4', count_owners: 1 });
    const b1155 = await db.sql.query<{ token_id: string; owner: string; balance: string }>(
      'SELECT token_id::text AS token_id, owner, balance::text AS balance FROM token_balances WHERE collection_address = $1 ORDER BY token_balances.token_id',
      [c.addresses.erc1155],
    );
    expect(b1155).toEqual([
      { token_id: '7', owner: holder().address, balance: String(await c.erc1155.balanceOf(holder().address, 7)) },
      { token_id: '8', owner: holder().address, balance: '1' },
    ]);

    // A raw ERC-721 log source: mint two, move one, burn one to the zero address.
    const emitter = await deployLogEmitter(minter());
    await registerCollections(db, [{ address: emitter, type: 'ERC721' }]);
    const transfer = async (from: string, to: string, id: number) =>
      (await minter().sendTransaction({ to: emitter, data: TOPICS.Transfer + [from, to].map((a) => zeroPadValue(a, 32).slice(2)).join('') + toBeHex(id, 32).slice(2) })).wait();
    await transfer(ZERO_ADDRESS, friend().address, 1);
    await transfer(ZERO_ADDRESS, friend().address, 2);
    await sync();
    const supplyOf = async () =>
      (await db.sql.query<{ total_supply: string; count_owners: number }>('SELECT total_supply::text AS total_supply, count_owners FROM collection_supply WHERE collection_address = $1', [emitter]))[0];
    expect(await supplyOf()).toEqual({ total_supply: '2', count_owners: 1 });
    await transfer(friend().address, holder().address, 2);
    await sync();
    expect(await supplyOf()).toEqual({ total_supply: '2', count_owners: 2 });
    await transfer(friend().address, ZERO_ADDRESS, 1);
    await sync();
    expect(await supplyOf()).toEqual({ total_supply: '1', count_owners: 1 });
    const rows = await db.sql.query('SELECT token_id::text AS token_id, owner FROM token_balances WHERE collection_address = $1', [emitter]);
    expect(rows).toEqual([{ token_id: '2', owner: holder().address }]);
  });

  it('queues metadata reads on EIP-4906 MetadataUpdate and BatchMetadataUpdate, on ERC-1155 URI and on ERC-7572 ContractURIUpdated', async () => {
    const { c } = w;
    const due = async (collection: string) =>
      (await db.sql.query<{ t: string }>(`SELECT token_id::text AS t FROM token_metadata WHERE collection_address = $1 AND due_at IS NOT NULL ORDER BY token_id`, [collection])).map((r) => r.t);
    await db.sql.query(`INSERT INTO token_metadata (collection_address, token_id, status) VALUES ($1, 1, 'OK'), ($1, 2, 'OK'), ($1, 900, 'OK')`, [c.addresses.erc721]);
    await send(c.erc721.connect(minter()).setTokenURI(77, 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'));
    await sync();
    expect(await due(c.addresses.erc721)).toEqual(['77']);
    await send(c.erc721.connect(minter()).announceBatchMetadataUpdate(1, 2));
    await sync();
    // the range queues the tokens of it the index knows; 900 is outside
    expect(await due(c.addresses.erc721)).toEqual(['1', '2', '77']);
    await send(c.erc1155.connect(minter()).setURI('https://meta.example/{id}.json', 5));
    await sync();
    expect(await due(c.addresses.erc1155)).toEqual(['5']);
    // ERC-7572: the collection's own document is due again
    await db.sql.query(`UPDATE collection_metadata SET contract_due_at = NULL`);
    await send(c.erc721.connect(minter()).setContractURI('https://meta.example/collection.json'));
    await sync();
    const contractDue = await db.sql.query<{ c: string }>(`SELECT collection_address AS c FROM collection_metadata WHERE contract_due_at IS NOT NULL`);
    expect(contractDue.map((r) => r.c)).toEqual([c.addresses.erc721]);
    await db.sql.query(`DELETE FROM token_metadata`);
  });

  it('rolls back a fill replaced by a reorg and re-indexes the new chain', async () => {
    const { c } = w;
    await send(c.erc721.connect(minter()).mint(holder().address, 21));
    const askR = await order(holder(), { collection: c.addresses.erc721, tokenId: 21n, nonce: 9n, price: 3n * ETH });
    const askR2 = await order(holder(), { collection: c.addresses.erc721, tokenId: 20n, nonce: 9n });
    await sync();
    const bucketsBefore = await db.sql.query('SELECT bucket_start, volume::text AS volume, count FROM sale_buckets ORDER BY bucket_start');
    const daysBefore = await db.sql.query('SELECT day_start, volume::text AS volume, count FROM sale_day_buckets ORDER BY day_start');
    const salesBefore = await db.sql.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM sales');
    const snapshot = await w.rpc<string>('evm_snapshot');

    const fill = await send(c.exchange.connect(buyer()).fillAsk(fillOf(askR)));
    await w.rpc('evm_mine');
    await w.rpc('evm_mine');
    await sync();
    expect([await status(askR), await status(askR2)]).toEqual(['EXECUTED', 'CANCELLED']);
    expect(await db.sql.query('SELECT 1 FROM sales WHERE tx_hash = $1', [fill.hash])).toHaveLength(1);
    const oldHead = await w.evm.provider.getBlockNumber();

    // The fill's blocks are replaced by a longer chain without it.
    expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
    for (let i = 0; i < 4; i++) await send(c.weth.connect(friend()).deposit({ value: BigInt(i + 1) }));
    const newHead = await w.evm.provider.getBlockNumber();
    expect(newHead).toBeGreaterThan(oldHead);
    const before = events.length;
    const r = await ix.tick();
    expect(r?.rolledBackTo).toBeDefined();
    await sync();

    expect([await status(askR), await status(askR2)]).toEqual(['VALID', 'VALID']);
    expect(await db.sql.query('SELECT 1 FROM sales WHERE tx_hash = $1', [fill.hash])).toHaveLength(0);
    expect(await db.sql.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM sales')).toEqual(salesBefore);
    expect(await db.sql.query('SELECT bucket_start, volume::text AS volume, count FROM sale_buckets ORDER BY bucket_start')).toEqual(bucketsBefore);
    expect(await db.sql.query('SELECT day_start, volume::text AS volume, count FROM sale_day_buckets ORDER BY day_start')).toEqual(daysBefore);
    expect(await db.sql.query('SELECT 1 FROM dead_nonces WHERE signer = $1 AND nonce = 9', [holder().address])).toHaveLength(0);
    expect(await db.sql.query('SELECT owner FROM token_balances WHERE collection_address = $1 AND token_id = 21', [c.addresses.erc721])).toEqual([{ owner: holder().address }]);
    const [cursor] = await db.sql.query<{ block_number: string; block_hash: string }>('SELECT block_number::text AS block_number, block_hash FROM indexer_cursor');
    expect(cursor).toEqual({ block_number: String(newHead), block_hash: (await w.evm.provider.getBlock(newHead))!.hash });
    const after = events.slice(before);
    expect(after).toContainEqual(expect.objectContaining({ type: 'reorg' }));
    expect(after).toContainEqual(expect.objectContaining({ type: 'orderStatusChanged', orderHash: askR.hash, oldStatus: 'EXECUTED', newStatus: 'VALID', reorg: true }));

    // and the replaced order can still be filled on the new chain
    await send(c.exchange.connect(buyer()).fillAsk(fillOf(askR)));
    await sync();
    expect(await status(askR)).toBe('EXECUTED');
  });

  it('resumes after a crash in the middle of a range and ends exactly where an uninterrupted run does', async () => {
    // Two fresh databases holding the same orders index the whole chain so far.
    const orders = await db.prisma.order.findMany({ orderBy: { id: 'asc' } });
    const fresh = async () => {
      const d = await openTestDatabase();
      await registerCollections(d.db, await db.prisma.collection.findMany({ select: { address: true, type: true } }));
      await d.db.prisma.order.createMany({ data: orders.map(({ id: _id, ...o }) => ({ ...o, status: 'VALID' as const, paramsList: o.paramsList as string[] })) });
      return d;
    };
    const [interrupted, straight] = await Promise.all([fresh(), fresh()]);
    try {
      class FlakyProvider extends Provider {
        failEthCall = false;
        override async send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
          if (this.failEthCall && method === 'eth_call') throw new Error('node went away');
          return super.send(method, params);
        }
      }
      const flaky = new FlakyProvider(w.evm.rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1, batchStallTime: 0 });
      const first = indexerFor(interrupted.db, flaky, 7);
      for (let i = 0; i < 5; i++) expect(await first.tick()).not.toBeNull();
      const cursorOf = async (d: Database) => (await d.sql.query<{ n: string }>('SELECT block_number::text AS n FROM indexer_cursor'))[0]?.n;
      const before = await cursorOf(interrupted.db);
      // The chain reads of some later batch fail after its logs were fetched: that batch leaves no trace.
      flaky.failEthCall = true;
      let failed = false;
      for (let i = 0; i < 50 && !failed; i++) {
        try {
          if (!(await first.tick())) break;
        } catch {
          failed = true;
        }
      }
      flaky.destroy();
      expect(failed).toBe(true);
      const at = Number(await cursorOf(interrupted.db));
      expect(at).toBeGreaterThanOrEqual(Number(before));
      expect(await interrupted.db.sql.query('SELECT 1 FROM order_status_changes WHERE block_number > $1', [at])).toHaveLength(0);
      expect(await interrupted.db.sql.query('SELECT 1 FROM sales WHERE block_number > $1', [at])).toHaveLength(0);

      // A new instance picks up from the stored cursor.
      expect(await indexerFor(interrupted.db, w.indexerProvider(), 7).runUntilCaughtUp()).not.toBeNull();
      expect(await indexerFor(straight.db, w.indexerProvider(), 7).runUntilCaughtUp()).not.toBeNull();
      const state = async (d: Database) => ({
        orders: await d.sql.query('SELECT hash, status::text AS status FROM orders ORDER BY hash'),
        journal: await d.sql.query('SELECT order_hash, old_status::text, new_status::text, block_number::text FROM order_status_changes ORDER BY block_number, order_hash, new_status'),
        sales: await d.sql.query('SELECT tx_hash, log_index, order_hash, price::text, buyer, seller, block_number::text, timestamp FROM sales ORDER BY tx_hash, log_index'),
        buckets: await d.sql.query('SELECT collection_address, bucket_start, volume::text, count FROM sale_buckets ORDER BY 1, 2'),
        days: await d.sql.query('SELECT collection_address, day_start, volume::text, count FROM sale_day_buckets ORDER BY 1, 2'),
        balances: await d.sql.query('SELECT collection_address, token_id::text, owner, balance::text FROM token_balances ORDER BY 1, 2, 3'),
        supply: await d.sql.query('SELECT collection_address, total_supply::text, count_owners FROM collection_supply ORDER BY 1'),
        dead: await d.sql.query('SELECT signer, nonce::text, reason::text FROM dead_nonces ORDER BY 1, 2'),
        minNonce: await d.sql.query('SELECT signer, min_nonce::text FROM signer_nonce_state ORDER BY 1'),
        cursor: await d.sql.query('SELECT block_number::text, block_hash FROM indexer_cursor'),
      });
      const a = await state(interrupted.db);
      const b = await state(straight.db);
      expect(a).toEqual(b);
      expect(a.sales.length).toBeGreaterThan(0);
      expect(a.cursor).toEqual([{ block_number: String(await w.evm.provider.getBlockNumber()), block_hash: expect.any(String) }]);
    } finally {
      await interrupted.close();
      await straight.close();
    }
   }, 180_000); // two fresh databases index the whole chain twice: slow on a loaded machine
});

describe(`indexer bookkeeping limits (${backendName}, local EVM)`, () => {
  it('keeps only recent batch ends and journal rows, and refuses a reorg deeper than what it kept', async () => {
    const d = await openTestDatabase();
    try {
      await registerCollections(d.db, await db.prisma.collection.findMany({ select: { address: true, type: true } }));
      const snapshot = await w.rpc<string>('evm_snapshot');
      await w.rpc('hardhat_mine', [toBeHex(60)]);
      const small = createIndexer({ db: d.db, provider: w.indexerProvider(), network: w.network, startBlock: 0, confirmations: 0, batchSize: 5, now: () => new Date(nowSec * 1000), keepBlocks: 10 });
      await small.runUntilCaughtUp();
      const [kept] = await d.db.sql.query<{ n: number; min: string; cursor: string }>(
        'SELECT COUNT(*)::int AS n, MIN(number)::text AS min, (SELECT block_number::text FROM indexer_cursor) AS cursor FROM indexed_blocks',
      );
      expect(kept!.n).toBe(8); // batch ends 5 blocks apart: the 8 most recent outlast the 10-block window
      expect(Number(kept!.cursor) - Number(kept!.min)).toBeLessThanOrEqual(35);
      expect(await d.db.sql.query('SELECT 1 FROM token_transfers WHERE block_number < $1', [kept!.min])).toHaveLength(0);

      // replace the last 61 blocks: deeper than the (at most) 35 kept
      expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
      // a transaction first: empty blocks mined on the same parent can come out identical
      await send(w.c.weth.connect(wallet(8)).deposit({ value: 1n }));
      await w.rpc('hardhat_mine', [toBeHex(70)]);
      await expect(small.tick()).rejects.toThrow(/reorg deeper than the 7 kept batch ends below block/);
    } finally {
      await d.close();
    }
  });
});

describe.runIf(TEST_DATABASE_URL)(titled('one active indexer among several (postgres, local EVM)', 'postgres'), () => {
  it('a second instance stands by while the first holds the lock, and takes over when the first process dies', async () => {
    const created = await createPostgresDatabase();
    const dbB = await openDatabase({ databaseUrl: created.url, poolSize: 4 });
    let child: ReturnType<typeof spawn> | undefined;
    let b: Indexer | undefined;
    try {
      await migrate(dbB.sql);
      await registerCollections(dbB, [{ address: w.c.addresses.erc721, type: 'ERC721' }]);
      const { c } = w;
      await send(c.erc721.connect(wallet(0)).mint(wallet(9).address, 500));
      await send(c.erc721.connect(wallet(9)).setApprovalForAll(w.network.transferManagerERC721, true));
      const ask = await storeOrder(dbB, w, wallet(9), { collection: c.addresses.erc721, tokenId: 500n, nonce: 1n }, nowSec);

      // Instance A: the real CLI in its own process.
      child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/indexer.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: created.url,
          RPC_URL: w.evm.rpcUrl,
          CHAIN_ID: '31337',
          EXCHANGE_ADDRESS: w.network.exchange,
          WETH_ADDRESS: w.network.weth,
          TRANSFER_MANAGER_ERC721_ADDRESS: w.network.transferManagerERC721,
          TRANSFER_MANAGER_ERC1155_ADDRESS: w.network.transferManagerERC1155,
          STRATEGY_STANDARD_SALE_ADDRESSES: STANDARD,
          STRATEGY_COLLECTION_OFFER_ADDRESSES: COLLECTION_OFFER,
          INDEXER_START_BLOCK: '0',
          INDEXER_CONFIRMATIONS: '0',
          INDEXER_POLL_MS: '50',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const lockHolders = async () =>
        (await dbB.sql.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM pg_locks
           WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, [INDEXER_LOCK_ID]))[0]!.n;
      const until = async (cond: () => Promise<boolean>, ms = 20_000) => {
        const end = Date.now() + ms;
        while (!(await cond())) {
          if (Date.now() > end) throw new Error('timed out');
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await until(async () => (await lockHolders()) === 1);

      b = createIndexer({ db: dbB, provider: w.indexerProvider(), network: w.network, startBlock: 0, confirmations: 0, batchSize: 50, now: () => new Date(nowSec * 1000) });
      expect(await b.tick()).toBeNull(); // stands by: A holds the lock
      b.start(50);
      await send(c.erc721.connect(wallet(9)).transferFrom(wallet(9).address, wallet(10).address, 500));
      await until(async () => (await storedStatus(dbB, ask.hash)) === 'INVALID_OWNER'); // indexed by A
      expect(await lockHolders()).toBe(1);

      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      await send(c.erc721.connect(wallet(10)).transferFrom(wallet(10).address, wallet(9).address, 500));
      await until(async () => (await storedStatus(dbB, ask.hash)) === 'VALID'); // indexed by B
      expect(await lockHolders()).toBe(1);
    } finally {
      child?.kill('SIGKILL');
      await b?.stop();
      await dbB.close();
      await created.drop();
    }
  });
});
