// The indexer against what a real chain does, on the local EVM:
// - a node that refuses eth_getLogs ranges over 3 blocks and drops every fifth call: the indexer
//   splits and retries and ends exactly where the chain says;
// - WETH logs are filtered in the node to accounts with bids: busy WETH traffic of other accounts
//   never reaches the indexer, a bidder's withdrawal still does;
// - a collection registered after its mints, transfers and a sale gets them backfilled while the
//   live indexer keeps running, with nothing counted twice;
// - a reorg deeper than the confirmation depth (snapshot/revert) is rolled back and re-applied.
import { JsonRpcProvider, MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCollectionBackfill, readBackfillJob } from '../../src/chain/indexer/collection-backfill.js';
import { TOPICS } from '../../src/chain/indexer/events.js';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import type { Database } from '../../src/db/database.js';
import type { ExchangeFill } from '../helpers/evm/deploy.js';
import {
  chainStatus,
  COLLECTION_OFFER,
  filledHashes,
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
import { effectiveStatus } from '../../src/domain/order-status.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const ETH = 10n ** 18n;
const CONFIRMATIONS = 2;
let w: World;
let t: TestDatabase;
let db: Database;
let ix: Indexer;
let nowSec: number;
const orders: StoredOrder[] = [];

/** A node with a 3-block eth_getLogs cap that drops every fifth eth_getLogs call, recording the logs it returns. */
class CappedProvider extends JsonRpcProvider {
  calls = 0;
  refused = 0;
  dropped = 0;
  returned: { address: string; topics: string[] }[] = [];
  override async send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
    if (method === 'eth_getLogs') {
      const f = (params as { fromBlock: string; toBlock: string }[])[0]!;
      this.calls++;
      if (Number(f.toBlock) - Number(f.fromBlock) + 1 > 3) {
        this.refused++;
        throw Object.assign(new Error('could not coalesce error'), { error: { code: -32005, message: 'query returned more than 10000 results' } });
      }
      if (this.calls % 5 === 0) {
        this.dropped++;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      const logs = (await super.send(method, params)) as { address: string; topics: string[] }[];
      this.returned.push(...logs);
      return logs;
    }
    return super.send(method, params);
  }
}
let capped: CappedProvider;

const wallet = (i: number): Wallet => w.evm.wallets[i]!;
const minter = () => wallet(0);
const seller = () => wallet(2);
const buyer = () => wallet(4);
const holder = () => wallet(6);
const bidder = () => wallet(7);
const order = async (signer: Wallet, spec: OrderSpec) => {
  const o = await storeOrder(db, w, signer, spec, nowSec);
  orders.push(o);
  return o;
};
const fillOf = (o: StoredOrder): ExchangeFill => ({
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
});
/** Mines the confirmation blocks, then indexes up to head - confirmations. */
const sync = async () => {
  for (let i = 0; i < CONFIRMATIONS; i++) await w.rpc('evm_mine');
  const r = await ix.runUntilCaughtUp();
  expect(r).not.toBeNull();
  return r!;
};
/** Every stored order's shown status equals what the chain says. */
async function expectStatusesMatchChain() {
  const filled = await filledHashes(w);
  const head = await w.chainNow();
  for (const o of orders) {
    const shown = effectiveStatus(await storedStatus(db, o.hash), o.endTime, BigInt(head));
    expect(shown, `order ${o.hash}`).toBe(await chainStatus(w, o, filled, head));
  }
}
async function balances(collection: string) {
  return db.sql.query<{ token_id: string; owner: string; balance: string }>(
    'SELECT token_id::text, owner, balance::text FROM token_balances WHERE collection_address = $1 ORDER BY 1, 2',
    [collection],
  );
}

beforeAll(async () => {
  w = await startWorld();
  t = await openTestDatabase();
  db = t.db;
  nowSec = await w.chainNow();
  await registerCollections(db, [{ address: w.c.addresses.erc721, type: 'ERC721' }]);
  capped = new CappedProvider(w.evm.rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1, batchStallTime: 0 });
  ix = createIndexer({
    db,
    provider: capped,
    network: w.network,
    startBlock: 0,
    confirmations: CONFIRMATIONS,
    batchSize: 50,
    now: () => new Date(nowSec * 1000),
    logs: { baseDelayMs: 1 },
    backfillChunkBlocks: 4,
  });
  await sync();
});
afterAll(async () => {
  capped?.destroy();
  await t?.close();
  await w?.stop();
});

describe(`indexer on a real chain's terms (${backendName}, local EVM)`, () => {
  it('splits refused eth_getLogs ranges, retries dropped calls, and only sees WETH logs of accounts with bids', async () => {
    const { c } = w;
    for (const id of [1, 2, 3]) await send(c.erc721.connect(minter()).mint(seller().address, id));
    await send(c.erc721.connect(seller()).setApprovalForAll(w.network.transferManagerERC721, true));
    await send(c.weth.connect(buyer()).deposit({ value: 10n * ETH }));
    await send(c.weth.connect(buyer()).approve(w.network.exchange, MaxUint256));
    const ask = await order(seller(), { collection: c.addresses.erc721, tokenId: 1n, nonce: 1n, price: 2n * ETH });
    await order(seller(), { collection: c.addresses.erc721, tokenId: 2n, nonce: 2n });
    const bid = await order(bidder(), { isOrderAsk: false, collection: c.addresses.erc721, tokenId: 3n, nonce: 1n, price: ETH });
    // busy WETH traffic of accounts without bids
    for (let i = 10; i < 14; i++) await send(c.weth.connect(wallet(i)).deposit({ value: 5n * ETH }));
    for (let k = 0; k < 12; k++) await send(c.weth.connect(wallet(10 + (k % 4))).transfer(wallet(10 + ((k + 1) % 4)).address, ETH / 10n));
    // the bidder funds, approves, then withdraws below its price
    await send(c.weth.connect(bidder()).deposit({ value: 3n * ETH }));
    await send(c.weth.connect(bidder()).approve(w.network.exchange, MaxUint256));
    await send(c.weth.connect(bidder()).withdraw(5n * (ETH / 2n)));
    await send(c.exchange.connect(buyer()).fillAsk(fillOf(ask)));
    capped.returned = [];
    await sync();

    expect(capped.refused).toBeGreaterThan(0);
    expect(capped.dropped).toBeGreaterThan(0);
    expect(await storedStatus(db, ask.hash)).toBe('EXECUTED');
    expect(await storedStatus(db, bid.hash)).toBe('ERC20_BALANCE');
    await expectStatusesMatchChain();
    const [cursor] = await db.sql.query<{ n: string }>('SELECT block_number::text AS n FROM indexer_cursor');
    expect(Number(cursor!.n)).toBe((await w.evm.provider.getBlockNumber()) - CONFIRMATIONS);

    const wethLogs = capped.returned.filter((l) => l.address.toLowerCase() === w.network.weth!.toLowerCase());
    const bidderTopic = '0x' + bidder().address.slice(2).toLowerCase().padStart(64, '0');
    expect(wethLogs.length).toBeGreaterThanOrEqual(3); // deposit, approval, withdrawal
    expect(wethLogs.every((l) => l.topics.slice(1).includes(bidderTopic))).toBe(true);
    // what the chain really carried: far more WETH logs than the indexer was sent
    const all = await w.evm.provider.getLogs({ address: w.network.weth, fromBlock: 0, toBlock: 'latest' });
    expect(all.length).toBeGreaterThan(wethLogs.length + 15);
  });

  it('backfills a collection registered after its history, while the live indexer runs, counting nothing twice', async () => {
    const { c } = w;
    const coll = c.addresses.erc1155;
    await send(c.erc1155.connect(minter()).mint(holder().address, 7, 10));
    await send(c.erc1155.connect(minter()).mint(seller().address, 8, 3));
    await send(c.erc1155.connect(holder()).safeTransferFrom(holder().address, buyer().address, 7, 4, '0x'));
    // a sale in the collection before anyone knew it: the exchange side was indexed, the sale was not
    await send(c.erc1155.connect(seller()).setApprovalForAll(w.network.transferManagerERC1155, true));
    // (an order the service never stored: the collection was unknown, so no order could be)
    const fill = await send(
      c.exchange.connect(buyer()).fillAsk({
        orderHash: '0x' + 'e1'.repeat(32),
        orderNonce: 5n,
        maker: seller().address,
        strategy: STANDARD,
        currency: w.network.weth!,
        collection: coll,
        tokenId: 8n,
        amount: 2n,
        price: ETH,
        isERC1155: true,
      }),
    );
    await sync();
    expect(await balances(coll)).toEqual([]);

    await registerCollections(db, [{ address: coll, type: 'ERC1155' }]);
    await requestCollectionBackfill(db.sql, coll, 0);
    // live activity after registration: the live indexer applies it (not the backfill)
    await send(c.erc1155.connect(buyer()).safeTransferFrom(buyer().address, holder().address, 7, 1, '0x'));
    await sync();
    const job = await readBackfillJob(db.sql, coll);
    expect(job).toMatchObject({ finished: false });
    const steps: string[] = [];
    const done = await ix.backfillCollection(coll, (s) => steps.push(s.state));
    expect(done?.state).toBe('finished');
    expect(steps.filter((s) => s === 'progress').length).toBeGreaterThan(2); // 4-block chunks
    const after = (await readBackfillJob(db.sql, coll))!;
    const [followed] = await db.sql.query<{ n: string }>('SELECT indexed_from_block::text AS n FROM collections WHERE address = $1', [coll]);
    expect(after.toBlock).toBe(Number(followed!.n) - 1);

    const expected = [];
    for (const [id, who] of [
      [7, holder()],
      [7, buyer()],
      [8, seller()],
      [8, buyer()],
    ] as const) {
      const b = await c.erc1155.balanceOf(who.address, id);
      if (b > 0n) expected.push({ token_id: String(id), owner: who.address, balance: b.toString() });
    }
    expect(await balances(coll)).toEqual(expected.sort((a, b) => a.token_id.localeCompare(b.token_id) || a.owner.localeCompare(b.owner)));
    const [supply] = await db.sql.query<{ total: string; owners: number }>(
      'SELECT total_supply::text AS total, count_owners AS owners FROM collection_supply WHERE collection_address = $1',
      [coll],
    );
    expect(supply).toEqual({ total: '13', owners: new Set(expected.map((e) => e.owner)).size });
    const sales = await db.sql.query<{ tx_hash: string; price: string }>('SELECT tx_hash, price::text AS price FROM sales WHERE collection_address = $1', [coll]);
    expect(sales).toEqual([{ tx_hash: fill.hash, price: ETH.toString() }]);
    // running it again finds nothing to do
    expect((await ix.backfillCollection(coll))?.state).toBe('none');
  });

  it('queues a backfill from INDEXER_BACKFILL_FROM_BLOCK when a collection is registered through the service', async () => {
    const { loadConfig } = await import('../../src/config.js');
    const { createCollectionService } = await import('../../src/services/collections.js');
    const config = loadConfig({ RPC_URL: w.evm.rpcUrl, INDEXER_BACKFILL_FROM_BLOCK: '3', LOG_LEVEL: 'silent' });
    const service = createCollectionService({ db, config, network: w.network } as Parameters<typeof createCollectionService>[0]);
    const address = '0x' + '3c'.repeat(20);
    await service.upsertCollection({ address, type: 'ERC721', name: 'late' });
    const [row] = await db.sql.query<{ a: string }>('SELECT collection_address AS a FROM collection_backfills WHERE from_block = 3');
    expect(row?.a.toLowerCase()).toBe(address);
    const off = createCollectionService({ db, config: loadConfig({ RPC_URL: w.evm.rpcUrl, INDEXER_BACKFILL_FROM_BLOCK: 'off', LOG_LEVEL: 'silent' }), network: w.network } as Parameters<typeof createCollectionService>[0]);
    await off.upsertCollection({ address: '0x' + '3d'.repeat(20), type: 'ERC721', name: 'late too' });
    expect(await db.sql.query('SELECT 1 FROM collection_backfills WHERE from_block = 3')).toHaveLength(1);
    expect(await db.sql.query('SELECT 1 FROM collection_backfills')).toHaveLength(2);
  });

  it('rolls back and re-applies a reorg deeper than the confirmation depth', async () => {
    const { c } = w;
    await send(c.erc721.connect(minter()).mint(holder().address, 30));
    await send(c.erc721.connect(holder()).setApprovalForAll(w.network.transferManagerERC721, true));
    const askR = await order(holder(), { collection: c.addresses.erc721, tokenId: 30n, nonce: 9n, price: ETH });
    await sync();
    const snapshot = await w.rpc<string>('evm_snapshot');
    // the replaced branch: a fill and a transfer, then enough blocks for the indexer to commit them
    await send(c.exchange.connect(buyer()).fillAsk(fillOf(askR)));
    await send(c.erc721.connect(seller()).transferFrom(seller().address, holder().address, 2));
    for (let i = 0; i < 3; i++) await w.rpc('evm_mine');
    await sync();
    expect(await storedStatus(db, askR.hash)).toBe('EXECUTED');
    const replacedDepth = 2 + 3 + CONFIRMATIONS;
    expect(replacedDepth).toBeGreaterThan(CONFIRMATIONS);
    // the new branch: longer, without the fill
    expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
    await send(c.erc721.connect(seller()).transferFrom(seller().address, bidder().address, 2));
    for (let i = 0; i < 8; i++) await w.rpc('evm_mine');
    const r = await ix.tick();
    expect(r?.rolledBackTo).toBeDefined();
    await sync();
    expect(await storedStatus(db, askR.hash)).toBe('VALID');
    expect(await db.sql.query('SELECT 1 FROM sales WHERE order_hash = $1', [askR.hash])).toEqual([]);
    await expectStatusesMatchChain();
    const owners = await balances(c.addresses.erc721);
    for (const row of owners) expect(await c.erc721.ownerOf(BigInt(row.token_id))).toBe(row.owner);
    expect(owners.find((o) => o.token_id === '2')?.owner).toBe(bidder().address);
  });

  it('keeps the cursor block time and the last event block for indexerStatus', async () => {
    const [row] = await db.sql.query<{ b: string; ts: string | null; le: string | null }>(
      'SELECT block_number::text AS b, block_timestamp::text AS ts, last_event_block::text AS le FROM indexer_cursor',
    );
    expect(Number(row!.b)).toBe((await w.evm.provider.getBlockNumber()) - CONFIRMATIONS);
    expect(Number(row!.ts)).toBe((await w.evm.provider.getBlock(Number(row!.b)))!.timestamp);
    // the last consumed event: the transfer of token 2 on the new branch
    const transfers = await w.evm.provider.getLogs({ address: w.c.addresses.erc721, topics: [TOPICS.Transfer], fromBlock: 0, toBlock: Number(row!.b) });
    expect(Number(row!.le)).toBe(transfers.at(-1)!.blockNumber);
});
});
