// EXPIRED events against a local EVM: an order VALID when the indexed chain passes its end time
// gets one STATUS_CHANGE row with cause EXPIRED, of the batch that passed it, and nothing else
// does; batches, restarts and a second indexer never write it twice; a reorg that undoes the
// blocks past the end time retracts it, and the new chain writes it again once it passes the end
// time. The v1 events route leaves it out; GraphQL activity shows it.
import type { ContractTransactionResponse, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import type { Database } from '../../src/db/database.js';
import type { ExchangeFill } from '../helpers/evm/deploy.js';
import { COLLECTION_OFFER, registerCollections, STANDARD, startWorld, storedStatus, storeOrder, type OrderSpec, type StoredOrder, type World, worldEnv, send } from '../helpers/indexer-world.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const ETH = 10n ** 18n;
let w: World;
let app: TestApp;
let db: Database;
let ix: Indexer;
let t0: number;
const wallet = (i: number): Wallet => w.evm.wallets[i]!;
const seller = () => wallet(2);
const buyer = () => wallet(3);
const stranger = () => wallet(4);
const order = (signer: Wallet, spec: OrderSpec) => storeOrder(db, w, signer, spec, t0);
const indexer = () => createIndexer({ db, provider: w.indexerProvider(), network: w.network, startBlock: 0, confirmations: 0, batchSize: 50, now: () => new Date(t0 * 1000) });
/** moves chain time forward by `seconds` and mines a block there */
async function passTime(seconds: number) {
  await w.rpc('evm_increaseTime', [seconds]);
  await w.rpc('evm_mine');
}
async function mine(n: number) {
  for (let i = 0; i < n; i++) await w.rpc('evm_mine');
}

interface ExpiredRow {
  id: string;
  order_hash: string;
  old_status: string;
  new_status: string;
  block_number: string;
  tx_hash: string | null;
  log_index: number | null;
  token_id: string | null;
  from_address: string;
  created: string;
}
/** The EXPIRED rows no reorg retracted, oldest first. */
const liveExpired = () =>
  db.sql.query<ExpiredRow>(
    `SELECT e.id::text AS id, e.order_hash, e.old_status::text AS old_status, e.new_status::text AS new_status, e.block_number::text AS block_number,
            e.tx_hash, e.log_index, e.token_id::text AS token_id, e.from_address, floor(extract(epoch FROM e.created_at))::text AS created
     FROM market_events e WHERE e.type = 'STATUS_CHANGE' AND e.cause = 'EXPIRED'
       AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = e.id) ORDER BY e.id`,
  );
const expiredHashes = async () => (await liveExpired()).map((r) => r.order_hash);
const cursorBlock = async () => Number((await db.sql.query<{ n: string }>(`SELECT block_number::text AS n FROM indexer_cursor`))[0]!.n);
const blockTime = async (n: number) => (await w.evm.provider.getBlock(n))!.timestamp;

let valid: StoredOrder, notOwned: StoredOrder, sold: StoredOrder, later: StoredOrder, latest: StoredOrder, collectionOffer: StoredOrder, pastAtStart: StoredOrder;

beforeAll(async () => {
  w = await startWorld();
  t0 = await w.chainNow();
  const n = w.network;
  app = await startTestApp(
    {
      ...worldEnv(w),
    },
    { now: new Date(t0 * 1000) },
  );
  db = app.testDb.db;
  await registerCollections(db, [{ address: w.c.addresses.erc721, type: 'ERC721' }]);
  const { c } = w;
  for (let id = 1; id <= 5; id++) await send(c.erc721.connect(wallet(0)).mint(seller().address, id));
  await send(c.erc721.connect(wallet(0)).mint(stranger().address, 9));
  await send(c.erc721.connect(seller()).setApprovalForAll(n.transferManagerERC721, true));
  await send(c.weth.connect(buyer()).deposit({ value: 10n * ETH }));
  await send(c.weth.connect(buyer()).approve(n.exchange, 10n * ETH));

  const soon = BigInt(t0 + 100);
  valid = await order(seller(), { collection: c.addresses.erc721, tokenId: 1n, nonce: 1n, endTime: soon });
  notOwned = await order(seller(), { collection: c.addresses.erc721, tokenId: 9n, nonce: 2n, endTime: soon, status: 'INVALID_OWNER' });
  sold = await order(seller(), { collection: c.addresses.erc721, tokenId: 3n, nonce: 3n, endTime: soon });
  later = await order(seller(), { collection: c.addresses.erc721, tokenId: 4n, nonce: 4n, endTime: BigInt(t0 + 10_000) });
  latest = await order(seller(), { collection: c.addresses.erc721, tokenId: 2n, nonce: 6n, endTime: BigInt(t0 + 100_000) });
  collectionOffer = await order(buyer(), { isOrderAsk: false, collection: c.addresses.erc721, tokenId: null, nonce: 1n, endTime: soon });
  pastAtStart = await order(seller(), { collection: c.addresses.erc721, tokenId: 5n, nonce: 5n, startTime: BigInt(t0 - 7200), endTime: BigInt(t0 - 60) });
  ix = indexer();
  expect(await ix.runUntilCaughtUp()).not.toBeNull();
});
afterAll(async () => {
  await ix?.stop();
  await app?.close();
  await w?.stop();
});

describe(`EXPIRED events (${backendName})`, () => {
  it('writes nothing before the indexed chain passes an end time, nor for orders that ended before the indexer started', async () => {
    await mine(2);
    await ix.runUntilCaughtUp();
    expect(await liveExpired()).toEqual([]);
  });

  it('expires each order VALID when the batch passes its end time, once, at that batch', async () => {
    const fill: ExchangeFill = {
      orderHash: sold.hash,
      orderNonce: sold.nonce,
      maker: sold.signer,
      strategy: STANDARD,
      currency: w.network.weth,
      collection: sold.collection,
      tokenId: sold.tokenId!,
      amount: 1n,
      price: sold.price,
      isERC1155: false,
    };
    // a fill before the end time and a block past it, indexed by one batch: the sale, not an expiry
    await send(w.c.exchange.connect(buyer()).fillAsk(fill));
    await passTime(200);
    await ix.runUntilCaughtUp();
    const block = await cursorBlock();
    expect(await blockTime(block)).toBeGreaterThan(t0 + 100);
    expect(await storedStatus(db, sold.hash)).toBe('EXECUTED');
    const rows = await liveExpired();
    expect(rows.map((r) => r.order_hash).sort()).toEqual([valid.hash, collectionOffer.hash].sort());
    for (const r of rows) {
      expect(r).toMatchObject({ old_status: 'VALID', new_status: 'EXPIRED', block_number: String(block), tx_hash: null, log_index: null, created: String(t0 + 101) });
    }
    expect(rows.find((r) => r.order_hash === collectionOffer.hash)).toMatchObject({ token_id: null, from_address: buyer().address });
    expect(rows.find((r) => r.order_hash === valid.hash)).toMatchObject({ token_id: '1', from_address: seller().address });
    // the stored status keeps what the chain says (expiry is read at the market clock)
    expect(await storedStatus(db, valid.hash)).toBe('VALID');
    expect(await storedStatus(db, notOwned.hash)).toBe('INVALID_OWNER');
  });

  it('does not write it again: later batches, a restarted indexer, two indexers at once', async () => {
    const before = await liveExpired();
    await mine(3);
    await ix.runUntilCaughtUp();
    expect(await liveExpired()).toEqual(before);

    await ix.stop();
    const restarted = indexer();
    const other = indexer();
    await passTime(30);
    await mine(2);
    const results = await Promise.allSettled([restarted.runUntilCaughtUp(), other.runUntilCaughtUp()]);
    // whichever got in first indexed; the other stood by or found the cursor moved and wrote nothing
    expect(results.some((r) => r.status === 'fulfilled' && r.value !== null)).toBe(true);
    await restarted.runUntilCaughtUp();
    expect(await liveExpired()).toEqual(before);
    ix = restarted;
  });

  it('a reorg that replaces the blocks past an end time retracts the expiry; the new chain writes it again when it passes', async () => {
    const snapshot = await w.rpc<string>('evm_snapshot');
    await passTime(20_000);
    await ix.runUntilCaughtUp();
    const doomed = (await liveExpired()).find((r) => r.order_hash === later.hash);
    expect(doomed).toBeDefined();
    const doomedHead = await w.evm.provider.getBlockNumber();

    expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
    await mine(4); // a longer chain that has not reached the end time yet
    expect(await w.evm.provider.getBlockNumber()).toBeGreaterThan(doomedHead);
    const r = await ix.tick();
    expect(r?.rolledBackTo).toBeDefined();
    await ix.runUntilCaughtUp();
    expect(await expiredHashes()).not.toContain(later.hash);
    const [retraction] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM market_events WHERE type = 'RETRACTED' AND retracts_id = $1::bigint`, [doomed!.id]);
    expect(retraction!.n).toBe(1);

    await passTime(20_000);
    await ix.runUntilCaughtUp();
    const again = (await liveExpired()).filter((x) => x.order_hash === later.hash);
    expect(again).toHaveLength(1);
    expect(again[0]!.id).not.toBe(doomed!.id);
    expect(again[0]!.block_number).toBe(String(await cursorBlock()));
  });

  it('after a reorg, the first batch of the new chain expires from the fork block\'s time', async () => {
    // the replaced chain went further in time than the new one: the range starts at the fork
    const snapshot = await w.rpc<string>('evm_snapshot');
    await passTime(200_000);
    await ix.runUntilCaughtUp();
    const doomed = (await liveExpired()).find((r) => r.order_hash === latest.hash);
    expect(doomed).toBeDefined();
    const doomedHead = await w.evm.provider.getBlockNumber();

    expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
    await passTime(150_000);
    await mine(4);
    expect(await w.evm.provider.getBlockNumber()).toBeGreaterThan(doomedHead);
    await ix.runUntilCaughtUp();
    const again = (await liveExpired()).filter((x) => x.order_hash === latest.hash);
    expect(again).toHaveLength(1);
    expect(again[0]!.id).not.toBe(doomed!.id);
    expect((await expiredHashes()).sort()).toEqual([valid.hash, collectionOffer.hash, later.hash, latest.hash].sort());
  });

  it('GraphQL activity shows it with cause EXPIRED; the v1 events route, which had no such type, leaves it out', async () => {
    app.clock.now = new Date((await w.chainNow()) * 1000);
    const res = await app.gql<{ activity: { edges: { node: { type: string; cause: string | null; order: { hash: string; status: string } | null } }[] } }>(
      `query($c: Address!) { activity(first: 50, filter: { collection: $c, types: [STATUS_CHANGE] }) { edges { node { type cause order { hash status } } } } }`,
      { c: w.c.addresses.erc721 },
    );
    expect(res.errors).toBeUndefined();
    const expired = res.data!.activity.edges.map((e) => e.node).filter((n) => n.cause === 'EXPIRED');
    expect(expired.map((n) => n.order!.hash).sort()).toEqual([valid.hash, collectionOffer.hash, later.hash, latest.hash].sort());
    expect(expired.every((n) => n.type === 'STATUS_CHANGE' && n.order!.status === 'EXPIRED')).toBe(true);

    const v1 = await app.rest(`/api/v1/events?collection=${w.c.addresses.erc721}&pagination[first]=150`);
    expect(v1.status).toBe(200);
    const types = new Set((v1.body.data as { type: string }[]).map((e) => e.type));
    expect([...types].every((x) => ['LIST', 'OFFER', 'SALE', 'TRANSFER', 'MINT', 'CANCEL_LIST', 'CANCEL_OFFER'].includes(x))).toBe(true);
    const [{ n }] = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM market_events e WHERE e.collection_address = $1 AND e.type IN ('LIST', 'OFFER', 'COLLECTION_OFFER', 'SALE', 'TRANSFER', 'MINT', 'CANCEL_LIST', 'CANCEL_OFFER')
         AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = e.id)`,
      [w.c.addresses.erc721],
    ) as [{ n: number }];
    expect(v1.body.data).toHaveLength(n);
  });
});
