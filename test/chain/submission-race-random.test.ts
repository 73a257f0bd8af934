// The submission race, randomised and concurrent on a real local EVM: bursts of same-nonce sibling offers
// (more than the 20-per-nonce cap) are submitted in parallel while the signers' WETH balance and
// allowance drop and come back, nonces get cancelled, and the indexer runs batches at random
// moments. Afterwards every stored order's status must equal what the chain says (asked directly),
// no order is left unsettled, and no nonce holds more than 20 orders. SUBMISSION_RACE_SEED picks
// another sequence.
import type { ServiceDeps } from '../../src/services/deps.js';
import { createStatsService } from '../../src/services/stats.js';
import { MaxUint256, parseEther, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import { loadConfig } from '../../src/config.js';
import { prng } from '../../src/demo/prng.js';
import { createEventBus, type EventBus } from '../../src/events/event-bus.js';
import { createOrderSubmissionService, type OrderSubmissionService } from '../../src/services/order-submission.js';
import { OrderRejectedError } from '../../src/services/order-rejected.js';
import { chainStatus, COLLECTION_OFFER, filledHashes, registerCollections, startWorld, storedStatus, type StoredOrder, type World } from '../helpers/indexer-world.js';
import { signWithEthers6, type MakerOrderBody } from '../helpers/maker-orders.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const SEED = Number(process.env.SUBMISSION_RACE_SEED ?? 20261123);
const ROUNDS = 6;
const SIGNERS_PER_ROUND = 3;
const SIBLINGS = 24; // more than the cap of 20
const rnd = prng(SEED);

let w: World;
let t: TestDatabase;
let ix: Indexer;
let submissions: OrderSubmissionService;
let bus: EventBus;
let chain: ReturnType<typeof createChainReader>;
let nowSec: number;
/** the chain actions of the current round */
let roundActs: Promise<unknown> = Promise.resolve();

beforeAll(async () => {
  w = await startWorld();
  t = await openTestDatabase();
  nowSec = await w.chainNow();
  await registerCollections(t.db, [{ address: w.c.addresses.erc721, type: 'ERC721' }]);
  chain = createChainReader(w.evm.rpcUrl, w.network);
  bus = createEventBus();
  const now = () => new Date(nowSec * 1000);
  // Random pauses at the two seams (after the checks, and between a batch's reads and its write)
  // widen the windows the race lives in, so that it happens in most runs instead of a few.
  const submissionDeps: ServiceDeps = {
    db: t.db,
    config: loadConfig({ SEED: '0', LOG_LEVEL: 'silent' }),
    network: w.network,
    chain,
    now,
    events: bus,
    submissionHooks: {
      // half the submissions that passed their checks wait for the round's chain actions to be
      // mined, then a random moment: the indexer may scan the action's batch before or after them
      beforeInsert: async () => {
        if (rnd.next() < 0.5) await roundActs;
        await sleep(rnd.int(0, 30));
      },
    },
  };
  submissions = createOrderSubmissionService(submissionDeps, createStatsService(submissionDeps));
  ix = createIndexer({ db: t.db, provider: w.indexerProvider(), network: w.network, startBlock: 0, confirmations: 0, batchSize: 3, now, beforeWrite: () => sleep(rnd.int(0, 15)) });
});
afterAll(async () => {
  chain?.destroy();
  await bus?.close();
  await t?.close();
  await w?.stop();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const mined = async (p: Promise<{ wait(): Promise<unknown> }>) => {
  try {
    await (await p).wait();
  } catch {
    // a reverted transaction changes nothing
  }
};

describe(`submission race, randomised on a local EVM (${backendName}, seed ${SEED})`, () => {
  it(`${ROUNDS} rounds of ${SIBLINGS} parallel same-nonce offers per signer while balances drop: every status equals the chain's`, async () => {
    // a signer per burst, never touched again: nothing later re-evaluates its orders by chance
    const signers = w.evm.wallets.slice(2, 2 + ROUNDS * SIGNERS_PER_ROUND);
    const sink = w.evm.wallets[1]!;
    const { c, network } = w;
    for (const s of signers) {
      await mined(c.weth.connect(s).deposit({ value: parseEther('3') }));
      await mined(c.weth.connect(s).approve(network.exchange, MaxUint256));
    }
    await ix.runUntilCaughtUp();

    const stored: StoredOrder[] = [];
    let refusedCount = 0;
    const nonces = new Map<string, bigint>(signers.map((s) => [s.address, 0n]));

    // One chain action per burst that drops what the offers rely on (most often the balance).
    const act = async (s: Wallet, nonce: bigint) => {
      const balance = await c.weth.balanceOf(s.address);
      const pick = rnd.next();
      if (pick < 0.5) await mined(c.weth.connect(s).withdraw(balance));
      else if (pick < 0.7) await mined(c.weth.connect(s).transfer(sink.address, balance - parseEther('1')));
      else if (pick < 0.9) await mined(c.weth.connect(s).approve(network.exchange, 0n));
      else await mined(c.exchange.connect(s).cancelMultipleMakerOrders([nonce]));
    };

    for (let round = 0; round < ROUNDS; round++) {
      const work: Promise<unknown>[] = [];
      let burstDone = false;
      const acts: Promise<unknown>[] = [];
      let actsMined!: () => void;
      roundActs = new Promise<void>((r) => (actsMined = r));
      for (const s of signers.slice(round * SIGNERS_PER_ROUND, (round + 1) * SIGNERS_PER_ROUND)) {
        const nonce = nonces.get(s.address)!;
        nonces.set(s.address, nonce + 1n);
        const bodies: MakerOrderBody[] = [];
        for (let k = 0; k < SIBLINGS; k++) {
          bodies.push({
            isOrderAsk: false,
            signer: s.address,
            collection: c.addresses.erc721,
            price: (parseEther('1') + BigInt(rnd.int(0, 1_000_000)) * 10n ** 9n).toString(),
            tokenId: null,
            amount: '1',
            strategy: COLLECTION_OFFER,
            currency: network.weth,
            nonce: nonce.toString(),
            startTime: nowSec - 60,
            endTime: nowSec + 86_400 + round * SIBLINGS + k,
            minPercentageToAsk: 9800,
            params: [],
          });
        }
        const signed = await Promise.all(bodies.map((b) => signWithEthers6(s, 31337, network.exchange, b)));
        // the siblings in parallel, the chain action and indexer batches at random moments among them
        for (const [k, body] of signed.entries()) {
          work.push(
            (async () => {
              await sleep(rnd.int(0, 30));
              try {
                const o = await submissions.createOrder(body);
                stored.push({ hash: o.hash, isOrderAsk: false, signer: s.address, collection: c.addresses.erc721, collectionType: 'ERC721', tokenId: null, amount: 1n, price: BigInt(body.price), nonce, endTime: BigInt(body.endTime) });
              } catch (err) {
                if (!(err instanceof OrderRejectedError)) throw err;
                refusedCount++;
              }
            })(),
          );
          if (k === 0) {
            const a = sleep(rnd.int(0, 20)).then(() => act(s, nonce));
            acts.push(a);
            work.push(a);
          }
        }
      }
      void Promise.all(acts).then(() => actsMined());
      // the indexer runs batches back to back while the burst lasts
      const indexing = (async () => {
        while (!burstDone) {
          await ix.tick();
          await sleep(rnd.int(0, 3));
        }
      })();
      await Promise.all(work);
      burstDone = true;
      await indexing;
    }

    await ix.runUntilCaughtUp();
    await ix.tick(); // the pass at the cursor for orders inserted after the last batch

    const filled = await filledHashes(w);
    const mismatches: string[] = [];
    for (const o of stored) {
      const [want, got] = await Promise.all([chainStatus(w, o, filled, nowSec), storedStatus(t.db, o.hash)]);
      if (want !== got) mismatches.push(`${o.signer} nonce ${o.nonce} ${o.hash}: stored ${got}, chain ${want}`);
    }
    expect(mismatches).toEqual([]);
    expect(stored.length).toBeGreaterThan(0);
    expect(refusedCount).toBeGreaterThan(0); // the cap and the checks did refuse some
    const statuses = new Set(await Promise.all(stored.map((o) => storedStatus(t.db, o.hash))));
    expect(statuses.size).toBeGreaterThan(1); // the actions invalidated some, not all
    const [unsettled] = await t.db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM orders WHERE chain_checked_block IS NOT NULL');
    expect(unsettled!.n).toBe('0');
    const over = await t.db.sql.query('SELECT signer, nonce FROM orders GROUP BY signer, nonce HAVING count(*) > 20');
    expect(over).toEqual([]);
  }, 300_000);
});
