// Randomised check of the chain indexer: several signers, tokens and orders, a few hundred random
// chain actions (transfers, approvals and revocations, WETH moves, cancels, fills; some packed
// several to a block), indexing interleaved at random batch sizes. Afterwards every single order's
// stored status must equal what an oracle computes by asking the chain directly (ownerOf /
// balanceOf / isApprovedForAll / allowance / the exchange's nonce state / whether its hash was
// filled), through deriveStatus. INDEXER_RANDOM_SEED picks another sequence (runs with one seed
// still differ a little: order hashes depend on the chain clock, and fills pick among orders the
// indexer holds VALID at that moment).
import type { ContractTransactionResponse, Wallet } from 'ethers';
import { MaxUint256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, type Indexer } from '../../src/chain/indexer/indexer.js';
import { prng } from '../../src/db/prng.js';
import type { ExchangeFill } from '../helpers/evm/deploy.js';
import {
  chainStatus,
  COLLECTION_OFFER,
  filledHashes,
  registerCollections,
  STANDARD,
  startWorld,
  storeOrder,
  type OrderSpec,
  type StoredOrder,
  type World,
} from '../helpers/indexer-world.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const SEED = Number(process.env.INDEXER_RANDOM_SEED ?? 20261122);
const ACTIONS = 300;
const ETH = 10n ** 18n;
const TOKENS_721 = 24;
const IDS_1155 = [1n, 2n, 3n, 4n];
/** an explicit gas limit skips estimateGas, so a transaction that reverts is mined (and fails) instead of throwing early */
const GAS = { gasLimit: 1_000_000 };

let w: World;
let t: TestDatabase;
let ix: Indexer;
let nowSec: number;
const rnd = prng(SEED);

beforeAll(async () => {
  w = await startWorld();
  t = await openTestDatabase();
  nowSec = await w.chainNow();
  await registerCollections(t.db, [
    { address: w.c.addresses.erc721, type: 'ERC721' },
    { address: w.c.addresses.erc1155, type: 'ERC1155' },
  ]);
  ix = createIndexer({ db: t.db, provider: w.indexerProvider(), network: w.network, startBlock: 0, confirmations: 0, batchSize: 4, now: () => new Date(nowSec * 1000) });
});
afterAll(async () => {
  await t?.close();
  await w?.stop();
});

describe(`chain indexer against a chain oracle, random actions (${backendName}, seed ${SEED})`, () => {
  it(`every order's status equals the chain's after ${ACTIONS} random actions`, async () => {
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

    // Orders, stored with the status the chain gives them at submission time.
    const orders: StoredOrder[] = [];
    const addOrder = async () => {
      const signer = rnd.pick(signers);
      const kind = rnd.int(0, 3);
      const spec: OrderSpec =
        kind === 0
          ? { collection: c.addresses.erc721, tokenId: BigInt(rnd.int(1, TOKENS_721)), nonce: BigInt(rnd.int(0, 12)) }
          : kind === 1
            ? { collection: c.addresses.erc1155, tokenId: rnd.pick(IDS_1155), amount: BigInt(rnd.int(1, 3)), nonce: BigInt(rnd.int(0, 12)) }
            : {
                isOrderAsk: false,
                collection: c.addresses.erc721,
                tokenId: kind === 2 ? BigInt(rnd.int(1, TOKENS_721)) : null,
                nonce: BigInt(rnd.int(0, 12)),
              };
      spec.price = (BigInt(rnd.int(1, 20)) * ETH) / 10n;
      spec.status = 'VALID';
      try {
        const stored = await storeOrder(t.db, w, signer, spec, nowSec);
        const status = await chainStatus(w, stored, await filledHashes(w), nowSec);
        await t.db.sql.query(`UPDATE orders SET status = $2::"OrderStatus" WHERE hash = $1`, [stored.hash, status]);
        orders.push(stored);
      } catch (err) {
        if ((err as { code?: string }).code !== 'P2002') throw err; // the same order drawn twice
      }
    };
    for (let i = 0; i < 120; i++) await addOrder();
    expect(await ix.runUntilCaughtUp()).not.toBeNull();

    // Random actions. Each returns the sent transaction, or null when it had nothing to do.
    type Action = (sender?: Wallet) => Promise<ContractTransactionResponse | null>;
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
        // mostly an order the indexer believes VALID (it may be behind), so that fills happen
        const valid = await t.db.sql.query<{ hash: string }>(`SELECT hash FROM orders WHERE status = 'VALID'`);
        const validSet = new Set(valid.map((v) => v.hash));
        const candidates = orders.filter((x) => validSet.has(x.hash));
        const o = candidates.length && rnd.next() < 0.8 ? rnd.pick(candidates) : rnd.pick(orders);
        const maker = walletOf(o.signer)!;
        const fill: ExchangeFill = {
          orderHash: o.hash,
          orderNonce: o.nonce,
          maker: o.signer,
          strategy: o.tokenId === null ? COLLECTION_OFFER : STANDARD,
          currency: network.weth,
          collection: o.collection,
          tokenId: o.tokenId ?? BigInt(rnd.int(1, TOKENS_721)),
          amount: o.amount,
          price: o.price,
          isERC1155: o.collectionType === 'ERC1155',
        };
        if (o.isOrderAsk) {
          // mostly a taker who can pay, so that fills happen
          const payers = [];
          for (const x of wallets) {
            if (x !== maker && (await c.weth.balanceOf(x.address)) >= o.price && (await c.weth.allowance(x.address, network.exchange)) >= o.price) payers.push(x);
          }
          return c.exchange.connect(payers.length && rnd.next() < 0.8 ? rnd.pick(payers) : other(maker)).fillAsk(fill, GAS);
        }
        const taker = walletOf(await ownerOf721(Number(fill.tokenId)))!;
        if (taker === maker) return null;
        return c.exchange.connect(taker).fillBid(fill, GAS);
      }],
    ];
    const total = actions.reduce((s, [wt]) => s + wt, 0);
    const pickAction = () => {
      let r = rnd.next() * total;
      for (const [wt, a] of actions) if ((r -= wt) < 0) return a;
      return actions[0]![1];
    };

    let done = 0;
    let bursts = 0;
    while (done < ACTIONS) {
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
          await w.rpc('evm_mine');
        } finally {
          await w.rpc('evm_setAutomine', [true]);
        }
        for (const tx of sent) await wait(Promise.resolve(tx));
        bursts++;
      } else {
        const tx = await pickAction()().catch(() => null);
        if (tx) await wait(Promise.resolve(tx));
        done++;
      }
    }
    expect(await ix.runUntilCaughtUp()).not.toBeNull();

    const filled = await filledHashes(w);
    const mismatches: string[] = [];
    const tally = new Map<string, number>();
    for (const o of orders) {
      const [row] = await t.db.sql.query<{ status: string }>('SELECT status::text AS status FROM orders WHERE hash = $1', [o.hash]);
      const expected = await chainStatus(w, o, filled, nowSec);
      tally.set(expected, (tally.get(expected) ?? 0) + 1);
      if (row!.status !== expected) mismatches.push(`${o.hash} ${o.isOrderAsk ? 'ask' : 'bid'} ${o.collectionType} #${o.tokenId} nonce ${o.nonce}: stored ${row!.status}, chain ${expected}`);
    }
    console.log(`seed ${SEED}: ${orders.length} orders, ${ACTIONS} actions (${bursts} multi-transaction blocks), ${filled.size} fills; statuses ${JSON.stringify(Object.fromEntries(tally))}`);
    expect(mismatches).toEqual([]);
    // the run must have exercised more than one status
    expect(tally.size).toBeGreaterThanOrEqual(5);

    // ownership as the chain says it
    for (let id = 1; id <= TOKENS_721; id++) {
      const rows = await t.db.sql.query<{ owner: string }>('SELECT owner FROM token_balances WHERE collection_address = $1 AND token_id = $2 AND balance > 0', [c.addresses.erc721, id]);
      expect(rows).toEqual([{ owner: await c.erc721.ownerOf(id) }]);
    }
    for (const x of wallets) {
      for (const id of IDS_1155) {
        const rows = await t.db.sql.query<{ balance: string }>('SELECT balance::text AS balance FROM token_balances WHERE collection_address = $1 AND token_id = $2 AND owner = $3', [c.addresses.erc1155, id.toString(), x.address]);
        expect(BigInt(rows[0]?.balance ?? '0')).toBe(await c.erc1155.balanceOf(x.address, id));
      }
    }
  });
});
