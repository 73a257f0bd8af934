// Indexer benchmark: indexing throughput (events/s, blocks/s) on PostgreSQL against a
// local EVM, and the lag between a block being mined and the status change it causes being
// visible through the REST API.
//
//   npx tsx bench/indexer-bench.ts [--blocks 250] [--txs-per-block 20] [--batch-sizes 10,100]
//                                  [--lag-samples 20] [--poll-ms 20]
//                                  [--pg-url postgresql://postgres@127.0.0.1:5432/postgres] [--verbose]
//
// --verbose prints the indexer's per-batch debug line (logs / facts / write milliseconds).
// Chain: Hardhat Network in this process (test/helpers/evm), the test contracts, 18 funded
// accounts. Setup blocks mint 400 ERC-721 tokens and ERC-1155 balances, set approvals and WETH;
// then --blocks blocks of --txs-per-block random transactions each (ERC-721 and ERC-1155
// transfers, approval toggles, WETH deposits/withdrawals/transfers/approvals, nonce cancels, fills
// of listed tokens), sent with explicit nonces and gas (no estimation) and mined with evm_mine.
// Some transactions revert (stale local view of who owns what); they emit nothing. About 600
// signed orders (an ask per ERC-721 token, ERC-1155 asks, collection offers) are stored first, so
// every event re-derives real orders.
//
// Throughput: per batch size, a fresh database mkt_idx_bench_<random> with the same orders, one
// runUntilCaughtUp() from block 0 to the head, timed. The EVM serves eth_getLogs/eth_call from
// the same Node process, so its CPU time is part of the figure.
// Lag: the last database, the real app booted on it (boot(), SIGNATURE_WORKERS=0) and the indexer
// started in the same process (confirmations 0, --poll-ms). Each sample moves a listed token away
// from (then back to) its owner in an automined block (--lag-samples transitions in all) and polls GET /api/v1/orders through
// yoga.fetch every 2 ms until the ask shows INVALID_OWNER (then VALID); lag = time from the
// transaction's block being mined (its RPC call returning) to the first response showing it.
// Databases are dropped at the end, also on error or Ctrl-C. Results also go to
// bench/results/indexer-postgres-<timestamp>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MaxUint256, type Wallet } from 'ethers';
import { boot } from '../src/app.js';
import { createIndexer } from '../src/chain/indexer/indexer.js';
import { createIndexerProvider } from '../src/chain/indexer/indexer-provider.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { COLLECTION_OFFER, createOrderBook, ETH, STANDARD, startBenchChain, type Send } from './chain-scenario.js';
import { createBenchDatabase, onCleanup, runBench } from './helpers.js';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
const TOKENS = 400;
const IDS_1155 = [1n, 2n, 3n, 4n, 5n];

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '250' },
    'txs-per-block': { type: 'string', default: '20' },
    'batch-sizes': { type: 'string', default: '10,100' },
    'lag-samples': { type: 'string', default: '20' },
    'poll-ms': { type: 'string', default: '20' },
    'pg-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
    verbose: { type: 'boolean', default: false },
  },
});
const BLOCKS = Number(values.blocks);
const PER_BLOCK = Number(values['txs-per-block']);
const BATCH_SIZES = values['batch-sizes']!.split(',').map(Number);
const LAG_SAMPLES = Number(values['lag-samples']);
const POLL_MS = Number(values['poll-ms']);
const PG_URL = values['pg-url']!;

async function freshDatabase(): Promise<{ url: string; db: Database }> {
  const created = await createBenchDatabase('postgres', { prefix: 'idx_bench', pgUrl: PG_URL });
  const db = await openDatabase({ databaseUrl: created.url, poolSize: 8 });
  await migrate(db.sql);
  return { url: created.url!, db };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number, d = 1) => Number(n.toFixed(d));

async function main() {
  const t0 = performance.now();
  const chain = await startBenchChain(4);
  const { evm, c, network, rnd, opts } = chain;
  const minter = evm.wallets[0]!;
  const accounts = evm.wallets.slice(2, 20);

  // ---- setup: holdings, approvals, WETH --------------------------------------------------
  const owner721 = new Map<number, Wallet>();
  const sends: Send[] = [];
  for (let id = 1; id <= TOKENS; id++) {
    const to = accounts[id % accounts.length]!;
    owner721.set(id, to);
    sends.push(() => c.erc721.connect(minter).mint(to.address, id, opts(minter)));
  }
  const balance1155 = new Map<string, bigint>();
  for (const w of accounts) {
    for (const id of IDS_1155) {
      balance1155.set(`${w.address}|${id}`, 10n);
      sends.push(() => c.erc1155.connect(minter).mint(w.address, id, 10n, opts(minter)));
    }
    sends.push(() => c.erc721.connect(w).setApprovalForAll(network.transferManagerERC721, true, opts(w)));
    sends.push(() => c.erc1155.connect(w).setApprovalForAll(network.transferManagerERC1155, true, opts(w)));
    sends.push(() => c.weth.connect(w).deposit({ value: 100n * ETH, ...opts(w) }));
    sends.push(() => c.weth.connect(w).approve(network.exchange, MaxUint256, opts(w)));
  }
  await chain.blocks(sends);

  // ---- orders (signed once, stored in every benchmark database) ---------------------------
  const now = await chain.chainNow();
  const book = createOrderBook(chain, now, 30);
  const { rows, listings, orderNonce, make } = book;
  await book.listTokens(owner721);
  for (const w of accounts) {
    for (const id of IDS_1155) await make(w, { collection: c.addresses.erc1155, tokenId: id, amount: BigInt(rnd.int(2, 8)) });
    for (let k = 0; k < 5; k++) await book.offer(w);
  }

  // ---- random traffic ---------------------------------------------------------------------
  const firstTrafficBlock = (await evm.provider.getBlockNumber()) + 1;
  const other = (w: Wallet) => chain.other(accounts, w);
  for (let b = 0; b < BLOCKS; b++) {
    const txs: (() => Promise<unknown>)[] = [];
    for (let k = 0; k < PER_BLOCK; k++) {
      const r = rnd.next();
      if (r < 0.3) {
        const id = rnd.int(1, TOKENS);
        const from = owner721.get(id)!;
        const to = other(from);
        owner721.set(id, to);
        txs.push(() => c.erc721.connect(from).transferFrom(from.address, to.address, id, opts(from)));
      } else if (r < 0.45) {
        const from = rnd.pick(accounts);
        const id = rnd.pick(IDS_1155);
        const have = balance1155.get(`${from.address}|${id}`) ?? 0n;
        if (have === 0n) continue;
        const to = other(from);
        balance1155.set(`${from.address}|${id}`, have - 1n);
        balance1155.set(`${to.address}|${id}`, (balance1155.get(`${to.address}|${id}`) ?? 0n) + 1n);
        txs.push(() => c.erc1155.connect(from).safeTransferFrom(from.address, to.address, id, 1n, '0x', opts(from)));
      } else if (r < 0.52) {
        const w = rnd.pick(accounts);
        const tm = rnd.next() < 0.5 ? network.transferManagerERC721 : network.transferManagerERC1155;
        txs.push(() => (tm === network.transferManagerERC721 ? c.erc721 : c.erc1155).connect(w).setApprovalForAll(tm, rnd.next() < 0.7, opts(w)));
      } else if (r < 0.8) {
        const w = rnd.pick(accounts);
        const op = rnd.int(0, 3);
        if (op === 0) txs.push(() => c.weth.connect(w).deposit({ value: ETH, ...opts(w) }));
        else if (op === 1) txs.push(() => c.weth.connect(w).withdraw(ETH / 2n, opts(w)));
        else if (op === 2) txs.push(() => c.weth.connect(w).transfer(other(w).address, ETH / 4n, opts(w)));
        else txs.push(() => c.weth.connect(w).approve(network.exchange, rnd.next() < 0.8 ? MaxUint256 : ETH / 10n, opts(w)));
      } else if (r < 0.83) {
        const w = rnd.pick(accounts);
        const n = orderNonce.get(w.address) ?? 1n;
        txs.push(() => c.exchange.connect(w).cancelMultipleMakerOrders([BigInt(rnd.int(0, Number(n)))], opts(w)));
      } else {
        const id = rnd.int(1, TOKENS);
        const l = listings.get(id);
        if (!l || owner721.get(id) !== l.signer) continue;
        listings.delete(id);
        const buyer = other(l.signer);
        owner721.set(id, buyer);
        txs.push(book.fill(l, buyer));
      }
    }
    await chain.block(txs);
  }
  const head = await evm.provider.getBlockNumber();
  const txCount = chain.sentCount();
  console.log(`chain ready in ${round((performance.now() - t0) / 1000)} s: ${head + 1} blocks (${head - firstTrafficBlock + 1} of random traffic, ${PER_BLOCK} tx each), ${rows.length} orders, ${txCount} transactions sent in total`);

  // ---- throughput ---------------------------------------------------------------------------
  const throughput = [];
  let last: { url: string; db: Database } | undefined;
  for (const batchSize of BATCH_SIZES) {
    const fresh = await freshDatabase();
    onCleanup(() => fresh.db.close());
    await fresh.db.prisma.collection.createMany({
      data: [
        { address: c.addresses.erc721, owner: minter.address, type: 'ERC721', name: 'bench 721' },
        { address: c.addresses.erc1155, owner: minter.address, type: 'ERC1155', name: 'bench 1155' },
      ],
    });
    await fresh.db.prisma.order.createMany({ data: rows });
    const provider = createIndexerProvider(evm.rpcUrl, 31337);
    onCleanup(async () => provider.destroy());
    const logger = values.verbose ? createLogger('debug') : undefined;
    const indexer = createIndexer({ db: fresh.db, provider, network, startBlock: 0, confirmations: 0, batchSize, now: () => new Date(now * 1000), logger });
    const started = performance.now();
    const r = await indexer.runUntilCaughtUp();
    const seconds = (performance.now() - started) / 1000;
    const [counts] = await fresh.db.sql.query<{ changes: number; sales: number; statuses: string }>(
      `SELECT (SELECT COUNT(*)::int FROM order_status_changes) AS changes, (SELECT COUNT(*)::int FROM sales) AS sales,
              (SELECT string_agg(status || ' ' || n, ', ' ORDER BY status) FROM (SELECT status::text AS status, COUNT(*) AS n FROM orders GROUP BY 1) s) AS statuses`,
    );
    const result = {
      batchSize,
      blocks: head + 1,
      events: r!.events,
      batches: r!.batches,
      seconds: round(seconds, 2),
      eventsPerSecond: round(r!.events / seconds),
      blocksPerSecond: round((head + 1) / seconds),
      // journal rows still kept at the end (pruned to the reorg window, so smaller batches keep fewer)
      journalRowsKept: counts!.changes,
      sales: counts!.sales,
      finalStatuses: counts!.statuses,
    };
    throughput.push(result);
    console.log(`throughput batchSize=${batchSize}: ${JSON.stringify(result)}`);
    last = fresh;
  }

  // ---- lag: block mined -> status visible through the REST API -------------------------------
  const env = {
    DATABASE_URL: last!.url,
    CHAIN_ID: '31337',
    RPC_URL: evm.rpcUrl,
    EXCHANGE_ADDRESS: network.exchange,
    WETH_ADDRESS: network.weth,
    TRANSFER_MANAGER_ERC721_ADDRESS: network.transferManagerERC721,
    TRANSFER_MANAGER_ERC1155_ADDRESS: network.transferManagerERC1155,
    STRATEGY_STANDARD_SALE_ADDRESSES: STANDARD,
    STRATEGY_COLLECTION_OFFER_ADDRESSES: COLLECTION_OFFER,
    SEED: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    SIGNATURE_WORKERS: '0',
  };
  // the bench drives its own indexer (confirmations 0): the app must not start one that takes the lease
  const running = await boot(loadConfig(env), createLogger('silent'), { db: last!.db, indexer: false });
  const provider = createIndexerProvider(evm.rpcUrl, 31337);
  onCleanup(async () => provider.destroy());
  const indexer = createIndexer({ db: last!.db, provider, network, startBlock: 0, confirmations: 0, batchSize: 100, now: () => new Date() });
  indexer.start(POLL_MS);
  onCleanup(() => indexer.stop());

  const restStatus = async (o: { signer: string; tokenId: number; hash: string }) => {
    const res = await running.yoga.fetch(`http://bench/api/v1/orders?collection=${c.addresses.erc721}&tokenId=${o.tokenId}&signer=${o.signer}&pagination[first]=20`);
    const body = (await res.json()) as { data: { hash: string; status: string }[] };
    return body.data.find((x) => x.hash === o.hash)?.status;
  };
  // VALID asks whose owner can still move the token
  const candidates = await last!.db.sql.query<{ hash: string; signer: string; token_id: string }>(
    `SELECT hash, signer, token_id::text AS token_id FROM orders WHERE collection_address = $1 AND is_order_ask AND status = 'VALID' ORDER BY id`,
    [c.addresses.erc721],
  );
  const lags: number[] = [];
  const moveAndWait = async (from: Wallet, to: Wallet, o: { signer: string; tokenId: number; hash: string }, expect: string) => {
    const tx = await c.erc721.connect(from).transferFrom(from.address, to.address, o.tokenId); // automined: the block exists when this returns
    const mined = performance.now();
    for (;;) {
      if ((await restStatus(o)) === expect) break;
      if (performance.now() - mined > 30_000) throw new Error(`status ${expect} not visible after 30 s (tx ${tx.hash})`);
      await new Promise((r) => setTimeout(r, 2));
    }
    lags.push(performance.now() - mined);
  };
  const eligible: { signer: Wallet; o: { signer: string; tokenId: number; hash: string } }[] = [];
  for (const cand of candidates) {
    const signer = accounts.find((w) => w.address === cand.signer)!;
    const o = { signer: cand.signer, tokenId: Number(cand.token_id), hash: cand.hash };
    if ((await c.erc721.ownerOf(o.tokenId)) !== signer.address || !(await c.erc721.isApprovedForAll(signer.address, network.transferManagerERC721))) continue;
    if ((await restStatus(o)) === 'VALID') eligible.push({ signer, o });
  }
  if (!eligible.length) throw new Error('no VALID listing left to measure the lag with');
  // each round trip (away, then back) gives two samples; listings are reused when there are few
  for (let i = 0; i < LAG_SAMPLES / 2; i++) {
    const { signer, o } = eligible[i % eligible.length]!;
    const away = other(signer);
    await moveAndWait(signer, away, o, 'INVALID_OWNER');
    await moveAndWait(away, signer, o, 'VALID');
  }
  await indexer.stop();
  await running.services.deps.signatures?.close();
  const sorted = [...lags].sort((a, b) => a - b);
  const lag = {
    samples: sorted.length,
    listings: eligible.length,
    pollMs: POLL_MS,
    p50Ms: round(pct(sorted, 50)),
    p90Ms: round(pct(sorted, 90)),
    maxMs: round(sorted[sorted.length - 1]!),
    meanMs: round(sorted.reduce((s, x) => s + x, 0) / sorted.length),
  };
  console.log(`lag block mined -> status visible via GET /api/v1/orders (confirmations 0, poll ${POLL_MS} ms): ${JSON.stringify(lag)}`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `indexer-postgres-${new Date().toISOString().replaceAll(':', '-').replace('.', '-')}.json`);
  writeFileSync(file, JSON.stringify({ node: process.version, blocks: head + 1, perBlock: PER_BLOCK, orders: rows.length, throughput, lag }, null, 2));
  console.log(`results: ${path.relative(process.cwd(), file)}`);
}

await runBench(main);
