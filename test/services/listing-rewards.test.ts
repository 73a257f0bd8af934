// Listing rewards (spec 2.8): the top 5 verified collections with fresh operator-fed
// market data, ranked by global 24h volume, points from configuration, floorGlobal the lower of
// both floors; and the operator feed itself (admin mutation and CLI), all or nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createListingRewardsService } from '../../src/services/listing-rewards.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = new Date('2026-06-01T12:30:15.500Z');
const KEY = 'admin-key-0123456789abcdef';
const M = (1n << 256n) - 1n;
const ETH = 10n ** 18n;
// Digits only, so the stored (EIP-55) spelling is the same and address order is plain.
const addr = (n: number) => `0x${String(n).padStart(2, '0').repeat(20)}`;
const V1 = addr(11);
const V2 = addr(22);
const V3 = addr(21); // same volume as V2, lower address: ranks first of the two
const V4 = addr(44);
const V5 = addr(55);
const V6 = addr(66);
const EDGE = addr(77); // observed exactly GLOBAL_DATA_MAX_AGE_SECONDS ago: still fresh
const STALE = addr(88); // a millisecond older: does not count
const UNVERIFIED = addr(99);
const NO_DATA = addr(33);

const UPSERT = `mutation($input: [MarketDataInput!]!) { upsertMarketData(input: $input) { written ignoredOlder } }`;
const TOP = `{ listingRewards { points volume24hGlobal floorGlobal collection { address isVerified } } }`;

let app: TestApp;
let disabled: TestApp;
let orderSeq = 0;

async function listing(collection: string, price: bigint) {
  const n = orderSeq++;
  const nowSec = Math.floor(NOW.getTime() / 1000);
  await app.db.prisma.order.create({
    data: {
      hash: `0x${(0xfeed00 + n).toString(16).padStart(64, '0')}`, collectionAddress: collection, tokenId: String(n + 1), isOrderAsk: true,
      signer: addr(1), strategy: app.services.deps.network.strategies.standardSale[0]!, currencyAddress: app.services.deps.network.weth,
      amount: '1', price: price.toString(), nonce: String(n), startTime: BigInt(nowSec - 60), endTime: BigInt(nowSec + 86_400),
      minPercentageToAsk: 9800, signature: '0x', v: 27, r: `0x${'0'.repeat(64)}`, s: `0x${'0'.repeat(64)}`,
    },
  });
}

const iso = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();
const DAY_MS = 86_400_000;

beforeAll(async () => {
  app = await startTestApp({ ADMIN_API_KEY: KEY }, { now: NOW });
  disabled = await startTestApp({ LISTING_REWARDS_ENABLED: 'false' }, { now: NOW });
  for (const a of [V1, V2, V3, V4, V5, V6, EDGE, STALE, NO_DATA]) await app.services.collections.upsertCollection({ address: a, type: 'ERC721', isVerified: true });
  await app.services.collections.upsertCollection({ address: UNVERIFIED, type: 'ERC1155', isVerified: false });
  await listing(V1, 9n * 10n ** 17n); // ours below theirs (1 ETH)
  await listing(V1, 2n * ETH);
  await listing(V3, 5n * ETH); // ours above theirs (3 ETH)
  const r = await app.services.listingRewards.upsertMarketData([
    { collection: V1, volume24hGlobal: '700', floorGlobal: ETH.toString() },
    { collection: V2, volume24hGlobal: '600', floorGlobal: '2' },
    { collection: V3, volume24hGlobal: '600', floorGlobal: (3n * ETH).toString() },
    { collection: V4, volume24hGlobal: '400', floorGlobal: M.toString() },
    { collection: V5, volume24hGlobal: '300', floorGlobal: '5' },
    { collection: V6, volume24hGlobal: '200', floorGlobal: '6' },
    { collection: EDGE, volume24hGlobal: '800', floorGlobal: '7', observedAt: iso(-DAY_MS) },
    { collection: STALE, volume24hGlobal: '900', floorGlobal: '8', observedAt: iso(-DAY_MS - 1) },
    { collection: UNVERIFIED, volume24hGlobal: (10n ** 30n).toString(), floorGlobal: '9' },
  ]);
  expect(r).toEqual({ written: 9, ignoredOlder: 0 });
});
afterAll(async () => {
  await app?.close();
  await disabled?.close();
});

describe(`listing rewards (${backendName})`, () => {
  it('ranks fresh verified collections by global volume (ties by address), top 5, default points', async () => {
    const top = await app.services.listingRewards.topListingRewards();
    expect(top).toEqual([
      { collectionAddress: EDGE, volume24hGlobal: '800', floorGlobal: '7', points: 500 },
      { collectionAddress: V1, volume24hGlobal: '700', floorGlobal: (9n * 10n ** 17n).toString(), points: 360 }, // ours is lower
      { collectionAddress: V3, volume24hGlobal: '600', floorGlobal: (3n * ETH).toString(), points: 200 }, // theirs is lower
      { collectionAddress: V2, volume24hGlobal: '600', floorGlobal: '2', points: 100 },
      { collectionAddress: V4, volume24hGlobal: '400', floorGlobal: M.toString(), points: 50 }, // no listing of ours
    ]);
  });

  it('serves the same list through GraphQL and REST', async () => {
    const gql = await app.gql(TOP);
    expect(gql.errors).toBeUndefined();
    const list = (gql.data as any).listingRewards as any[];
    expect(list.map((e) => [e.collection.address, e.points, e.volume24hGlobal, e.floorGlobal])).toEqual([
      [EDGE, 500, '800', '7'],
      [V1, 360, '700', '900000000000000000'],
      [V3, 200, '600', '3000000000000000000'],
      [V2, 100, '600', '2'],
      [V4, 50, '400', M.toString()],
    ]);
    const rest = await app.rest('/api/v1/collections/listing-rewards');
    expect(rest.body.data.map((e: any) => [e.collection.address, e.points, e.volume24hGlobal, e.floorGlobal])).toEqual(
      list.map((e) => [e.collection.address, e.points, e.volume24hGlobal, e.floorGlobal]),
    );
  });

  it('takes points and the freshness limit from configuration', async () => {
    const deps = app.services.deps;
    const withConfig = (listingRewards: typeof deps.config.listingRewards) =>
      createListingRewardsService({ ...deps, config: { ...deps.config, listingRewards } }).topListingRewards();
    const custom = await withConfig({ enabled: true, points: [9, 8, 7, 6, 5], maxAgeSeconds: 86_400 });
    expect(custom!.map((e) => e.points)).toEqual([9, 8, 7, 6, 5]);
    // 1 day + 1 second: the stale entry (1 day + 1 ms old) counts and ranks above EDGE
    const longer = await withConfig({ enabled: true, points: [500, 360, 200, 100, 50], maxAgeSeconds: 86_401 });
    expect(longer!.map((e) => e.collectionAddress)).toEqual([STALE, EDGE, V1, V3, V2]);
    // everything was observed at least a day ago except the defaults (observed now)
    const shorter = await withConfig({ enabled: true, points: [500, 360, 200, 100, 50], maxAgeSeconds: 60 });
    expect(shorter!.map((e) => e.collectionAddress)).toEqual([V1, V3, V2, V4, V5]);
    app.clock.now = new Date(NOW.getTime() + 2 * DAY_MS);
    try {
      expect(await app.services.listingRewards.topListingRewards()).toEqual([]); // on, but nothing fresh
    } finally {
      app.clock.now = NOW;
    }
    expect(await withConfig({ enabled: false, points: [500, 360, 200, 100, 50], maxAgeSeconds: 86_400 })).toBeNull();
  });

  it('answers null when the program is off, on GraphQL and REST', async () => {
    const gql = await disabled.gql(TOP);
    expect(gql.errors).toBeUndefined();
    expect((gql.data as any).listingRewards).toBeNull();
    expect((await disabled.rest('/api/v1/collections/listing-rewards')).body).toEqual({ success: true, message: null, data: null });
  });
});

describe(`upsertMarketData (${backendName})`, () => {
  it('is guarded like upsertCollection: 403 ADMIN_DISABLED, 401 without the key, 403 with a wrong one', async () => {
    const input = [{ collection: V6, volume24hGlobal: '999999', floorGlobal: '1' }];
    const off = await disabled.gql(UPSERT, { input }, { 'x-api-key': KEY });
    expect([off.status, off.errors?.[0]?.extensions?.code]).toEqual([403, 'ADMIN_DISABLED']);
    const none = await app.gql(UPSERT, { input });
    expect([none.status, none.errors?.[0]?.extensions?.code]).toEqual([401, 'UNAUTHENTICATED']);
    const wrong = await app.gql(UPSERT, { input }, { 'x-api-key': `${KEY}x` });
    expect([wrong.status, wrong.errors?.[0]?.extensions?.code]).toEqual([403, 'FORBIDDEN']);
    expect((await app.db.prisma.globalMarketData.findUniqueOrThrow({ where: { collectionAddress: V6 } })).volume24hGlobal.toFixed()).toBe('200');
  });

  it('stores observations with the key and they rank at once; an older observation is ignored', async () => {
    const ok = await app.gql(UPSERT, { input: [{ collection: V6.toLowerCase(), volume24hGlobal: '1000', floorGlobal: '60', observedAt: '2026-06-01T14:32:00+02:00' }] }, { 'x-api-key': KEY });
    expect(ok.errors).toBeUndefined();
    expect((ok.data as any).upsertMarketData).toEqual({ written: 1, ignoredOlder: 0 });
    const stored = await app.db.prisma.globalMarketData.findUniqueOrThrow({ where: { collectionAddress: V6 } });
    expect(stored.observedAt.toISOString()).toBe('2026-06-01T12:32:00.000Z'); // newer than the stored one (now)
    expect((await app.services.listingRewards.topListingRewards())![0]).toEqual({ collectionAddress: V6, volume24hGlobal: '1000', floorGlobal: '60', points: 500 });
    const older = await app.gql(UPSERT, { input: [{ collection: V6, volume24hGlobal: '1', floorGlobal: '1', observedAt: '2026-06-01T12:31:00Z' }] }, { 'x-api-key': KEY });
    expect((older.data as any).upsertMarketData).toEqual({ written: 0, ignoredOlder: 1 });
    expect((await app.db.prisma.globalMarketData.findUniqueOrThrow({ where: { collectionAddress: V6 } })).volume24hGlobal.toFixed()).toBe('1000');
    // back to where the other tests expect it
    await app.db.prisma.globalMarketData.update({ where: { collectionAddress: V6 }, data: { volume24hGlobal: '200', floorGlobal: '6', observedAt: NOW } });
  });

  it('lists every problem of a batch and writes nothing', async () => {
    const input = [
      { collection: V5, volume24hGlobal: '12345', floorGlobal: '1' }, // valid, but not written
      { collection: addr(12), volume24hGlobal: '1', floorGlobal: '1' }, // unknown collection
      { collection: V4, volume24hGlobal: '1', floorGlobal: '1', observedAt: 'yesterday' },
      { collection: V2, volume24hGlobal: '1', floorGlobal: '1', observedAt: iso(6 * 60_000) }, // in the future
      { collection: V5, volume24hGlobal: '1', floorGlobal: '1' }, // duplicate of [0]
    ];
    const r = await app.gql(UPSERT, { input }, { 'x-api-key': KEY });
    expect([r.status, r.errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_REQUEST']);
    const problems = r.errors?.[0]?.extensions?.problems as { field: string; code: string }[];
    expect(problems.map((p) => `${p.field} ${p.code}`)).toEqual(['[1].collection UNKNOWN_COLLECTION', '[2].observedAt INVALID_VALUE', '[3].observedAt IN_FUTURE', '[4].collection DUPLICATE']);
    expect((await app.db.prisma.globalMarketData.findUniqueOrThrow({ where: { collectionAddress: V5 } })).volume24hGlobal.toFixed()).toBe('300');
    // 5 minutes ahead is clock skew, not the future
    const skew = await app.services.listingRewards.upsertMarketData([{ collection: V5, volume24hGlobal: '300', floorGlobal: '5', observedAt: iso(5 * 60_000) }]);
    expect(skew).toEqual({ written: 1, ignoredOlder: 0 });
    await app.db.prisma.globalMarketData.update({ where: { collectionAddress: V5 }, data: { observedAt: NOW } });
  });

  it('refuses values that are not uint256 wei strings or addresses, in the service and at the GraphQL scalars', async () => {
    const bad = [
      { collection: 'nope', volume24hGlobal: '-1', floorGlobal: (M + 1n).toString(), extra: 1 },
      { collection: V1, volume24hGlobal: 1.5, floorGlobal: '1e18' },
      'not an object',
    ];
    const err = await app.services.listingRewards.upsertMarketData(bad).catch((e) => e);
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems.map((p: { field: string; code: string }) => `${p.field} ${p.code}`)).toEqual([
      '[0].collection INVALID_ADDRESS', '[0].volume24hGlobal INVALID_VALUE', '[0].floorGlobal INVALID_VALUE', '[0] UNKNOWN_FIELD',
      '[1].volume24hGlobal INVALID_VALUE', '[1].floorGlobal INVALID_VALUE', '[2] INVALID_TYPE',
    ]);
    await expect(app.services.listingRewards.upsertMarketData({ collection: V1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const scalar = await app.gql(UPSERT, { input: [{ collection: V1, volume24hGlobal: '-1', floorGlobal: '1' }] }, { 'x-api-key': KEY });
    expect(scalar.data ?? null).toBeNull();
    expect(scalar.errors?.[0]?.message).toMatch(/Uint256/);
    expect(await app.services.listingRewards.upsertMarketData([])).toEqual({ written: 0, ignoredOlder: 0 });
  });
});

describe('npm run market-data:import', () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(tmpdir(), 'mkt-market-data-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = async (script: string, entries: unknown) => {
    const file = path.join(dir, `f-${Math.random()}.json`);
    writeFileSync(file, JSON.stringify(entries));
    const env = { ...process.env, DATA_DIR: dir, SEED: '0', LOG_LEVEL: 'silent', DATABASE_URL: '' };
    return run(process.execPath, ['--import', 'tsx', script, file], { env }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );
  };

  it('imports a valid file through the same validation and refuses an invalid one without writing', async () => {
    const a = addr(31);
    const b = addr(32);
    const made = await cli('src/cli/import-collections.ts', [{ address: a, type: 'ERC721', isVerified: true }, { address: b, type: 'ERC721' }]);
    expect(made.code).toBe(0);
    const ok = await cli('src/cli/import-market-data.ts', [
      { collection: a, volume24hGlobal: '5000000000000000000000', floorGlobal: '1000', observedAt: '2026-01-01T00:00:00Z' },
      { collection: b, volume24hGlobal: '1', floorGlobal: '2' },
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('2 written, 0 ignored');
    const bad = await cli('src/cli/import-market-data.ts', [{ collection: a, volume24hGlobal: '7', floorGlobal: '7' }, { collection: addr(34), volume24hGlobal: 'x', floorGlobal: '1' }]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('[1].collection');
    expect(bad.stderr).toContain('[1].volume24hGlobal');
    const db = await openDatabase({ dataDir: dir });
    try {
      const rows = await db.prisma.globalMarketData.findMany({ orderBy: { collectionAddress: 'asc' } });
      expect(rows.map((r) => [r.collectionAddress, r.volume24hGlobal.toFixed(), r.floorGlobal.toFixed()])).toEqual([
        [a, '5000000000000000000000', '1000'],
        [b, '1', '2'],
      ]);
      expect(rows[0]!.observedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    } finally {
      await db.close();
    }
  });
});
