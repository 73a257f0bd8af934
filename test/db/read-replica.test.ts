// Reads from a real streaming replica: a private primary and a replica started by the
// test, replay paused to make lag visible. The order book list may lag (bounded: once the replica
// is DATABASE_REPLICA_MAX_LAG_MS behind, reads go to the primary), an order fetched by hash never
// does (read your own write), and the nonce and the submission rules read the primary.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { signWithEthers6, type MakerOrderBody } from '../helpers/maker-orders.js';
import { pgReplicaUnavailable, startPrimaryWithReplica, type PrimaryWithReplica } from '../helpers/pg-replica.js';
import { FIXED_NOW } from '../helpers/test-app.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const MAX_LAG_MS = 3000;
const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const COLLECTION = '0x' + 'c5'.repeat(20);

let pgs: PrimaryWithReplica;
let app: Running;
let config: Config;

beforeAll(async () => {
  if (pgReplicaUnavailable) return;
  pgs = await startPrimaryWithReplica();
  config = loadConfig({
    DATABASE_URL: pgs.primaryUrl,
    DATABASE_REPLICA_URL: pgs.replicaUrl,
    DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
    DATABASE_REPLICA_PROBE_MS: '100',
    DATABASE_POOL_SIZE: '3',
    SEED: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    SIGNATURE_WORKERS: '0',
  });
  app = await boot(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { now: () => FIXED_NOW, indexer: false });
  await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721' });
  await pgs.waitCaughtUp();
}, 120_000);

afterAll(async () => {
  await app?.close();
  await pgs?.stop();
});

async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as any;
}

async function post(nonce: number, tokenId: string) {
  const net = config.network;
  const order: MakerOrderBody = {
    isOrderAsk: true, signer: wallet.address, collection: COLLECTION, price: '1000', tokenId, amount: '1',
    strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: String(nonce),
    startTime: NOW - 10, endTime: NOW + 3600, minPercentageToAsk: 9800, params: [],
  };
  const body = await signWithEthers6(wallet, net.chainId, net.exchange, order);
  const res = await app.yoga.fetch('http://test/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data.hash as string;
}

const listHashes = async () =>
  ((await gql(`query($s: Address) { orders(filter: { signer: $s }, first: 50) { edges { node { hash } } } }`, { s: wallet.address })).data.orders.edges as { node: { hash: string } }[]).map((e) => e.node.hash);

describe.skipIf(pgReplicaUnavailable)(`read replica${pgReplicaUnavailable ? ` (skipped: ${pgReplicaUnavailable})` : ''}`, () => {
  it('lists from the replica, reads an order by hash through the primary when the replica lags, and stops using a replica that falls too far behind', async () => {
    const replica = app.services.deps.replica!;
    await until(() => replica.usable(), 10_000, 'the replica to be used');
    const before = await post(1, '1');
    await pgs.waitCaughtUp();
    expect(await listHashes()).toEqual([before]);

    await pgs.pauseReplay();
    const hash = await post(2, '2');
    const tookAt = Date.now();
    // The lag, visible: the replica does not have the order yet, the primary does.
    expect(await pgs.query(pgs.replicaUrl, 'SELECT hash FROM orders WHERE hash = $1', [hash])).toEqual([]);
    expect(await pgs.query(pgs.primaryUrl, 'SELECT hash FROM orders WHERE hash = $1', [hash])).toEqual([{ hash }]);
    // A list within the allowed lag comes from the replica and does not show it yet...
    expect(replica.usable()).toBe(true);
    expect(await listHashes()).toEqual([before]);
    expect(replica.usable()).toBe(true);
    expect(Date.now() - tookAt).toBeLessThan(MAX_LAG_MS); // (else the list above proved nothing)
    // ...but the order by hash does: a miss on the replica is asked of the primary.
    expect(await gql(`query($h: Hash!) { order(hash: $h) { hash status } }`, { h: hash })).toEqual({ data: { order: { hash, status: 'VALID' } } });
    // The nonce and the submission rules read the primary: the next nonce is above the new order's.
    expect(await gql(`query($a: Address!) { nonce(address: $a) }`, { a: wallet.address })).toEqual({ data: { nonce: '3' } });

    // Past the allowed lag the replica is left alone and lists come from the primary.
    await until(() => !replica.usable(), MAX_LAG_MS + 5000, 'the lagging replica to be dropped');
    expect(Date.now() - tookAt).toBeGreaterThanOrEqual(MAX_LAG_MS - 200);
    expect(replica.state().reason).toMatch(/behind/);
    expect(await listHashes()).toEqual([hash, before]);

    await pgs.resumeReplay();
    await until(() => replica.usable(), 10_000, 'the replica to be used again');
    expect(await listHashes()).toEqual([hash, before]);
  });
});
