// Randomised check of the chain indexer and what the market reads from it: several signers,
// tokens and orders (some ending within minutes), a few hundred random chain actions (transfers,
// approvals and revocations, WETH moves, cancels, fills; some packed several to a block; chain
// time jumps that end orders), indexing interleaved at random batch sizes, and once a branch of
// actions indexed and then replaced by a reorg. The market runs once; each check below then asks
// the chain directly (no indexer code) and compares:
// - every order's stored status, through deriveStatus (ownerOf / balanceOf / isApprovedForAll /
//   allowance / the exchange's nonce state / whether its hash was filled);
// - the market event log: every transfer and sale of the canonical chain once, in chain order,
//   each order's status events replaying its status with the log that caused each change, the
//   replaced branch's events retracted, expiries once and only for VALID orders
//   (test/helpers/market-oracle.ts);
// - per token, its owners and best bid as GraphQL `token` answers them;
// - the trait panel: token metadata read by the real worker from a loopback server while tokens
//   get new URIs at random (EIP-4906 MetadataUpdate, some on the replaced branch), and each trait
//   value's token count, floor and best bid against the traits the chain's current token URIs
//   serve and the chain-valid live orders.
// INDEXER_RANDOM_SEED picks another sequence (runs with one seed still differ a little: order
// hashes depend on the chain clock, and fills pick among orders the indexer holds VALID).
import type { ContractTransactionResponse, Wallet } from 'ethers';
import { MaxUint256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import type { Database } from '../../src/db/database.js';
import { prng } from '../../src/demo/prng.js';
import { DEFAULT_EVENT_TYPES, type MarketEventType } from '../../src/domain/activity-query.js';
import { TERMINAL_STATUSES, type OrderStatusName } from '../../src/domain/order-status.js';
import type { ExchangeFill } from '../helpers/evm/deploy.js';
import { chainStatus, COLLECTION_OFFER, filledHashes, registerCollections, STANDARD, startWorld, storeOrder, type OrderSpec, type World, worldEnv } from '../helpers/indexer-world.js';
import { checkChainEvents, checkChainOrder, checkOrderEvents, liveEvents, readChainFacts, readEventLog, type LoggedEvent, type TrackedOrder } from '../helpers/market-oracle.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { createContentFetcher } from '../../src/services/metadata-fetch/index.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { createMetadataWorker, type MetadataWorker } from '../../src/services/metadata-worker.js';
import { createTokenRarity } from '../../src/services/token-rarity.js';
import { startServer, type LocalServer } from '../services/metadata-fetch/local-servers.js';
import { backendName } from '../helpers/test-database.js';

const SEED = Number(process.env.INDEXER_RANDOM_SEED ?? 20261122);
const ACTIONS = 300;
const ETH = 10n ** 18n;
const TOKENS_721 = 24;
const IDS_1155 = [1n, 2n, 3n, 4n];
/** an explicit gas limit skips estimateGas, so a transaction that reverts is mined (and fails) instead of throwing early */
const GAS = { gasLimit: 1_000_000 };

let w: World;
let app: TestApp;
let db: Database;
let ix: Indexer;
let nowSec: number;
const rnd = prng(SEED);
const orders: TrackedOrder[] = [];
/** what the run did, for the checks and the summary line */
const run = { bursts: 0, timeJumps: 0, forkBlock: null as number | null, doomedEvents: [] as LoggedEvent[], rolledBackTo: [] as number[], uriChanges: 0 };
/** metadata actions draw from their own sequence: the market's draws stay those of the seed */
const metaRnd = prng(SEED + 4906);
let metaServer: LocalServer;
let metaWorker: MetadataWorker;
const BACKGROUNDS = ['Gold', 'Blue', 'Red', 'Green'];
/** The traits a token's document serves at version v (what /meta/<id>/v<v> answers). */
const traitsAt = (id: number, v: number) => ({
  Background: BACKGROUNDS[(id * 7 + v * 3) % BACKGROUNDS.length]!,
  Eyes: (id + v) % 3 === 0 ? 'Laser' : 'Calm',
});

beforeAll(async () => {
  w = await startWorld();
  nowSec = await w.chainNow();
  app = await startTestApp(
    {
      ...worldEnv(w),
    },
    { now: new Date(nowSec * 1000) },
  );
  db = app.testDb.db;
  metaServer = await startServer((req, res) => {
    const m = /^\/meta\/(\d+)(?:\/v(\d+))?$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    const traits = traitsAt(Number(m[1]), Number(m[2] ?? 0));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `#${m[1]}`, attributes: Object.entries(traits).map(([trait_type, value]) => ({ trait_type, value })) }));
  });
  const fetcher = createContentFetcher({
    ipfsGateways: ['http://127.0.0.1:9'], arweaveGateway: 'http://127.0.0.1:9', allowPrivateTargets: true, timeoutMs: 5000,
    maxBytes: 65_536, maxRedirects: 2, perHostConcurrency: 16, perHostIntervalMs: 0, retries: 1, retryBaseDelayMs: 10,
  });
  const deps = app.services.deps;
  metaWorker = createMetadataWorker(deps, createMetadataQueue(deps), createTokenRarity(deps), createChainReader(w.evm.rpcUrl, deps.network), fetcher, { instanceId: 'random-run' });
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
    batchSize: 4,
    now: () => new Date(nowSec * 1000),
    onEvent: (e) => {
      if (e.type === 'reorg') run.rolledBackTo.push(e.forkBlock);
    },
  });
  await runMarket();
});
afterAll(async () => {
  await metaWorker?.stop();
  await app?.close();
  await metaServer?.close();
  await w?.stop();
});

/** The random market: setup, orders, actions with one reorg, then indexed to the head. */
async function runMarket() {
  const { c, network } = w;
  const wallets = w.evm.wallets.slice(2, 10); // 8 accounts: signers and counterparties
  const signers = wallets.slice(0, 6);
  const minter = w.evm.wallets[0]!;
  const other = (x: Wallet) => rnd.pick(wallets.filter((y) => y !== x));
  const wait = async (p: Promise<ContractTransactionResponse>) => {
    try {
      await (await p).wait();
      return true;
    } catch {
      return false; // reverted: nothing happened on chain
    }
  };

  // Initial holdings, approvals and WETH.
  for (let id = 1; id <= TOKENS_721; id++) await wait(c.erc721.connect(minter).mint(rnd.pick(wallets).address, id));
  for (const x of wallets) {
    for (const id of IDS_1155) if (rnd.next() < 0.5) await wait(c.erc1155.connect(minter).mint(x.address, id, rnd.int(1, 4)));
    if (rnd.next() < 0.8) await wait(c.erc721.connect(x).setApprovalForAll(network.transferManagerERC721, true));
    if (rnd.next() < 0.8) await wait(c.erc1155.connect(x).setApprovalForAll(network.transferManagerERC1155, true));
    await wait(c.weth.connect(x).deposit({ value: BigInt(rnd.int(1, 5)) * ETH }));
    await wait(c.weth.connect(x).approve(network.exchange, rnd.pick([0n, ETH, 3n * ETH, MaxUint256])));
  }

  // Orders, stored with the status the chain gives them at submission time; about one in six
  // ends within minutes of chain time (the run moves chain time forward past most of them).
  const addOrder = async (offersOnFreshNonces = false) => {
    const signer = rnd.pick(signers);
    const kind = offersOnFreshNonces ? rnd.int(2, 3) : rnd.int(0, 3);
    // offers: mostly on the ERC-721 collection, some on the ERC-1155 one
    const bidOn1155 = rnd.next() < 0.2;
    const spec: OrderSpec =
      kind === 0
        ? { collection: c.addresses.erc721, tokenId: BigInt(rnd.int(1, TOKENS_721)), nonce: BigInt(rnd.int(0, 12)) }
        : kind === 1
          ? { collection: c.addresses.erc1155, tokenId: rnd.pick(IDS_1155), amount: BigInt(rnd.int(1, 3)), nonce: BigInt(rnd.int(0, 12)) }
          : {
              isOrderAsk: false,
              collection: bidOn1155 ? c.addresses.erc1155 : c.addresses.erc721,
              tokenId: kind === 3 ? null : bidOn1155 ? rnd.pick(IDS_1155) : BigInt(rnd.int(1, TOKENS_721)),
              nonce: BigInt(rnd.int(0, 12)),
            };
    spec.price = (BigInt(rnd.int(1, 20)) * ETH) / 10n;
    if (offersOnFreshNonces) {
      spec.nonce = BigInt(rnd.int(100, 140));
      // what most wallets can still pay, from a few prices so that best bids tie (the oldest wins)
      spec.price = (BigInt(rnd.pick([5, 10, 15, 20, 25])) * ETH) / 100n;
    }
    spec.status = 'VALID';
    const chainNow = await w.chainNow();
    spec.startTime = BigInt(nowSec - 3600);
    if (rnd.next() < 0.17) spec.endTime = BigInt(chainNow + rnd.int(30, 900));
    try {
      const stored = await storeOrder(db, w, signer, spec, nowSec);
      const addedAtBlock = await w.evm.provider.getBlockNumber();
      const status = await chainStatus(w, stored, await filledHashes(w), nowSec);
      await db.sql.query(`UPDATE orders SET status = $2::"OrderStatus" WHERE hash = $1`, [stored.hash, status]);
      orders.push({ ...stored, initialStatus: status, addedAtBlock, startTime: spec.startTime });
    } catch (err) {
      if ((err as { code?: string }).code !== 'P2002') throw err; // the same order drawn twice
    }
  };
  for (let i = 0; i < 120; i++) await addOrder();
  expect(await ix.runUntilCaughtUp()).not.toBeNull();

  // Random actions. Each returns the sent transaction, or null when it had nothing to do.
  type Action = () => Promise<ContractTransactionResponse | null>;
  const ownerOf721 = (id: number) => c.erc721.ownerOf(id);
  const walletOf = (address: string) => wallets.find((x) => x.address === address);
  const actions: [weight: number, Action][] = [
    [20, async () => {
      const id = rnd.int(1, TOKENS_721);
      const from = walletOf(await ownerOf721(id))!;
      return c.erc721.connect(from).transferFrom(from.address, other(from).address, id, GAS);
    }],
    [12, async () => {
      const from = rnd.pick(wallets);
      const held = [];
      for (const id of IDS_1155) {
        const b = await c.erc1155.balanceOf(from.address, id);
        if (b > 0n) held.push({ id, b });
      }
      if (!held.length) return null;
      if (held.length > 1 && rnd.next() < 0.3) {
        const two = held.slice(0, 2);
        return c.erc1155.connect(from).safeBatchTransferFrom(from.address, other(from).address, two.map((x) => x.id), two.map((x) => BigInt(rnd.int(1, Number(x.b)))), '0x', GAS);
      }
      const x = rnd.pick(held);
      return c.erc1155.connect(from).safeTransferFrom(from.address, other(from).address, x.id, BigInt(rnd.int(1, Number(x.b))), '0x', GAS);
    }],
    [12, async () => {
      const x = rnd.pick(wallets);
      const is721 = rnd.next() < 0.5;
      const operator = rnd.next() < 0.2 ? network.exchange : is721 ? network.transferManagerERC721 : network.transferManagerERC1155;
      const nft = is721 ? c.erc721 : c.erc1155;
      return nft.connect(x).setApprovalForAll(operator, rnd.next() < 0.6, GAS);
    }],
    [20, async () => {
      const x = rnd.pick(wallets);
      const balance = await c.weth.balanceOf(x.address);
      const op = rnd.int(0, 3);
      if (op === 0) return c.weth.connect(x).deposit({ value: (BigInt(rnd.int(1, 20)) * ETH) / 10n, ...GAS });
      if (op === 1) return balance ? c.weth.connect(x).withdraw((balance * BigInt(rnd.int(1, 100))) / 100n, GAS) : null;
      if (op === 2) return balance ? c.weth.connect(x).transfer(other(x).address, (balance * BigInt(rnd.int(1, 100))) / 100n, GAS) : null;
      return c.weth.connect(x).approve(rnd.next() < 0.85 ? network.exchange : other(x).address, rnd.pick([0n, ETH / 2n, ETH, 2n * ETH, MaxUint256]), GAS);
    }],
    [3, async () => {
      const x = rnd.pick(signers);
      return c.exchange.connect(x).cancelMultipleMakerOrders([...new Set([rnd.int(0, 12), rnd.int(0, 12)])], GAS);
    }],
    [1, async () => {
      const x = rnd.pick(signers);
      return c.exchange.connect(x).cancelAllOrdersForSender((await c.exchange.userMinOrderNonce(x.address)) + BigInt(rnd.int(1, 2)), GAS);
    }],
    [20, async () => {
      // The test exchange does not check times; the real one refuses an order past its end time,
      // so orders that end within the run are never filled here.
      const fillable = orders.filter((x) => x.endTime > BigInt(nowSec + 86_400));
      // mostly an order the indexer believes VALID (it may be behind), so that fills happen
      const valid = await db.sql.query<{ hash: string }>(`SELECT hash FROM orders WHERE status = 'VALID'`);
      const validSet = new Set(valid.map((v) => v.hash));
      const candidates = fillable.filter((x) => validSet.has(x.hash));
      const o = candidates.length && rnd.next() < 0.8 ? rnd.pick(candidates) : rnd.pick(fillable);
      const maker = walletOf(o.signer)!;
      const is1155 = o.collectionType === 'ERC1155';
      const fill: ExchangeFill = {
        orderHash: o.hash,
        orderNonce: o.nonce,
        maker: o.signer,
        strategy: o.tokenId === null ? COLLECTION_OFFER : STANDARD,
        currency: network.weth,
        collection: o.collection,
        tokenId: o.tokenId ?? (is1155 ? rnd.pick(IDS_1155) : BigInt(rnd.int(1, TOKENS_721))),
        amount: o.amount,
        price: o.price,
        isERC1155: is1155,
      };
      if (o.isOrderAsk) {
        // mostly a taker who can pay, so that fills happen
        const payers = [];
        for (const x of wallets) {
          if (x !== maker && (await c.weth.balanceOf(x.address)) >= o.price && (await c.weth.allowance(x.address, network.exchange)) >= o.price) payers.push(x);
        }
        return c.exchange.connect(payers.length && rnd.next() < 0.8 ? rnd.pick(payers) : other(maker)).fillAsk(fill, GAS);
      }
      let taker: Wallet | undefined;
      if (is1155) {
        const holders = [];
        for (const x of wallets) if (x !== maker && (await c.erc1155.balanceOf(x.address, fill.tokenId)) >= o.amount) holders.push(x);
        taker = holders.length ? rnd.pick(holders) : undefined;
      } else taker = walletOf(await ownerOf721(Number(fill.tokenId)));
      if (!taker || taker === maker) return null;
      return c.exchange.connect(taker).fillBid(fill, GAS);
    }],
    [3, async () => {
      // chain time moves on: the orders that end within the run expire
      await w.rpc('evm_increaseTime', [rnd.int(30, 300)]);
      run.timeJumps++;
      return null;
    }],
  ];
  const total = actions.reduce((s, [wt]) => s + wt, 0);
  const pickAction = () => {
    let r = rnd.next() * total;
    for (const [wt, a] of actions) if ((r -= wt) < 0) return a;
    return actions[0]![1];
  };
  const act = async () => {
    const tx = await pickAction()().catch(() => null);
    if (tx) await wait(Promise.resolve(tx));
  };

  let done = 0;
  let reorged = false;
  let lateOffers = false;
  while (done < ACTIONS) {
    if (!lateOffers && done >= ACTIONS * 0.8) {
      // by now most early orders are dead (nonces reused, funds moved): a round of offers on
      // nonces not used yet, so the last actions and the best-bid check meet live books
      lateOffers = true;
      for (let k = 0; k < 30; k++) await addOrder(true);
    }
    if (!reorged && done >= ACTIONS / 2) {
      // A branch of actions (with a time jump, so orders may expire on it) is indexed, then
      // replaced by the chain as it was before it; the loop goes on and its next tick rolls back.
      reorged = true;
      expect(await ix.runUntilCaughtUp()).not.toBeNull();
      const snapshot = await w.rpc<string>('evm_snapshot');
      run.forkBlock = await w.evm.provider.getBlockNumber();
      await w.rpc('evm_increaseTime', [rnd.int(200, 600)]);
      for (let k = rnd.int(8, 14); k > 0; k--) await act();
      for (const id of [1, 2, 3]) await wait(c.erc721.connect(minter).setTokenURI(id, `${metaServer.origin}/meta/${id}/v9`));
      expect(await ix.runUntilCaughtUp()).not.toBeNull();
      await metaWorker.runOnce(); // reads the replaced branch's documents: the reorg must queue them again
      run.doomedEvents = liveEvents(await readEventLog(db)).filter((e) => e.block !== null && e.block > run.forkBlock!);
      expect(await w.rpc('evm_revert', [snapshot])).toBe(true);
      continue;
    }
    const roll = rnd.next();
    if (roll < 0.08) {
      // index part of the way, at whatever batch the indexer takes (4 blocks)
      for (let k = rnd.int(1, 3); k > 0; k--) await ix.tick();
    } else if (roll < 0.1) {
      await addOrder();
    } else if (roll < 0.2) {
      // several actions mined in one block
      await w.rpc('evm_setAutomine', [false]);
      const sent: ContractTransactionResponse[] = [];
      try {
        for (let k = rnd.int(2, 4); k > 0; k--) {
          const tx = await pickAction()().catch(() => null);
          if (tx) sent.push(tx);
          done++;
        }
        // new token URIs ride in the same block (EIP-4906 MetadataUpdate; the first sets the base URI)
        if (run.uriChanges === 0) sent.push(await c.erc721.connect(minter).setBaseURI(`${metaServer.origin}/meta/`, GAS));
        for (let k = metaRnd.int(1, 3); k > 0; k--) {
          sent.push(await c.erc721.connect(minter).setTokenURI(metaRnd.int(1, TOKENS_721), `${metaServer.origin}/meta/${metaRnd.int(1, TOKENS_721)}/v${metaRnd.int(1, 5)}`, GAS));
          run.uriChanges++;
        }
        await w.rpc('evm_mine');
      } finally {
        await w.rpc('evm_setAutomine', [true]);
      }
      for (const tx of sent) await wait(Promise.resolve(tx));
      run.bursts++;
    } else {
      await act();
      done++;
      // the metadata worker reads what is due now and then, and the trait floor pass follows the log
      if (metaRnd.next() < 0.15) {
        await metaWorker.runOnce();
        await app.services.traitFloors.runOnce();
      }
    }
  }
  // a last block, so a time jump at the end reaches the chain too
  await w.rpc('evm_mine');
  expect(await ix.runUntilCaughtUp()).not.toBeNull();
  // listings by the tokens' owners now, so that trait floors meet a live book (their own draws)
  for (let k = 0; k < 12; k++) {
    const tokenId = BigInt(metaRnd.int(1, TOKENS_721));
    const owner = walletOf(await ownerOf721(Number(tokenId)));
    if (!owner || !signers.includes(owner)) continue;
    const spec: OrderSpec = { collection: c.addresses.erc721, tokenId, nonce: BigInt(200 + k), price: (BigInt(metaRnd.int(1, 30)) * ETH) / 10n, status: 'VALID', startTime: BigInt(nowSec - 3600) };
    const stored = await storeOrder(db, w, owner, spec, nowSec);
    const status = await chainStatus(w, stored, await filledHashes(w), nowSec);
    await db.sql.query(`UPDATE orders SET status = $2::"OrderStatus" WHERE hash = $1`, [stored.hash, status]);
    orders.push({ ...stored, initialStatus: status, addedAtBlock: await w.evm.provider.getBlockNumber(), startTime: spec.startTime! });
  }
  await metaWorker.runOnce();
}

const storedStatuses = async () =>
  new Map((await db.sql.query<{ hash: string; status: string }>('SELECT hash, status::text AS status FROM orders')).map((r) => [r.hash, r.status]));
const cursor = async () => {
  const [r] = await db.sql.query<{ n: string; t: string }>('SELECT block_number::text AS n, block_timestamp::text AS t FROM indexer_cursor');
  return { block: Number(r!.n), time: Number(r!.t) };
};

describe(`chain indexer and market reads against a chain oracle, random actions (${backendName}, seed ${SEED})`, () => {
  it(`every order's status equals the chain's after ${ACTIONS} random actions and a reorg`, async () => {
    const filled = await filledHashes(w);
    const stored = await storedStatuses();
    const indexedTime = BigInt((await cursor()).time);
    const mismatches: string[] = [];
    const tally = new Map<string, number>();
    for (const o of orders) {
      const expected = await chainStatus(w, o, filled, nowSec);
      tally.set(expected, (tally.get(expected) ?? 0) + 1);
      const got = stored.get(o.hash)!;
      // Past its end time an order is left alone (its status is read as EXPIRED) except by a
      // fill or a cancel: what the chain says about its asset or funds since does not matter.
      const ended = o.endTime < indexedTime;
      const ok = ended && !TERMINAL_STATUSES.includes(expected) ? !TERMINAL_STATUSES.includes(got as OrderStatusName) : got === expected;
      if (!ok) mismatches.push(`${o.hash} ${o.isOrderAsk ? 'ask' : 'bid'} ${o.collectionType} #${o.tokenId} nonce ${o.nonce}${ended ? ' (ended)' : ''}: stored ${got}, chain ${expected}`);
    }
    console.log(
      `seed ${SEED}: ${orders.length} orders, ${ACTIONS} actions (${run.bursts} multi-transaction blocks, ${run.timeJumps} time jumps, ` +
        `reorg to block ${run.rolledBackTo.join(', ')} undoing ${run.doomedEvents.length} events), ${filled.size} fills; statuses ${JSON.stringify(Object.fromEntries(tally))}`,
    );
    expect(mismatches).toEqual([]);
    // the run must have exercised more than one status, and the reorg must have happened
    expect(tally.size).toBeGreaterThanOrEqual(5);
    expect(run.rolledBackTo).toEqual([run.forkBlock]);
  });

  it('the event log holds every transfer and sale of the canonical chain once, in chain order, and nothing of the replaced branch', async () => {
    const log = await readEventLog(db);
    const facts = await readChainFacts(w);
    expect(checkChainEvents(log, facts)).toEqual([]);
    expect(checkChainOrder(log)).toEqual([]);
    // the replaced branch left events, and each was retracted once, newest first, by the rollback
    expect(run.doomedEvents.length).toBeGreaterThan(0);
    const retractions = log.filter((e) => e.type === 'RETRACTED');
    expect(retractions.map((r) => r.retractsId)).toEqual(run.doomedEvents.map((e) => e.id).reverse());
    // and GraphQL counts what the log holds live
    const res = await app.gql<{ activity: { totalCount: number } }>('{ activity(first: 1) { totalCount } }');
    expect(res.data?.activity.totalCount).toBe(liveEvents(log).filter((e) => DEFAULT_EVENT_TYPES.includes(e.type as MarketEventType)).length);
  });

  it("each collection's last FLOOR_CHANGE and BEST_BID_CHANGE events are its floor and top bid as GraphQL answers them", async () => {
    const { c } = w;
    app.clock.now = new Date((await w.chainNow()) * 1000);
    let moves = 0;
    for (const address of [c.addresses.erc721, c.addresses.erc1155]) {
      // the orders of this run were stored directly, not submitted: record the collection as a submission would
      await app.services.stats.recordFloor(address);
      const res = await app.gql<{ collection: { stats: { floorPrice: string | null }; topBid: { hash: string; price: string } | null } }>(
        `query($a: Address!) { collection(address: $a) { stats { floorPrice } topBid { hash price } } }`,
        { a: address },
      );
      expect(res.errors).toBeUndefined();
      const log = (await readEventLog(db)).filter((e) => e.collection === address);
      const floor = log.filter((e) => e.type === 'FLOOR_CHANGE').at(-1);
      const bid = log.filter((e) => e.type === 'BEST_BID_CHANGE').at(-1);
      moves += log.filter((e) => e.type === 'FLOOR_CHANGE' || e.type === 'BEST_BID_CHANGE').length;
      expect(floor?.price ?? null, `${address} floor`).toBe(res.data!.collection.stats.floorPrice);
      const top = res.data!.collection.topBid;
      expect(bid ? { hash: bid.orderHash, price: bid.price } : null, `${address} best bid`).toEqual(top ? { hash: top.hash, price: top.price } : null);
    }
    expect(moves).toBeGreaterThan(2);
  });

  it("each order's status events replay its status, name the chain log behind each change, and expire it once when it ends VALID", async () => {
    const log = await readEventLog(db);
    const facts = await readChainFacts(w);
    const live = liveEvents(log);
    const blockTime = new Map<number, number>();
    for (const b of new Set(live.filter((e) => e.cause === 'EXPIRED').map((e) => e.block!))) blockTime.set(b, (await w.evm.provider.getBlock(b))!.timestamp);
    expect(checkOrderEvents(log, facts, orders, await storedStatuses(), blockTime, (await cursor()).time)).toEqual([]);
    // the run made every kind of change the check looks at
    const causes = new Set(live.map((e) => e.cause));
    for (const cause of ['EXECUTED', 'NONCE_USED', 'NONCE_CANCELLED', 'APPROVAL_REVOKED', 'ERC20_BALANCE_LOW', 'OWNER_CHANGED', 'EXPIRED']) expect(causes).toContain(cause);
  });

  it("each token's owners and best bid, as GraphQL answers them, are the chain's", async () => {
    const { c } = w;
    const clock = await w.chainNow();
    app.clock.now = new Date(clock * 1000);
    const tokens = [...Array.from({ length: TOKENS_721 }, (_, i) => ({ collection: c.addresses.erc721, tokenId: BigInt(i + 1) })), ...IDS_1155.map((id) => ({ collection: c.addresses.erc1155, tokenId: id }))];
    const query = `query { ${tokens.map((t, i) => `t${i}: token(collection: "${t.collection}", tokenId: "${t.tokenId}") { owners { owner balance } bestBid { hash } }`).join('\n')} }`;
    const res = await app.gql<Record<string, { owners: { owner: string; balance: string }[]; bestBid: { hash: string } | null }>>(query);
    expect(res.errors).toBeUndefined();

    // the oracle's best bid: the chain-valid, live offers that can fill the token (its token
    // offers, the collection's collection offers), highest price, then the oldest order
    const filled = await filledHashes(w);
    const ids = new Map((await db.sql.query<{ hash: string; id: string }>('SELECT hash, id::text AS id FROM orders')).map((r) => [r.hash, BigInt(r.id)]));
    const validBids: TrackedOrder[] = [];
    for (const o of orders) {
      if (o.isOrderAsk || o.startTime > BigInt(clock) || o.endTime < BigInt(clock)) continue;
      if ((await chainStatus(w, o, filled, clock)) === 'VALID') validBids.push(o);
    }
    const problems: string[] = [];
    let withBid = 0;
    let ties = 0;
    let collectionOfferWins = 0;
    for (const [i, t] of tokens.entries()) {
      const got = res.data![`t${i}`]!;
      const chainOwners = [];
      if (t.collection === c.addresses.erc721) chainOwners.push({ owner: await c.erc721.ownerOf(t.tokenId), balance: '1' });
      else {
        for (const x of w.evm.wallets) {
          const b = await c.erc1155.balanceOf(x.address, t.tokenId);
          if (b > 0n) chainOwners.push({ owner: x.address, balance: b.toString() });
        }
      }
      const sortOwners = (l: { owner: string; balance: string }[]) => [...l].sort((a, b) => a.owner.localeCompare(b.owner));
      if (JSON.stringify(sortOwners(got.owners)) !== JSON.stringify(sortOwners(chainOwners))) problems.push(`${t.collection}#${t.tokenId} owners ${JSON.stringify(got.owners)}, chain ${JSON.stringify(chainOwners)}`);

      const best = validBids
        .filter((o) => o.collection === t.collection && (o.tokenId === null || o.tokenId === t.tokenId))
        .sort((a, b) => (a.price === b.price ? (ids.get(a.hash)! < ids.get(b.hash)! ? -1 : 1) : a.price > b.price ? -1 : 1))[0];
      if ((got.bestBid?.hash ?? null) !== (best?.hash ?? null)) problems.push(`${t.collection}#${t.tokenId} best bid ${got.bestBid?.hash ?? null}, oracle ${best?.hash ?? null} (${best?.price})`);
      if (best) withBid++;
      if (best && validBids.some((o) => o !== best && o.price === best.price && o.collection === t.collection && (o.tokenId === null || o.tokenId === t.tokenId))) ties++;
      if (best?.tokenId === null) collectionOfferWins++;
    }
    expect(problems).toEqual([]);
    // the books were not empty, and both kinds of offer competed
    console.log(`best bids: ${withBid} of ${tokens.length} tokens have one (${collectionOfferWins} a collection offer, ${ties} decided by the tie rule) from ${validBids.length} live offers`);
    expect(withBid).toBeGreaterThan(5);
    expect(ties).toBeGreaterThan(0);
    expect(validBids.some((o) => o.tokenId === null)).toBe(true);
    expect(validBids.some((o) => o.tokenId !== null)).toBe(true);
  });
  it("the trait panel's counts, floors and best bids are those of the chain's token URIs and its valid live orders", async () => {
    const { c } = w;
    const clock = await w.chainNow();
    app.clock.now = new Date(clock * 1000);
    // the truth: each token's traits as its current token URI serves them
    const truth = new Map<bigint, Record<string, string>>();
    for (let id = 1; id <= TOKENS_721; id++) {
      const m = /\/meta\/(\d+)(?:\/v(\d+))?$/.exec(await c.erc721.tokenURI(id))!;
      truth.set(BigInt(id), traitsAt(Number(m[1]), Number(m[2] ?? 0)));
    }
    const filled = await filledHashes(w);
    const live: TrackedOrder[] = [];
    for (const o of orders) {
      if (o.collection !== c.addresses.erc721 || o.startTime > BigInt(clock) || o.endTime < BigInt(clock)) continue;
      if ((await chainStatus(w, o, filled, clock)) === 'VALID') live.push(o);
    }
    const res = await app.gql<{ collection: { attributes: { traitType: string; values: { value: string; tokenCount: number; floorPrice: string | null; bestBidPrice: string | null }[] }[] } }>(
      `query($c: Address!) { collection(address: $c) { attributes { traitType values { value tokenCount floorPrice bestBidPrice } } } }`,
      { c: c.addresses.erc721 },
    );
    expect(res.errors).toBeUndefined();
    const problems: string[] = [];
    const oracleFloors = new Map<string, string | null>();
    let compared = 0;
    let withFloor = 0;
    const expectedPairs = new Set([...truth.values()].flatMap((t) => Object.entries(t).map(([k, v]) => `${k}=${v}`)));
    const gotPairs = new Set(res.data!.collection.attributes.flatMap((t) => t.values.map((v) => `${t.traitType}=${v.value}`)));
    if ([...expectedPairs].sort().join() !== [...gotPairs].sort().join()) problems.push(`values ${[...gotPairs].sort()} vs ${[...expectedPairs].sort()}`);
    for (const type of res.data!.collection.attributes) {
      for (const v of type.values) {
        const ids = [...truth.entries()].filter(([, t]) => t[type.traitType] === v.value).map(([id]) => id);
        const asks = live.filter((o) => o.isOrderAsk && o.tokenId !== null && ids.includes(o.tokenId));
        const bids = live.filter((o) => !o.isOrderAsk && (o.tokenId === null || ids.includes(o.tokenId)));
        const floor = asks.length ? asks.map((o) => o.price).reduce((a, b) => (a < b ? a : b)).toString() : null;
        const best = bids.length ? bids.map((o) => o.price).reduce((a, b) => (a > b ? a : b)).toString() : null;
        compared += 3;
        if (floor) withFloor++;
        if (v.tokenCount !== ids.length) problems.push(`${type.traitType}=${v.value} count ${v.tokenCount}, chain ${ids.length}`);
        if (v.floorPrice !== floor) problems.push(`${type.traitType}=${v.value} floor ${v.floorPrice}, oracle ${floor}`);
        oracleFloors.set(`${type.traitType}=${v.value}`, floor);
        if (v.bestBidPrice !== best) problems.push(`${type.traitType}=${v.value} best bid ${v.bestBidPrice}, oracle ${best}`);
      }
    }
    // the log's TRAIT_FLOOR_CHANGE events, read after a pass: each value's last one states the oracle's floor
    await app.services.traitFloors.runOnce();
    const moves = await app.db.sql.query<{ k: string; price: string | null }>(
      `SELECT DISTINCT ON (trait_type, trait_value) trait_type || '=' || trait_value AS k, price::text AS price FROM market_events
        WHERE type = 'TRAIT_FLOOR_CHANGE' AND collection_address = $1 ORDER BY trait_type, trait_value, id DESC`,
      [c.addresses.erc721],
    );
    const announced = new Map(moves.map((m) => [m.k, m.price]));
    for (const [k, floor] of oracleFloors) {
      compared++;
      if ((announced.get(k) ?? null) !== floor) problems.push(`${k} last TRAIT_FLOOR_CHANGE ${announced.get(k)}, oracle ${floor}`);
    }
    console.log(`trait panel: ${compared} comparisons over ${gotPairs.size} trait values (${withFloor} with a floor), ${run.uriChanges} token URI changes, 3 on the replaced branch, ${moves.length} values with floor events`);
    expect(problems).toEqual([]);
    expect(withFloor).toBeGreaterThan(0);
    expect(run.uriChanges).toBeGreaterThan(10);
  });
});
