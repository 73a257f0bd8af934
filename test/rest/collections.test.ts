// GET /api/v1/collections, /collections/stats, /collections/listing-rewards, /orders/nonce on
// the demo data: shapes of spec 2.6-2.8, unknown addresses, bad input, and agreement with GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCollectionAddress, DEMO_WALLETS, seedDemo } from '../../src/demo/seed-demo.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { now: new Date() });
  await seedDemo(app.services, { orderCount: 150, saleCount: 600 });
});
afterAll(() => app?.close());

const COLLECTION_FIELDS = ['address', 'owner', 'setter', 'admin', 'name', 'description', 'symbol', 'type', 'websiteLink', 'alphaLink', 'bravoLink', 'charlieLink', 'deltaLink', 'echoLink', 'foxtrotLink', 'isVerified', 'isExplicit', 'logoURI', 'bannerURI'];

describe(`collection routes (${backendName})`, () => {
  it('GET /collections returns the spec 2.6 shape for any letter case of the address', async () => {
    const address = demoCollectionAddress(0);
    const res = await app.rest(`/api/v1/collections?address=${address.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual([...COLLECTION_FIELDS].sort());
    expect(res.body.data.address).toBe(address);
    expect(res.body.data.type).toBe('ERC721');
  });

  it('uses the default name when none is set, and answers 200 data:null for unknown addresses', async () => {
    const unnamed = '0x' + '77'.repeat(20);
    await app.services.collections.upsertCollection({ address: unnamed, type: 'ERC1155' });
    expect((await app.rest(`/api/v1/collections?address=${unnamed}`)).body.data.name).toBe('Unnamed collection');
    for (const path of ['/api/v1/collections', '/api/v1/collections/stats']) {
      const res = await app.rest(`${path}?address=0x${'99'.repeat(20)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: null, data: null });
    }
  });

  it('refuses a missing or malformed address with a 400 envelope', async () => {
    for (const path of ['/api/v1/collections', '/api/v1/collections/stats', '/api/v1/orders/nonce']) {
      const missing = await app.rest(path);
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ success: false, data: null });
      expect(missing.body.errors[0]).toMatchObject({ field: 'address', code: 'REQUIRED' });
      const bad = await app.rest(`${path}?address=0x12345`);
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].code).toBe('INVALID_ADDRESS');
    }
  });

  it('GET /collections/stats returns every field as a string (nullable floor fields) and equals the GraphQL field', async () => {
    const address = demoCollectionAddress(1);
    const res = await app.rest(`/api/v1/collections/stats?address=${address}`);
    const stats = res.body.data;
    expect(stats.address).toBe(address);
    const periods = ['24h', '7d', '1m', '3m', '6m', '1y'];
    const keys = ['address', 'countOwners', 'totalSupply', 'floorPrice', 'floorChange24h', 'floorChange7d', 'floorChange30d', 'marketCap', 'volumeAll', 'averageAll', 'countAll', ...periods.flatMap((p) => [`volume${p}`, `average${p}`, `count${p}`, `change${p}`])];
    expect(Object.keys(stats).sort()).toEqual(keys.sort());
    for (const k of keys) if (stats[k] !== null) expect(typeof stats[k]).toBe('string');
    expect(BigInt(stats.countAll)).toBeGreaterThan(0n);
    expect(BigInt(stats.volume1y)).toBeLessThanOrEqual(BigInt(stats.volumeAll));
    expect(BigInt(stats.volume24h)).toBeLessThanOrEqual(BigInt(stats.volume7d));
    const gql = await app.gql(`query($a: Address!) { collection(address: $a) { stats { ${keys.join(' ')} } } }`, { a: address });
    expect((gql.data as any).collection.stats).toEqual(stats);
  });

  it('GET /collections/listing-rewards returns up to 5 fresh verified collections ranked by global volume', async () => {
    const res = await app.rest('/api/v1/collections/listing-rewards');
    expect(res.status).toBe(200);
    const list = res.body.data as any[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThanOrEqual(5);
    expect(list.map((e) => e.points)).toEqual([500, 360, 200, 100, 50].slice(0, list.length));
    const volumes = list.map((e) => BigInt(e.volume24hGlobal));
    expect(volumes).toEqual([...volumes].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    for (const e of list) {
      expect(e.collection.isVerified).toBe(true);
      expect(Object.keys(e).sort()).toEqual(['collection', 'floorGlobal', 'points', 'volume24hGlobal']);
      expect(Object.keys(e.collection).sort()).toEqual([...COLLECTION_FIELDS].sort());
    }
    // the demo's stale entry (collection 2, three days old) does not count
    expect(list.map((e) => e.collection.address)).not.toContain(demoCollectionAddress(2));
  });

  it('GET /collections/listing-rewards answers data:null when the program is off', async () => {
    const off = await startTestApp({ LISTING_REWARDS_ENABLED: 'false' });
    try {
      expect((await off.rest('/api/v1/collections/listing-rewards')).body).toEqual({ success: true, message: null, data: null });
    } finally {
      await off.close();
    }
  });

  it('GET /orders/nonce returns the next unused nonce as a decimal string, above stored orders and the minimum', async () => {
    const wallet = DEMO_WALLETS[3]!.address;
    const max = await app.db.prisma.order.aggregate({ where: { signer: wallet }, _max: { nonce: true } });
    const res = await app.rest(`/api/v1/orders/nonce?address=${wallet.toLowerCase()}`);
    expect(res.body).toEqual({ success: true, message: null, data: (BigInt(max._max.nonce!.toFixed()) + 1n).toString() });
    const fresh = '0x' + '42'.repeat(20);
    expect((await app.rest(`/api/v1/orders/nonce?address=${fresh}`)).body.data).toBe('0');
    await app.db.prisma.signerNonceState.create({ data: { signer: '0x4242424242424242424242424242424242424242', minNonce: '1000000000000000000000' } });
    expect((await app.rest(`/api/v1/orders/nonce?address=${fresh}`)).body.data).toBe('1000000000000000000000');
    const gql = await app.gql(`query($a: Address!) { nonce(address: $a) }`, { a: fresh });
    expect((gql.data as any).nonce).toBe('1000000000000000000000');
  });
});
