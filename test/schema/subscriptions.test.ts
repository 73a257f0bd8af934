// Live events: order lifecycle over SSE, in-process and across two instances through
// Redis, and a status change caused by a chain event picked up by the running indexer.
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { deployTestContracts } from '../helpers/evm/deploy.js';
import { startLocalEvm } from '../helpers/evm/local-evm.js';
import { signWithEthers6, type MakerOrderBody } from '../helpers/maker-orders.js';
import { subscribe } from '../helpers/sse.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { titled } from '../helpers/skip-reasons.js';

// Redis is not needed for `npm test` on a fresh machine; CI sets TEST_REDIS_URL so this always runs there.
const REDIS_URL = process.env.TEST_REDIS_URL;
const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const COLLECTION = '0x' + 'c4'.repeat(20);
const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

const ORDER_EVENTS = `subscription($f: OrderEventFilter) { orderEvents(filter: $f) { kind hash signer collection oldStatus newStatus blockNumber order { hash status } } }`;

async function appWith(env: Record<string, string> = {}, now = FIXED_NOW) {
  const app = await startTestApp(env, { now });
  apps.push(app);
  return app;
}

function ask(app: TestApp, over: Partial<MakerOrderBody> = {}): MakerOrderBody {
  const net = app.config.network;
  return {
    isOrderAsk: true, signer: wallet.address, collection: COLLECTION, price: '1000', tokenId: '1', amount: '1',
    strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: String(Math.floor(Math.random() * 1e9)),
    startTime: NOW - 10, endTime: NOW + 3600, minPercentageToAsk: 9800, params: [], ...over,
  };
}

async function create(app: TestApp, order: MakerOrderBody) {
  const body = await signWithEthers6(wallet, app.config.network.chainId, app.config.network.exchange, order);
  const res = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.hash as string;
}

describe(`subscriptions (${backendName})`, () => {
  it('delivers CREATED to a filtered subscriber in the same instance', async () => {
    const app = await appWith();
    await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721' });
    const sub = await subscribe(app.yoga, ORDER_EVENTS, { f: { collection: COLLECTION, kinds: ['CREATED'] } });
    try {
      const hash = await create(app, ask(app));
      const ev = await sub.next();
      expect(ev.data.orderEvents).toMatchObject({ kind: 'CREATED', hash, signer: wallet.address, oldStatus: null, newStatus: 'VALID', order: { hash, status: 'VALID' } });
    } finally {
      sub.close();
    }
  });

  it.runIf(REDIS_URL)(titled('delivers an event produced on one instance to a subscriber of another, through Redis', 'redis'), async () => {
    const a = await appWith({ REDIS_URL: REDIS_URL! });
    const b = await appWith({ REDIS_URL: REDIS_URL! });
    await a.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721' });
    const sub = await subscribe(b.yoga, `subscription($s: Address) { orderEvents(filter: { signer: $s }) { kind hash } }`, { s: wallet.address });
    try {
      await new Promise((r) => setTimeout(r, 200)); // let the Redis subscription settle
      const hash = await create(a, ask(a, { tokenId: '2' }));
      const ev = await sub.next();
      expect(ev.data.orderEvents).toEqual({ kind: 'CREATED', hash });
    } finally {
      sub.close();
    }
  });

  it('delivers the status change a chain event causes, picked up by the running indexer', async () => {
    const evm = await startLocalEvm();
    try {
      const c = await deployTestContracts(evm);
      const seller = evm.wallets[2]!;
      await (await c.erc721.connect(evm.wallets[0]!).mint(seller.address, 5)).wait();
      await (await c.erc721.connect(seller).setApprovalForAll(c.addresses.transferManager721, true)).wait();
      const now = (await evm.provider.getBlock('latest'))!.timestamp;
      const app = await appWith(
        {
          CHAIN_ID: '31337', RPC_URL: evm.rpcUrl, INDEXER: 'on', INDEXER_CONFIRMATIONS: '0', INDEXER_POLL_MS: '50',
          EXCHANGE_ADDRESS: c.addresses.exchange, WETH_ADDRESS: c.addresses.weth,
          TRANSFER_MANAGER_ERC721_ADDRESS: c.addresses.transferManager721, TRANSFER_MANAGER_ERC1155_ADDRESS: c.addresses.transferManager1155,
          STRATEGY_STANDARD_SALE_ADDRESSES: '0x' + '5a'.repeat(20), STRATEGY_COLLECTION_OFFER_ADDRESSES: '0x' + '6b'.repeat(20),
        },
        new Date(now * 1000),
      );
      const net = app.config.network;
      const body = await signWithEthers6(seller, 31337, net.exchange, {
        isOrderAsk: true, signer: seller.address, collection: c.addresses.erc721, price: '1000', tokenId: '5', amount: '1',
        strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: '1', startTime: now - 10, endTime: now + 3600, minPercentageToAsk: 9800, params: [],
      });
      const created = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const sub = await subscribe(app.yoga, ORDER_EVENTS, { f: { hash: created.body.data.hash, kinds: ['STATUS_CHANGED'] } });
      try {
        const tx = await c.erc721.connect(seller).transferFrom(seller.address, evm.wallets[3]!.address, 5);
        const receipt = await tx.wait();
        const ev = await sub.next(20_000);
        expect(ev.data.orderEvents).toMatchObject({ kind: 'STATUS_CHANGED', oldStatus: 'VALID', newStatus: 'INVALID_OWNER', blockNumber: receipt!.blockNumber });
        const listed = await app.rest(`/api/v1/orders?signer=${seller.address}`);
        expect(listed.body.data[0].status).toBe('INVALID_OWNER');
      } finally {
        sub.close();
      }
    } finally {
      for (const a of apps.splice(0)) await a.close();
      await evm.stop();
    }
  });
});
