// An order submitted while the chain invalidates it must not stay VALID. Each test
// forces one interleaving of "submission checks the chain", "the chain invalidates the order",
// "the indexer scans / writes a batch" and "the submission inserts", with barriers in the two
// test seams (submissionHooks.beforeInsert, the indexer's beforeWrite), for every kind of
// invalidating event. Afterwards the order is either refused, or stored with the status the
// chain implies (asked directly, no indexer involved) and settled (chain_checked_block NULL).
import type { ServiceDeps } from '../../src/services/deps.js';
import { createStatsService } from '../../src/services/stats.js';
import { MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import { loadConfig } from '../../src/config.js';
import { createEventBus, type EventBus } from '../../src/events/event-bus.js';
import { createOrderSubmissionService, type OrderSubmissionService } from '../../src/services/order-submission.js';
import { OrderRejectedError } from '../../src/services/order-rejected.js';
import { chainStatus, COLLECTION_OFFER, filledHashes, registerCollections, STANDARD, startWorld, storedStatus, type StoredOrder, type World } from '../helpers/indexer-world.js';
import { signWithEthers6, type MakerOrderBody } from '../helpers/maker-orders.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const ETH = 10n ** 18n;

let w: World;
let t: TestDatabase;
let ix: Indexer;
let submissions: OrderSubmissionService;
let bus: EventBus;
let chain: ReturnType<typeof createChainReader>;
let nowSec: number;
/** the seams, set per test */
let beforeInsert: ((hash: string) => Promise<void>) | null = null;
let beforeWrite: ((batch: { from: number; to: number }) => Promise<void>) | null = null;

beforeAll(async () => {
  w = await startWorld();
  t = await openTestDatabase();
  nowSec = await w.chainNow();
  await registerCollections(t.db, [
    { address: w.c.addresses.erc721, type: 'ERC721' },
    { address: w.c.addresses.erc1155, type: 'ERC1155' },
  ]);
  const config = loadConfig({ SEED: '0', LOG_LEVEL: 'silent', SIGNATURE_WORKERS: '0' });
  chain = createChainReader(w.evm.rpcUrl, w.network);
  bus = createEventBus();
  const now = () => new Date(nowSec * 1000);
  const submissionDeps: ServiceDeps = {
    db: t.db,
    config,
    network: w.network,
    chain,
    now,
    events: bus,
    submissionHooks: { beforeInsert: (hash) => beforeInsert?.(hash) ?? Promise.resolve() },
  };
  submissions = createOrderSubmissionService(submissionDeps, createStatsService(submissionDeps));
  ix = createIndexer({
    db: t.db,
    provider: w.indexerProvider(),
    network: w.network,
    startBlock: 0,
    confirmations: 0,
    batchSize: 100,
    now,
    beforeWrite: (b) => beforeWrite?.(b) ?? Promise.resolve(),
  });
  await ix.runUntilCaughtUp();
});
afterAll(async () => {
  chain?.destroy();
  await bus?.close();
  await t?.close();
  await w?.stop();
});

/** A promise with its resolver: the barriers. */
function barrier() {
  let open!: () => void;
  const reached = new Promise<void>((r) => (open = r));
  return { open, reached };
}

const mined = async (p: Promise<{ wait(): Promise<unknown> }>) => {
  await (await p).wait();
};

let nextNonce = 1n;
let nextToken = 100;

interface Scenario {
  /** sets the chain up so the order is valid, and returns it */
  prepare(signer: Wallet): Promise<{ body: MakerOrderBody; stored: Omit<StoredOrder, 'hash'> }>;
  /** one chain transaction that makes the order invalid */
  invalidate(signer: Wallet, o: Omit<StoredOrder, 'hash'>): Promise<void>;
  /** a nonce fact: applied by the batch's SQL to every row committed before it (no chain read) */
  nonceFact?: boolean;
}

const minter = () => w.evm.wallets[0]!;
const sink = () => w.evm.wallets[1]!;

function ask721(): Scenario['prepare'] {
  return async (signer) => {
    const tokenId = BigInt(nextToken++);
    await mined(w.c.erc721.connect(minter()).mint(signer.address, tokenId));
    await mined(w.c.erc721.connect(signer).setApprovalForAll(w.network.transferManagerERC721, true));
    return orderFor(signer, { isOrderAsk: true, collection: w.c.addresses.erc721, tokenId, collectionType: 'ERC721' });
  };
}

function ask1155(): Scenario['prepare'] {
  return async (signer) => {
    const tokenId = BigInt(nextToken++);
    await mined(w.c.erc1155.connect(minter()).mint(signer.address, tokenId, 2));
    await mined(w.c.erc1155.connect(signer).setApprovalForAll(w.network.transferManagerERC1155, true));
    return orderFor(signer, { isOrderAsk: true, collection: w.c.addresses.erc1155, tokenId, collectionType: 'ERC1155', amount: 2n });
  };
}

function bid(): Scenario['prepare'] {
  return async (signer) => {
    await mined(w.c.weth.connect(signer).deposit({ value: 2n * ETH }));
    await mined(w.c.weth.connect(signer).approve(w.network.exchange, MaxUint256));
    return orderFor(signer, { isOrderAsk: false, collection: w.c.addresses.erc721, tokenId: null, collectionType: 'ERC721', price: ETH });
  };
}

function orderFor(signer: Wallet, o: { isOrderAsk: boolean; collection: string; tokenId: bigint | null; collectionType: 'ERC721' | 'ERC1155'; amount?: bigint; price?: bigint }) {
  const nonce = nextNonce++;
  const amount = o.amount ?? 1n;
  const price = o.price ?? ETH;
  const endTime = BigInt(nowSec + 86_400);
  const body: MakerOrderBody = {
    isOrderAsk: o.isOrderAsk,
    signer: signer.address,
    collection: o.collection,
    price: price.toString(),
    tokenId: o.tokenId === null ? null : o.tokenId.toString(),
    amount: amount.toString(),
    strategy: o.tokenId === null ? COLLECTION_OFFER : STANDARD,
    currency: w.network.weth,
    nonce: nonce.toString(),
    startTime: nowSec - 60,
    endTime: Number(endTime),
    minPercentageToAsk: 9800,
    params: [],
  };
  return { body, stored: { isOrderAsk: o.isOrderAsk, signer: signer.address, collection: o.collection, collectionType: o.collectionType, tokenId: o.tokenId, amount, price, nonce, endTime } };
}

const SCENARIOS: Record<string, Scenario> = {
  'nonce cancelled': { prepare: ask721(), invalidate: (s, o) => mined(w.c.exchange.connect(s).cancelMultipleMakerOrders([o.nonce])), nonceFact: true },
  'min nonce raised': { prepare: ask721(), invalidate: (s, o) => mined(w.c.exchange.connect(s).cancelAllOrdersForSender(o.nonce + 1n)), nonceFact: true },
  'ERC-721 token moved away': { prepare: ask721(), invalidate: (s, o) => mined(w.c.erc721.connect(s).transferFrom(s.address, sink().address, o.tokenId!)) },
  'ERC-1155 balance moved away': {
    prepare: ask1155(),
    invalidate: (s, o) => mined(w.c.erc1155.connect(s).safeTransferFrom(s.address, sink().address, o.tokenId!, 1, '0x')),
  },
  'ERC-721 approval revoked': { prepare: ask721(), invalidate: (s) => mined(w.c.erc721.connect(s).setApprovalForAll(w.network.transferManagerERC721, false)) },
  'ERC-1155 approval revoked': { prepare: ask1155(), invalidate: (s) => mined(w.c.erc1155.connect(s).setApprovalForAll(w.network.transferManagerERC1155, false)) },
  'WETH balance dropped': { prepare: bid(), invalidate: async (s) => mined(w.c.weth.connect(s).withdraw(await w.c.weth.balanceOf(s.address))) },
  'WETH allowance dropped': { prepare: bid(), invalidate: (s) => mined(w.c.weth.connect(s).approve(w.network.exchange, 0n)) },
};

/**
 * The interleavings between "checks done" (beforeInsert) and the insert. Each returns the
 * indexer's racing batch promise (if one is still running) for the test to finish.
 */
const INTERLEAVINGS = {
  // the event is mined and a whole batch indexes it between the checks and the insert
  'batch committed between checks and insert': async (invalidate: () => Promise<void>) => {
    await invalidate();
    await ix.tick();
    return null;
  },
  // the batch scans affected orders before the row exists, and writes after it is committed
  'batch scanned before the insert, wrote after it': async (invalidate: () => Promise<void>) => {
    await invalidate();
    const scanned = barrier();
    const release = barrier();
    beforeWrite = async () => {
      beforeWrite = null;
      scanned.open();
      await release.reached;
    };
    const batch = ix.tick();
    await scanned.reached;
    return { batch, release: release.open };
  },
  // the event is mined before the insert and indexed after it
  'event mined before the insert, indexed after': async (invalidate: () => Promise<void>) => {
    await invalidate();
    return null;
  },
} as const;

let signerIndex = 2;

describe(`submission vs indexer race (${backendName}, local EVM): every interleaving, every invalidating event`, () => {
  for (const [eventName, scenario] of Object.entries(SCENARIOS)) {
    for (const [interleavingName, interleave] of Object.entries(INTERLEAVINGS)) {
      it(`${eventName}: ${interleavingName}`, async () => {
        const signer = w.evm.wallets[signerIndex]!;
        signerIndex = signerIndex >= 19 ? 2 : signerIndex + 1;
        const { body, stored } = await scenario.prepare(signer);
        await ix.runUntilCaughtUp();
        const signed = await signWithEthers6(signer, 31337, w.network.exchange, body);

        let racing: Awaited<ReturnType<(typeof INTERLEAVINGS)[keyof typeof INTERLEAVINGS]>> = null;
        beforeInsert = async () => {
          beforeInsert = null;
          racing = await interleave(() => scenario.invalidate(signer, stored));
        };
        let hash: string | null = null;
        let refused: OrderRejectedError | null = null;
        try {
          hash = (await submissions.createOrder(signed)).hash;
        } catch (err) {
          if (!(err instanceof OrderRejectedError)) throw err;
          refused = err;
        }
        expect(beforeInsert).toBeNull(); // the seam ran: the checks passed before the chain moved
        const r = racing as { batch: Promise<unknown>; release: () => void } | null;
        if (r) {
          r.release();
          await r.batch;
          expect(refused).toBeNull();
          const [row] = await t.db.sql.query<{ b: string | null }>('SELECT chain_checked_block::text AS b FROM orders WHERE hash = $1', [hash]);
          expect(row!.b).not.toBeNull(); // the racing batch scanned before the row existed
          // A nonce fact reaches the row through the batch's SQL (it runs after the insert
          // committed); a chain fact was read for the scanned orders only, so the row is still
          // VALID here (the submission race) until the indexer's next pass settles it.
          expect(await storedStatus(t.db, hash!)).toBe(scenario.nonceFact ? 'CANCELLED' : 'VALID');
        }
        await ix.runUntilCaughtUp();
        await ix.tick(); // the pass at the cursor when no block is left to index

        if (refused) {
          // only nonce facts can refuse at insert time: the batch committed them first
          expect(interleavingName).toBe('batch committed between checks and insert');
          expect(['NONCE_USED', 'NONCE_TOO_LOW']).toContain(refused.code);
          expect(await t.db.sql.query('SELECT 1 FROM orders WHERE signer = $1 AND nonce = $2', [signer.address, stored.nonce.toString()])).toEqual([]);
          return;
        }
        const oracle = await chainStatus(w, { ...stored, hash: hash! }, await filledHashes(w), nowSec);
        expect(oracle).not.toBe('VALID');
        expect(await storedStatus(t.db, hash!)).toBe(oracle);
        const [row] = await t.db.sql.query<{ b: string | null }>('SELECT chain_checked_block::text AS b FROM orders WHERE hash = $1', [hash]);
        expect(row!.b).toBeNull();
      });
    }
  }
});
