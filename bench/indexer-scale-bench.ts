// Indexer at chain scale, on PostgreSQL against the local EVM:
//  1. throughput catching up a mixed load of --blocks blocks (default 10,000): blocks/s, events/s;
//  2. the WETH-heavy case: --weth-blocks blocks full of WETH transfers between accounts that have
//     no orders (plus a little bidder traffic): blocks/s, and how many WETH logs the node sent the
//     indexer versus how many the chain holds (the topic filter at work);
//  3. status lag under a steady submission load: the app booted with its own indexer
//     (confirmations 0, INDEXER_POLL_MS=--poll-ms) while --submit-per-second new orders are POSTed;
//     a listed token is moved away and back, and GET /api/v1/orders?hash= is polled every 2 ms until
//     the order shows the new status. Lag = block mined (its automined transaction returned) to the
//     first response showing it. p50/p90/p99.
//
//   npx tsx bench/indexer-scale-bench.ts [--blocks 10000] [--txs-per-block 2] [--weth-blocks 2000]
//       [--weth-txs-per-block 10] [--lag-samples 60] [--submit-per-second 10] [--poll-ms 20]
//       [--batch-size 100] [--pg-url postgresql://postgres@127.0.0.1:5432/postgres]
//
// The EVM (Hardhat in this process) serves eth_getLogs/eth_call from the same Node process, so its
// CPU time is part of every figure. Databases are dropped at the end. Results also go to
// bench/results/indexer-scale-<timestamp>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { JsonRpcProvider, MaxUint256, type Wallet } from 'ethers';
import { boot } from '../src/app.js';
import { createIndexer } from '../src/chain/indexer/indexer.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { exchangeDomain, MAKER_ORDER_TYPES } from '../src/domain/maker-order.js';
import { encodeParams } from '../src/domain/order-params.js';
import { createLogger } from '../src/logger.js';
import { COLLECTION_OFFER, createOrderBook, ETH, STANDARD, startBenchChain, type Listing } from './chain-scenario.js';
import { createBenchDatabase, onCleanup, runBench } from './helpers.js';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
const TOKENS = 200;

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '10000' },
    'txs-per-block': { type: 'string', default: '2' },
    'weth-blocks': { type: 'string', default: '2000' },
    'weth-txs-per-block': { type: 'string', default: '10' },
    'lag-samples': { type: 'string', default: '60' },
    'submit-per-second': { type: 'string', default: '10' },
    'poll-ms': { type: 'string', default: '20' },
    'batch-size': { type: 'string', default: '100' },
    'pg-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  },
});
const BLOCKS = Number(values.blocks);
const PER_BLOCK = Number(values['txs-per-block']);
const WETH_BLOCKS = Number(values['weth-blocks']);
const WETH_PER_BLOCK = Number(values['weth-txs-per-block']);
const LAG_SAMPLES = Number(values['lag-samples']);
const SUBMIT_RATE = Number(values['submit-per-second']);
const POLL_MS = Number(values['poll-ms']);
const BATCH = Number(values['batch-size']);
const PG_URL = values['pg-url']!;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number, d = 1) => Number(n.toFixed(d));

/** Counts the logs the node returns to eth_getLogs, by emitting address. */
class CountingProvider extends JsonRpcProvider {
  logsByAddress = new Map<string, number>();
  getLogsCalls = 0;
  override async send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
    const r = await super.send(method, params);
    if (method === 'eth_getLogs') {
      this.getLogsCalls++;
      for (const l of r as { address: string }[]) {
        const a = l.address.toLowerCase();
        this.logsByAddress.set(a, (this.logsByAddress.get(a) ?? 0) + 1);
      }
    }
    return r;
  }
}

async function main() {
  const t0 = performance.now();
  const chain = await startBenchChain(11);
  const { evm, c, network, rnd, opts, block, other } = chain;
  const minter = evm.wallets[0]!;
  const traders = evm.wallets.slice(2, 12); // have orders
  const idle = evm.wallets.slice(12, 20); // never have orders: their WETH traffic is noise

  // ---- setup --------------------------------------------------------------------------------
  const owner721 = new Map<number, Wallet>();
  const setup: (() => Promise<unknown>)[] = [];
  for (let id = 1; id <= TOKENS; id++) {
    const to = traders[id % traders.length]!;
    owner721.set(id, to);
    setup.push(() => c.erc721.connect(minter).mint(to.address, id, opts(minter)));
  }
  for (const w of traders) {
    setup.push(() => c.erc1155.connect(minter).mint(w.address, 1n, 1_000_000n, opts(minter)));
    setup.push(() => c.erc721.connect(w).setApprovalForAll(network.transferManagerERC721, true, opts(w)));
    setup.push(() => c.erc1155.connect(w).setApprovalForAll(network.transferManagerERC1155, true, opts(w)));
  }
  for (const w of [...traders, ...idle]) {
    setup.push(() => c.weth.connect(w).deposit({ value: 1000n * ETH, ...opts(w) }));
    setup.push(() => c.weth.connect(w).approve(network.exchange, MaxUint256, opts(w)));
  }
  await chain.blocks(setup);

  const now = await chain.chainNow();
  const book = createOrderBook(chain, now, 365);
  const { rows, listings, orderNonce } = book;
  await book.listTokens(owner721);
  for (const w of traders) {
    for (let k = 0; k < 3; k++) await book.offer(w);
  }

  // ---- phase A: mixed load ------------------------------------------------------------------
  const mixedFrom = (await evm.provider.getBlockNumber()) + 1;
  for (let b = 0; b < BLOCKS; b++) {
    const txs: (() => Promise<unknown>)[] = [];
    for (let k = 0; k < PER_BLOCK; k++) {
      const r = rnd.next();
      if (r < 0.3) {
        const id = rnd.int(1, TOKENS);
        const from = owner721.get(id)!;
        const to = other(traders, from);
        owner721.set(id, to);
        txs.push(() => c.erc721.connect(from).transferFrom(from.address, to.address, id, opts(from)));
      } else if (r < 0.4) {
        const from = rnd.pick(traders);
        const to = other(traders, from);
        txs.push(() => c.erc1155.connect(from).safeTransferFrom(from.address, to.address, 1n, 1n, '0x', opts(from)));
      } else if (r < 0.45) {
        const w = rnd.pick(traders);
        txs.push(() => c.erc721.connect(w).setApprovalForAll(network.transferManagerERC721, rnd.next() < 0.8, opts(w)));
      } else if (r < 0.8) {
        const w = rnd.next() < 0.5 ? rnd.pick(traders) : rnd.pick(idle);
        const op = rnd.int(0, 3);
        if (op === 0) txs.push(() => c.weth.connect(w).deposit({ value: ETH, ...opts(w) }));
        else if (op === 1) txs.push(() => c.weth.connect(w).withdraw(ETH / 2n, opts(w)));
        else if (op === 2) txs.push(() => c.weth.connect(w).transfer(other([...traders, ...idle], w).address, ETH / 4n, opts(w)));
        else txs.push(() => c.weth.connect(w).approve(network.exchange, rnd.next() < 0.9 ? MaxUint256 : ETH / 10n, opts(w)));
      } else if (r < 0.82) {
        const w = rnd.pick(traders);
        const n = orderNonce.get(w.address) ?? 1n;
        txs.push(() => c.exchange.connect(w).cancelMultipleMakerOrders([BigInt(rnd.int(0, Number(n)))], opts(w)));
      } else {
        const id = rnd.int(1, TOKENS);
        const l = listings.get(id);
        if (!l || owner721.get(id) !== l.signer) continue;
        listings.delete(id);
        const buyer = other(traders, l.signer);
        owner721.set(id, buyer);
        txs.push(book.fill(l, buyer));
      }
    }
    await block(txs);
    if (b % 1000 === 999) console.log(`  mixed: ${b + 1}/${BLOCKS} blocks mined`);
  }
  const mixedTo = await evm.provider.getBlockNumber();

  // ---- phase B: WETH-heavy --------------------------------------------------------------------
  for (let b = 0; b < WETH_BLOCKS; b++) {
    const txs: (() => Promise<unknown>)[] = [];
    for (let k = 0; k < WETH_PER_BLOCK; k++) {
      const w = rnd.pick(idle);
      txs.push(() => c.weth.connect(w).transfer(other(idle, w).address, ETH / 100n, opts(w)));
    }
    if (b % 10 === 0) {
      const w = rnd.pick(traders);
      txs.push(() => c.weth.connect(w).deposit({ value: ETH / 10n, ...opts(w) }));
    }
    await block(txs);
    if (b % 1000 === 999) console.log(`  WETH-heavy: ${b + 1}/${WETH_BLOCKS} blocks mined`);
  }
  const wethTo = await evm.provider.getBlockNumber();
  console.log(`chain ready in ${round((performance.now() - t0) / 1000)} s: ${wethTo + 1} blocks, ${rows.length} orders`);

  // ---- throughput -------------------------------------------------------------------------------
  const created = await createBenchDatabase('postgres', { prefix: 'idx_scale', pgUrl: PG_URL });
  const db: Database = await openDatabase({ databaseUrl: created.url, poolSize: 8 });
  onCleanup(() => db.close());
  await migrate(db.sql);
  await db.prisma.collection.createMany({
    data: [
      { address: c.addresses.erc721, owner: minter.address, type: 'ERC721', name: 'bench 721' },
      { address: c.addresses.erc1155, owner: minter.address, type: 'ERC1155', name: 'bench 1155' },
    ],
  });
  await db.prisma.order.createMany({ data: rows });
  const provider = new CountingProvider(evm.rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1, batchStallTime: 0 });
  onCleanup(async () => provider.destroy());
  const indexer = createIndexer({ db, provider, network, startBlock: 0, confirmations: 0, batchSize: BATCH, now: () => new Date(now * 1000) });
  // setup blocks first (not timed)
  await indexer.backfill(0, mixedFrom - 1);
  const timed = async (label: string, from: number, to: number) => {
    provider.logsByAddress.clear();
    provider.getLogsCalls = 0;
    const started = performance.now();
    const r = await indexer.backfill(from, to);
    const seconds = (performance.now() - started) / 1000;
    const blocks = to - from + 1;
    const wethOnChain = (await evm.provider.getLogs({ address: network.weth, fromBlock: from, toBlock: to })).length;
    const result = {
      case: label,
      blocks,
      events: r!.events,
      seconds: round(seconds, 2),
      blocksPerSecond: round(blocks / seconds),
      eventsPerSecond: round(r!.events / seconds),
      getLogsCalls: provider.getLogsCalls,
      wethLogsOnChain: wethOnChain,
      wethLogsSentToIndexer: provider.logsByAddress.get(network.weth!.toLowerCase()) ?? 0,
    };
    console.log(`throughput ${label}: ${JSON.stringify(result)}`);
    return result;
  };
  const throughput = [await timed('mixed', mixedFrom, mixedTo), await timed('weth-heavy', mixedTo + 1, wethTo)];

  // ---- lag under a steady submission load ---------------------------------------------------------
  const env = {
    DATABASE_URL: created.url!,
    CHAIN_ID: '31337',
    RPC_URL: evm.rpcUrl,
    EXCHANGE_ADDRESS: network.exchange!,
    WETH_ADDRESS: network.weth!,
    TRANSFER_MANAGER_ERC721_ADDRESS: network.transferManagerERC721!,
    TRANSFER_MANAGER_ERC1155_ADDRESS: network.transferManagerERC1155!,
    STRATEGY_STANDARD_SALE_ADDRESSES: STANDARD,
    STRATEGY_COLLECTION_OFFER_ADDRESSES: COLLECTION_OFFER,
    SEED: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    SIGNATURE_WORKERS: '1',
    INDEXER: 'on',
    INDEXER_CONFIRMATIONS: '0',
    INDEXER_START_BLOCK: '0',
    INDEXER_POLL_MS: String(POLL_MS),
    INDEXER_BACKFILL_FROM_BLOCK: 'off',
  };
  // every trader approves again (phase A toggled approvals) so listings can be valid
  await block(traders.map((w) => () => c.erc721.connect(w).setApprovalForAll(network.transferManagerERC721, true, opts(w))));
  const running = await boot(loadConfig(env), createLogger('silent'), { db });
  onCleanup(() => running.close());
  // steady submissions: ERC-1155 asks by traders, fresh nonces
  let submitting = true;
  const submitted = { ok: 0, rejected: 0 };
  const chainNow = await chain.chainNow();
  const domain = exchangeDomain(31337, network.exchange);
  const submitLoop = (async () => {
    let n = 0;
    const interval = 1000 / SUBMIT_RATE;
    const start = performance.now();
    while (submitting) {
      const w = traders[n % traders.length]!;
      const order = {
        isOrderAsk: true,
        signer: w.address,
        collection: c.addresses.erc1155,
        price: String(10n ** 15n + BigInt(n)),
        tokenId: '1',
        amount: '1',
        strategy: STANDARD,
        currency: network.weth!,
        nonce: String(1_000_000 + n),
        startTime: chainNow - 60,
        endTime: chainNow + 86_400,
        minPercentageToAsk: 9800,
        params: [] as string[],
      };
      const signature = await w.signTypedData(domain, MAKER_ORDER_TYPES, { ...order, params: encodeParams([]) });
      const res = await running.yoga.fetch('http://bench/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...order, signature }) });
      if (res.status === 201 || res.status === 200) submitted.ok++;
      else submitted.rejected++;
      await res.text();
      n++;
      const wait = start + n * interval - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();

  const statusOf = async (hash: string) => {
    const res = await running.yoga.fetch(`http://bench/api/v1/orders?hash=${hash}`);
    const body = (await res.json()) as { data: { status: string }[] };
    return body.data[0]?.status;
  };
  // wait for the app's indexer to be caught up
  for (;;) {
    const s = await running.services.indexer.indexerStatus();
    if (s.indexedBlock !== null && s.headBlock !== null && s.indexedBlock >= s.headBlock) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const candidates = [...listings.values()].filter((l) => owner721.get(l.tokenId) === l.signer);
  const eligible: Listing[] = [];
  for (const l of candidates) if ((await statusOf(l.hash)) === 'VALID') eligible.push(l);
  if (!eligible.length) throw new Error('no VALID listing left to measure the lag with');
  const lags: number[] = [];
  const moveAndWait = async (from: Wallet, to: Wallet, l: Listing, expect: string) => {
    await c.erc721.connect(from).transferFrom(from.address, to.address, l.tokenId, opts(from));
    const mined = performance.now();
    for (;;) {
      if ((await statusOf(l.hash)) === expect) break;
      if (performance.now() - mined > 30_000) throw new Error(`status ${expect} not visible after 30 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    lags.push(performance.now() - mined);
  };
  for (let i = 0; i < LAG_SAMPLES / 2; i++) {
    const l = eligible[i % eligible.length]!;
    const away = other(traders, l.signer);
    await moveAndWait(l.signer, away, l, 'INVALID_OWNER');
    await moveAndWait(away, l.signer, l, 'VALID');
  }
  submitting = false;
  await submitLoop;
  const sorted = [...lags].sort((a, b) => a - b);
  const lag = {
    samples: sorted.length,
    pollMs: POLL_MS,
    submissionsPerSecond: SUBMIT_RATE,
    submitted,
    p50Ms: round(pct(sorted, 50)),
    p90Ms: round(pct(sorted, 90)),
    p99Ms: round(pct(sorted, 99)),
    maxMs: round(sorted.at(-1)!),
  };
  console.log(`lag block mined -> status visible via GET /api/v1/orders?hash= (confirmations 0, ${SUBMIT_RATE} submissions/s): ${JSON.stringify(lag)}`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `indexer-scale-${new Date().toISOString().replaceAll(':', '-').replace('.', '-')}.json`);
  writeFileSync(file, JSON.stringify({ node: process.version, blocks: wethTo + 1, orders: rows.length, throughput, lag }, null, 2));
  console.log(`results: ${path.relative(process.cwd(), file)}`);
}

await runBench(main);
