// Several gateway processes as one service, started by the same module as
// `npm run cluster`: three instances on one PostgreSQL database and a private redis-server, with
// the chain indexer enabled in all three over a local EVM.
//   - a subscription on one instance gets an order created through another and a status change
//     indexed by the third (the one holding the indexer lease);
//   - one rate-limit budget for a client across instances (Redis);
//   - kill -9 the indexing instance: another takes the lease within a measured time, and the
//     statuses and sales equal a single indexer's over the same chain actions;
//   - Redis killed: reads and writes go on, subscriptions deliver locally with a logged warning,
//     and events cross instances again once Redis is back; no instance exits.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ContractTransactionResponse, Wallet } from 'ethers';
import { MaxUint256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster, type Instance } from '../../scripts/cluster/start-cluster.js';
import { createIndexer } from '../../src/chain/indexer/indexer.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import type { ExchangeFill } from '../helpers/evm/deploy.js';
import { COLLECTION_OFFER, STANDARD, registerCollections, startWorld, storeOrder, type StoredOrder, type World } from '../helpers/indexer-world.js';
import { signWithEthers6 } from '../helpers/maker-orders.js';
import { redisServerMissing, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { subscribe } from '../helpers/sse.js';
import { TEST_DATABASE_URL, createPostgresDatabase } from '../helpers/test-database.js';

const skipReason = !TEST_DATABASE_URL
  ? 'set TEST_DATABASE_URL (a PostgreSQL server): instances of a cluster share one database'
  : redisServerMissing;
const GAS = { gasLimit: 1_000_000 };
const ETH = 10n ** 18n;
const TOKENS = 12;
const LIMITED_KEY = 'cluster-test-key';
const LIMIT = 30;

let world: World;
let redis: PrivateRedis;
let cluster: Cluster;
let db: Database;
let dropDb = async () => {};
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (skipReason) return;
  world = await startWorld();
  redis = await startPrivateRedis();
  const created = await createPostgresDatabase();
  dropDb = created.drop;
  const { addresses } = world.c;
  cluster = await startCluster({
    instances: 3,
    logDir: mkdtempSync(path.join(tmpdir(), 'cluster-test-')),
    env: {
      DATABASE_URL: created.url,
      DATABASE_POOL_SIZE: '4',
      REDIS_URL: redis.url,
      CHAIN_ID: '31337',
      RPC_URL: world.evm.rpcUrl,
      INDEXER: 'on',
      INDEXER_START_BLOCK: '0',
      INDEXER_CONFIRMATIONS: '0',
      INDEXER_BATCH_SIZE: '3',
      INDEXER_POLL_MS: '100',
      EXCHANGE_ADDRESS: addresses.exchange,
      WETH_ADDRESS: addresses.weth,
      TRANSFER_MANAGER_ERC721_ADDRESS: addresses.transferManager721,
      TRANSFER_MANAGER_ERC1155_ADDRESS: addresses.transferManager1155,
      STRATEGY_STANDARD_SALE_ADDRESSES: STANDARD,
      STRATEGY_COLLECTION_OFFER_ADDRESSES: COLLECTION_OFFER,
      SEED: '0',
      // the client address budget out of the way; the shared-budget test uses its own key
      RATE_LIMIT_PER_MINUTE: '1000000',
      API_KEYS: `${LIMITED_KEY}:${LIMIT}`,
      SIGNATURE_WORKERS: '0',
      GRAPHIQL: 'false',
      LOG_LEVEL: 'info',
    },
  });
  db = await openDatabase({ databaseUrl: created.url, poolSize: 2 });
  await registerCollections(db, [{ address: addresses.erc721, type: 'ERC721' }]);
}, 240_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await cluster?.stop();
  await db?.close();
  await dropDb();
  await redis?.stop();
  await world?.stop();
});

async function until<T>(probe: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ACTIVE = /"msg":"indexer active"/;

/** The instance holding the indexer lease (it logged "indexer active" last among the live ones). */
async function leader(): Promise<Instance> {
  return until(
    async () => {
      const active = cluster.instances.filter((i) => !i.exited && ACTIVE.test(i.log()));
      return active.length === 1 ? active[0] : null;
    },
    30_000,
    'exactly one instance to hold the indexer lease',
  );
}

async function caughtUp(target: Database, ms = 60_000) {
  const head = await world.evm.provider.getBlockNumber();
  await until(
    async () => {
      const [row] = await target.sql.query<{ n: string }>(`SELECT block_number::text AS n FROM indexer_cursor WHERE stream = 'main'`);
      return row && Number(row.n) >= head;
    },
    ms,
    `the indexer to reach block ${head}`,
  );
}

async function rest(inst: Instance, pathAndQuery: string, init?: RequestInit) {
  const res = await fetch(`${inst.url}${pathAndQuery}`, init);
  return { status: res.status, body: (await res.json()) as any };
}

async function gql(inst: Instance, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${inst.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return res.json();
}

async function postOrder(inst: Instance, seller: Wallet, tokenId: number, nonce: number) {
  const now = (await world.evm.provider.getBlock('latest'))!.timestamp;
  const net = world.network;
  const body = await signWithEthers6(seller, 31337, net.exchange, {
    isOrderAsk: true, signer: seller.address, collection: world.c.addresses.erc721, price: String(ETH / 10n), tokenId: String(tokenId), amount: '1',
    strategy: STANDARD, currency: net.weth, nonce: String(nonce), startTime: now - 10, endTime: now + 86_400, minPercentageToAsk: 9800, params: [],
  });
  const res = await rest(inst, '/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.hash as string;
}

const send = async (p: Promise<ContractTransactionResponse>) => (await p).wait();

describe.skipIf(skipReason)(`three gateway instances${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('exactly one instance indexes; a subscriber on one instance sees an order created through another and the status change the indexer (a third) wrote', async () => {
    const indexer = await leader();
    expect(cluster.instances.filter((i) => /another indexer is active; standing by/.test(i.log()))).toHaveLength(2);
    const [subscriber, creator] = cluster.instances.filter((i) => i !== indexer) as [Instance, Instance];
    const { c } = world;
    const seller = world.evm.wallets[2]!;
    await send(c.erc721.connect(world.evm.wallets[0]!).mint(seller.address, 100));
    await send(c.erc721.connect(seller).setApprovalForAll(c.addresses.transferManager721, true));

    const sub = await subscribe(subscriber.url, `subscription($s: Address) { orderEvents(filter: { signer: $s }) { kind hash oldStatus newStatus blockNumber } }`, { s: seller.address });
    cleanups.push(async () => sub.close());
    await new Promise((r) => setTimeout(r, 300)); // the SUBSCRIBE reaches Redis
    const hash = await postOrder(creator, seller, 100, 1000);
    expect((await sub.next(10_000)).data.orderEvents).toEqual({ kind: 'CREATED', hash, oldStatus: null, newStatus: 'VALID', blockNumber: null });

    const receipt = await send(c.erc721.connect(seller).transferFrom(seller.address, world.evm.wallets[3]!.address, 100));
    const ev = (await sub.next(30_000)).data.orderEvents;
    expect(ev).toEqual({ kind: 'STATUS_CHANGED', hash, oldStatus: 'VALID', newStatus: 'INVALID_OWNER', blockNumber: receipt!.blockNumber });
    // the change was indexed by the lease holder, not by the subscriber's or the creator's instance
    expect(ACTIVE.test(subscriber.log()) || ACTIVE.test(creator.log())).toBe(false);
    sub.close();
  }, 120_000);

  it('rate limits are shared: a client spreading requests over all instances is limited as one', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 2 * LIMIT; n++) {
      const inst = cluster.instances[n % cluster.instances.length]!;
      const res = await fetch(`${inst.url}/api/v1/collections/listing-rewards`, { headers: { 'x-looks-api-key': LIMITED_KEY } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT).every((s) => s === 429)).toBe(true);
    // each instance turned some of them away: the budget is one, not one per instance
    for (let k = 0; k < cluster.instances.length; k++) expect(statuses.filter((s, n) => n % 3 === k && s === 429).length).toBeGreaterThan(0);
  });

  it('kill -9 of the indexing instance: another takes the lease over; statuses and sales equal a single indexer run over the same chain', async () => {
    const { c, network, evm } = world;
    const minter = evm.wallets[0]!;
    const sellers = evm.wallets.slice(4, 8);
    const buyers = evm.wallets.slice(8, 11);
    for (let id = 1; id <= TOKENS; id++) await send(c.erc721.connect(minter).mint(sellers[id % sellers.length]!.address, id));
    for (const s of sellers) await send(c.erc721.connect(s).setApprovalForAll(network.transferManagerERC721, true));
    for (const b of buyers) {
      await send(c.weth.connect(b).deposit({ value: 5n * ETH }));
      await send(c.weth.connect(b).approve(network.exchange, MaxUint256));
    }
    // The same signed orders in the cluster's database and in a reference database.
    const ref = await createPostgresDatabase();
    const refDb = await openDatabase({ databaseUrl: ref.url, poolSize: 2 });
    cleanups.push(async () => {
      await refDb.close();
      await ref.drop();
    });
    await migrate(refDb.sql);
    await registerCollections(refDb, [{ address: c.addresses.erc721, type: 'ERC721' }]);
    const nowSec = (await evm.provider.getBlock('latest'))!.timestamp;
    const orders: StoredOrder[] = [];
    for (let id = 1; id <= TOKENS; id++) {
      const seller = sellers[id % sellers.length]!;
      const spec = { collection: c.addresses.erc721, tokenId: BigInt(id), nonce: BigInt(id), price: (BigInt(id) * ETH) / 10n, status: 'VALID' as const };
      orders.push(await storeOrder(db, world, seller, spec, nowSec));
      await storeOrder(refDb, world, seller, spec, nowSec);
    }
    const walletOf = (a: string) => evm.wallets.find((w) => w.address === a)!;
    const fill = (o: StoredOrder, buyer: Wallet) => {
      const f: ExchangeFill = { orderHash: o.hash, orderNonce: o.nonce, maker: o.signer, strategy: STANDARD, currency: network.weth, collection: o.collection, tokenId: o.tokenId!, amount: 1n, price: o.price, isERC1155: false };
      return send(c.exchange.connect(buyer).fillAsk(f, GAS));
    };
    // Chain actions in three rounds: before the kill, right after it (no indexer alive), after the takeover.
    const round = async (k: number) => {
      for (let i = 0; i < 4; i++) {
        const o = orders[k * 4 + i]!;
        const seller = walletOf(o.signer);
        if (i === 0) await fill(o, buyers[k % buyers.length]!);
        if (i === 1) await send(c.erc721.connect(seller).transferFrom(seller.address, buyers[0]!.address, o.tokenId!));
        if (i === 2) await send(c.exchange.connect(seller).cancelMultipleMakerOrders([o.nonce], GAS));
        if (i === 3) {
          await send(c.erc721.connect(seller).setApprovalForAll(network.transferManagerERC721, false));
          await fill(orders[(k * 4 + 7) % TOKENS]!, buyers[(k + 1) % buyers.length]!).catch(() => null); // may revert: nothing happens then
          await send(c.erc721.connect(seller).setApprovalForAll(network.transferManagerERC721, true));
        }
      }
    };

    await round(0);
    await caughtUp(db);
    const first = await leader();
    const offsets = new Map(cluster.instances.map((i) => [i, i.log().length]));
    const killedAt = Date.now();
    await first.kill('SIGKILL');
    await round(1); // events while no instance holds the lease
    const takeover = await Promise.any(
      cluster.instances.filter((i) => i !== first).map((i) => i.waitForLog(ACTIVE, 30_000, offsets.get(i)).then((r) => ({ inst: i, ...r }))),
    );
    const failoverMs = takeover.at - killedAt;
    console.log(`indexer lease failover after kill -9: ${failoverMs} ms (INDEXER_POLL_MS=100; instance #${first.index} -> #${takeover.inst.index})`);
    expect(failoverMs).toBeLessThan(10_000);
    await round(2);
    await caughtUp(db);

    // The reference: one indexer, from block 0, over the same chain, into the reference database.
    const provider = world.indexerProvider();
    const single = createIndexer({ db: refDb, provider, network, startBlock: 0, confirmations: 0, batchSize: 50, now: () => new Date() });
    await single.runUntilCaughtUp();
    const statuses = (d: Database) => d.sql.query<{ hash: string; status: string }>(`SELECT hash, status::text AS status FROM orders ORDER BY hash`);
    const sales = (d: Database) =>
      d.sql.query(`SELECT tx_hash, log_index, order_hash, price::text AS price, buyer, seller, token_id::text AS token_id FROM sales ORDER BY block_number, log_index`);
    const clusterStatuses = await statuses(db);
    expect(clusterStatuses.filter((s) => orders.some((o) => o.hash === s.hash))).toEqual(await statuses(refDb));
    const seen = new Set(clusterStatuses.map((s) => s.status));
    for (const s of ['EXECUTED', 'INVALID_OWNER', 'CANCELLED', 'VALID']) expect(seen, `a ${s} order`).toContain(s);
    const clusterSales = await sales(db);
    expect(clusterSales).toEqual(await sales(refDb));
    expect(clusterSales.length).toBeGreaterThanOrEqual(3); // one fill per round at least, each recorded once

    await first.restart(); // back as a standby for the next test
    await first.waitForLog(/another indexer is active; standing by/, 60_000, offsets.get(first));
  }, 300_000); // about 20 s on a quiet machine; many chain transactions and a process restart under load

  it('Redis down: reads and writes go on, subscriptions deliver locally with a warning, and cross instances again when Redis is back', async () => {
    const { c, evm } = world;
    const [a, b] = cluster.instances as [Instance, Instance];
    const seller = evm.wallets[12]!;
    for (const id of [201, 202, 203]) await send(c.erc721.connect(evm.wallets[0]!).mint(seller.address, id));
    await send(c.erc721.connect(seller).setApprovalForAll(c.addresses.transferManager721, true));
    const q = `subscription($s: Address) { orderEvents(filter: { signer: $s, kinds: [CREATED] }) { hash } }`;
    const onA = await subscribe(a.url, q, { s: seller.address });
    cleanups.push(async () => onA.close());
    const offsets = cluster.instances.map((i) => i.log().length);

    await redis.kill();
    await a.waitForLog(/Redis unreachable/, 10_000, offsets[0]);
    const onB = await subscribe(b.url, q, { s: seller.address }); // a new subscription during the outage
    cleanups.push(async () => onB.close());
    const h1 = await postOrder(a, seller, 201, 2001); // a write during the outage
    expect((await onA.next(10_000)).data.orderEvents.hash).toBe(h1); // delivered locally
    const read = await gql(b, `query($h: Hash!) { order(hash: $h) { hash status } }`, { h: h1 }); // a read on another instance
    // stamped with the block the shared indexer had committed (docs/api.md, "Consistency")
    expect(read).toEqual({ data: { order: { hash: h1, status: 'VALID' } }, extensions: { indexedBlock: expect.any(Number) } });
    const h2 = await postOrder(b, seller, 202, 2002);
    expect((await onB.next(10_000)).data.orderEvents.hash).toBe(h2);
    await new Promise((r) => setTimeout(r, 1500)); // past ioredis giving up on queued commands
    expect(cluster.instances.filter((i) => i.exited)).toEqual([]);
    for (const i of cluster.instances) expect((await fetch(`${i.url}/readyz`)).status).toBe(200);

    await redis.start();
    for (const [k, i] of cluster.instances.entries()) await i.waitForLog(/Redis reachable again/, 30_000, offsets[k]);
    await new Promise((r) => setTimeout(r, 300)); // re-SUBSCRIBE reaches the server
    const h3 = await postOrder(a, seller, 203, 2003);
    expect((await onB.next(10_000)).data.orderEvents.hash).toBe(h3); // across instances again
    expect((await onA.next(10_000)).data.orderEvents.hash).toBe(h3); // and once on the publisher
    onA.close();
    onB.close();
  }, 180_000);
});
