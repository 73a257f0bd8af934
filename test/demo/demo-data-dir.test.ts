// The first embedded start's demo data (src/demo/demo-data-dir.ts): copied from a template built at
// install time, moved to the present when the template is old (orders re-signed, so every
// signature still verifies), marked as the demo (its API key), and all or nothing: a seed killed
// with -9 leaves no half demo and the next start builds it again.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { isDemoDatabaseDir } from '../../src/demo/demo-api-key.js';
import { buildDemoTemplate, ensureEmbeddedDemo, type TemplateMeta } from '../../src/demo/demo-data-dir.js';
import { embeddedDatabaseDir } from '../../src/db/embedded-dir.js';
import { computeOrderHash, exchangeDomain, type MakerOrder } from '../../src/domain/maker-order.js';
import { checkSignature } from '../../src/domain/order-signature.js';

const root = mkdtempSync(path.join(tmpdir(), 'mkt-demo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const config = loadConfig({});
const T0 = new Date('2026-06-01T12:00:00.000Z');
const templateDir = path.join(root, 'template');
let meta: TemplateMeta;

beforeAll(async () => {
  meta = await buildDemoTemplate(templateDir, config, () => T0, { orderCount: 40, saleCount: 200 });
});

async function withDb<T>(dataDir: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ dataDir });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const snapshot = (db: Database) =>
  Promise.all([
    db.prisma.order.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.sale.findMany({ orderBy: { id: 'asc' }, select: { timestamp: true } }),
    db.prisma.saleBucket.count(),
  ]);

function makerOrderOf(row: Awaited<ReturnType<typeof snapshot>>[0][number]): MakerOrder {
  return {
    isOrderAsk: row.isOrderAsk,
    signer: row.signer,
    collection: row.collectionAddress,
    price: BigInt(row.price.toFixed()),
    tokenId: row.tokenId === null ? 0n : BigInt(row.tokenId.toFixed()),
    amount: BigInt(row.amount.toFixed()),
    strategy: row.strategy,
    currency: row.currencyAddress,
    nonce: BigInt(row.nonce.toFixed()),
    startTime: row.startTime,
    endTime: row.endTime,
    minPercentageToAsk: BigInt(row.minPercentageToAsk),
    params: row.params || '0x',
  };
}

describe('embedded demo data on the first start', () => {
  it('copies a young template as it is, once', async () => {
    const dataDir = path.join(root, 'young');
    const first = await ensureEmbeddedDemo({ dataDir, config, now: () => new Date(T0.getTime() + 60_000), templateDir });
    expect(first.source).toBe('template');
    expect(existsSync(path.join(dataDir, 'pglite.staging'))).toBe(false);
    const copy = await withDb(dataDir, snapshot);
    expect(copy[0]).toHaveLength(meta.summary.orders);
    expect(copy[1]).toHaveLength(meta.summary.sales);
    expect(isDemoDatabaseDir(embeddedDatabaseDir(dataDir))).toBe(true);
    expect(isDemoDatabaseDir(path.join(templateDir, 'pglite'))).toBe(false);
    expect((await ensureEmbeddedDemo({ dataDir, config, now: () => new Date(), templateDir })).source).toBe('present');
  });

  it('moves an old template to the present: times shifted, orders re-signed and re-hashed', async () => {
    const young = await withDb(path.join(root, 'young'), snapshot);
    const dataDir = path.join(root, 'old');
    const days = 3;
    const later = new Date(T0.getTime() + days * 86_400_000 + 1234);
    const r = await ensureEmbeddedDemo({ dataDir, config, now: () => later, templateDir });
    expect(r.source).toBe('template-rebased');
    const [orders, sales, buckets] = await withDb(dataDir, snapshot);
    const shift = BigInt(days * 86_400 + 1);
    const domain = exchangeDomain(config.network.chainId, config.network.exchange);
    expect(orders).toHaveLength(young[0].length);
    for (const [i, row] of orders.entries()) {
      const before = young[0][i]!;
      expect(row.id).toBe(before.id);
      expect(row.startTime - before.startTime).toBe(shift);
      expect(row.endTime - before.endTime).toBe(shift);
      expect(row.createdAt.getTime() - before.createdAt.getTime()).toBe(Number(shift) * 1000);
      expect(row.status).toBe(before.status);
      const order = makerOrderOf(row);
      expect(row.hash).toBe(computeOrderHash(order));
      expect(row.hash).not.toBe(before.hash);
      const check = checkSignature(order, row.signature, domain);
      expect(check.problems).toEqual([]);
      expect(check.recovered).toBe(row.signer);
    }
    for (const [i, s] of sales.entries()) expect(s.timestamp.getTime() - young[1][i]!.timestamp.getTime()).toBe(Number(shift) * 1000);
    expect(buckets).toBeGreaterThan(0);
  });

  it('seeds itself when there is no template, or it was signed for another network', async () => {
    const other = loadConfig({ CHAIN_ID: '5' });
    const dataDir = path.join(root, 'other-network');
    const r = await ensureEmbeddedDemo({ dataDir, config: other, now: () => T0, templateDir, seedOptions: { orderCount: 20, saleCount: 50 } });
    expect(r.source).toBe('seeded');
    expect(isDemoDatabaseDir(embeddedDatabaseDir(dataDir))).toBe(true);
    const [orders] = await withDb(dataDir, snapshot);
    expect(orders).toHaveLength(20);
    expect(new Set(orders.map((o) => o.currencyAddress))).toEqual(new Set([other.network.weth]));
  });

  it('throws away a staging folder left by an interrupted start', async () => {
    const dataDir = path.join(root, 'leftover');
    mkdirSync(path.join(dataDir, 'pglite.staging'), { recursive: true });
    writeFileSync(path.join(dataDir, 'pglite.staging', 'PG_VERSION'), 'garbage');
    const r = await ensureEmbeddedDemo({ dataDir, config, now: () => T0, templateDir });
    expect(r.source).toBe('template');
    expect((await withDb(dataDir, snapshot))[0]).toHaveLength(meta.summary.orders);
  });

  it('is all or nothing: a seed killed with -9 leaves no database, and the next start seeds it whole', async () => {
    const dataDir = path.join(root, 'killed');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/seed-child.ts', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('seeding')) resolve();
        if (d.toString().includes('done')) reject(new Error('the seed finished before it could be killed'));
      });
      child.on('exit', () => reject(new Error('the child exited early')));
    });
    // Let it write part of the demo, then kill it without warning.
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'pglite.staging'))).toBe(true);
    // The lock of the dead child is stale and does not block the next start.
    const r = await ensureEmbeddedDemo({ dataDir, config, now: () => T0, templateDir: undefined, seedOptions: { orderCount: 30, saleCount: 60 } });
    expect(r.source).toBe('seeded');
    const [orders, sales] = await withDb(dataDir, snapshot);
    expect(orders).toHaveLength(30);
    expect(sales).toHaveLength(60);
    expect(existsSync(path.join(dataDir, 'pglite.staging'))).toBe(false);
  });
});
