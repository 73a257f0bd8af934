// The first start of the embedded database with demo data.
// Seeding from scratch costs a PostgreSQL initdb in WASM (~3 s) plus the seed itself (~5 s:
// 420 orders signed in pure JS, 3,000 sales). `npm run build` (postinstall) therefore prepares a
// template data directory once (src/cli/build-demo-template.ts) and the first start copies it.
// Either way the new directory is built under DATA_DIR/pglite.staging and renamed to
// DATA_DIR/pglite only when complete: a kill in the middle leaves no half demo, and the next
// start throws the staging folder away and begins again (all or nothing). The folder is marked
// as the demo on the way, which gives it the demo's API key on every start (./demo-api-key.ts).
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Signature, type Wallet } from 'ethers';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { createPglite, wrapPglite } from '../db/pglite-database.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { embeddedDatabaseDir } from '../db/embedded-dir.js';
import { migrate } from '../db/migrate.js';
import { computeOrderHash, exchangeDomain, MAKER_ORDER_TYPES, type MakerOrder } from '../domain/maker-order.js';
import { createEventBus } from '../events/event-bus.js';
import { createServices, type Services } from '../services/index.js';
import { inlineSignatureVerifier } from '../services/signature-pool.js';
import { markDemoDatabaseDir } from './demo-api-key.js';
import { DEMO_WALLETS, seedDemo, type SeedSummary } from './seed-demo.js';

/**
 * A template older than this is moved to the present (timestamps shifted, orders re-signed);
 * a younger one is used as is, exactly as if the server had seeded it then and restarted now.
 */
export const TEMPLATE_MAX_AGE_MS = 15 * 60_000;

export interface TemplateMeta {
  seededAt: string;
  /** the network the orders were signed for; another network makes the template unusable */
  network: Config['network'];
  summary: SeedSummary;
}

export type DemoSource = 'present' | 'template' | 'template-rebased' | 'seeded';

export interface EnsureDemoResult {
  source: DemoSource;
  summary?: SeedSummary;
  ms: number;
}

const templateMetaFile = (templateDir: string) => path.join(templateDir, 'meta.json');

export function readTemplateMeta(templateDir: string | undefined): TemplateMeta | null {
  if (!templateDir || !existsSync(path.join(templateDir, 'pglite'))) return null;
  try {
    return JSON.parse(readFileSync(templateMetaFile(templateDir), 'utf8')) as TemplateMeta;
  } catch {
    return null;
  }
}

/** Services over a database that nothing else serves yet (no chain, events stay in-process). */
function seedingServices(db: Database, config: Config, now: () => Date): { services: Services; close: () => Promise<void> } {
  const events = createEventBus({});
  const services = createServices({ db, config, network: config.network, chain: null, now, events, signatures: inlineSignatureVerifier });
  return { services, close: () => events.close() };
}

async function openDir(dir: string): Promise<Database> {
  mkdirSync(dir, { recursive: true });
  const pglite = createPglite(dir);
  await pglite.waitReady;
  return wrapPglite(pglite, `embedded PGlite ${dir}`);
}

/**
 * Makes DATA_DIR/pglite exist with the demo data in it, unless it already exists. Holds the
 * data-directory lock throughout, so two starts at once cannot both build it.
 */
export async function ensureEmbeddedDemo(opts: {
  dataDir: string;
  config: Config;
  now: () => Date;
  templateDir?: string;
  /** for tests: a smaller demo when there is no template */
  seedOptions?: Parameters<typeof seedDemo>[1];
}): Promise<EnsureDemoResult> {
  const t0 = performance.now();
  const target = embeddedDatabaseDir(opts.dataDir);
  if (existsSync(target)) return { source: 'present', ms: 0 };
  const unlock = lockDataDir(opts.dataDir);
  try {
    if (existsSync(target)) return { source: 'present', ms: 0 };
    const staging = `${target}.staging`;
    rmSync(staging, { recursive: true, force: true });
    const meta = readTemplateMeta(opts.templateDir);
    const usable = meta && JSON.stringify(meta.network) === JSON.stringify(opts.config.network);
    let source: DemoSource;
    let summary: SeedSummary;
    if (usable) {
      cpSync(path.join(opts.templateDir!, 'pglite'), staging, { recursive: true });
      const age = opts.now().getTime() - Date.parse(meta.seededAt);
      summary = meta.summary;
      source = 'template';
      if (age > TEMPLATE_MAX_AGE_MS) {
        const db = await openDir(staging);
        try {
          await migrate(db.sql);
          const { services, close } = seedingServices(db, opts.config, opts.now);
          await rebaseDemo(services, Math.floor(age / 1000));
          await close();
        } finally {
          await db.close();
        }
        source = 'template-rebased';
      }
    } else {
      const db = await openDir(staging);
      try {
        await migrate(db.sql);
        const { services, close } = seedingServices(db, opts.config, opts.now);
        summary = await seedDemo(services, opts.seedOptions);
        await close();
      } finally {
        await db.close();
      }
      source = 'seeded';
    }
    markDemoDatabaseDir(staging);
    renameSync(staging, target);
    return { source, summary, ms: Math.round(performance.now() - t0) };
  } finally {
    unlock();
  }
}

/** Builds a template directory (meta.json + pglite/) for ensureEmbeddedDemo, also atomically. */
export async function buildDemoTemplate(
  templateDir: string,
  config: Config,
  now: () => Date,
  seedOptions: Parameters<typeof seedDemo>[1] = {},
): Promise<TemplateMeta> {
  const dir = path.resolve(templateDir);
  const staging = `${dir}.staging`;
  rmSync(staging, { recursive: true, force: true });
  const db = await openDir(path.join(staging, 'pglite'));
  let summary: SeedSummary;
  const seededAt = now();
  try {
    await migrate(db.sql);
    const { services, close } = seedingServices(db, config, () => seededAt);
    summary = await seedDemo(services, seedOptions);
    await close();
  } finally {
    await db.close();
  }
  const meta: TemplateMeta = { seededAt: seededAt.toISOString(), network: config.network, summary };
  writeFileSync(templateMetaFile(staging), JSON.stringify(meta, null, 2) + '\n');
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return meta;
}

/**
 * Moves the demo `seconds` later: every timestamp column (except the migration bookkeeping)
 * shifts, the sale buckets are recomputed on the new hour/day boundaries, the kept window volumes'
 * anchor stays (the sales' trigger moves each shifted sale in or out of the windows that end there), and the orders, whose
 * start and end times are signed, are re-signed by their demo wallets with fresh hashes.
 */
export async function rebaseDemo(services: Services, seconds: number): Promise<void> {
  const { db, network } = services.deps;
  const columns = await db.sql.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND data_type LIKE 'timestamp%'
        AND table_name NOT IN ('_prisma_migrations', 'sale_buckets', 'sale_day_buckets', 'volume_mark_anchor')`,
  );
  const byTable = new Map<string, string[]>();
  for (const c of columns) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  const shifts = [...byTable].map(
    ([table, cols]) => `UPDATE "${table}" SET ${cols.map((c) => `"${c}" = "${c}" + make_interval(secs => ${seconds})`).join(', ')};`,
  );
  await db.sql.exec(`BEGIN;\n${shifts.join('\n')}\nCOMMIT;`);
  await services.sales.rebuildSaleBuckets();

  const wallets = new Map<string, Wallet>(DEMO_WALLETS.map((w) => [w.address, w]));
  const domain = exchangeDomain(network.chainId, network.exchange!);
  const rows = await db.prisma.order.findMany({ orderBy: { id: 'asc' } });
  const updates: unknown[][] = [];
  for (const row of rows) {
    const wallet = wallets.get(row.signer);
    if (!wallet) throw new Error(`order ${row.hash} is not signed by a demo wallet; not a demo database`);
    const order: MakerOrder = {
      isOrderAsk: row.isOrderAsk,
      signer: row.signer,
      collection: row.collectionAddress,
      price: BigInt(row.price.toFixed()),
      tokenId: row.tokenId === null ? 0n : BigInt(row.tokenId.toFixed()),
      amount: BigInt(row.amount.toFixed()),
      strategy: row.strategy,
      currency: row.currencyAddress,
      nonce: BigInt(row.nonce.toFixed()),
      startTime: row.startTime + BigInt(seconds),
      endTime: row.endTime + BigInt(seconds),
      minPercentageToAsk: BigInt(row.minPercentageToAsk),
      params: row.params || '0x',
    };
    const signature = await wallet.signTypedData(domain, MAKER_ORDER_TYPES, order);
    const sig = Signature.from(signature);
    updates.push([row.id.toString(), computeOrderHash(order), order.startTime.toString(), order.endTime.toString(), signature, sig.v, sig.r, sig.s]);
  }
  if (!updates.length) return;
  const values = updates.map((_, i) => `($${i * 8 + 1}::bigint, $${i * 8 + 2}, $${i * 8 + 3}::bigint, $${i * 8 + 4}::bigint, $${i * 8 + 5}, $${i * 8 + 6}::int, $${i * 8 + 7}, $${i * 8 + 8})`);
  // the event log names orders by hash: its demo events follow the re-signed orders
  await db.sql.query(
    `UPDATE market_events e SET order_hash = u.hash FROM (VALUES ${values.join(', ')}) AS u(id, hash, start_time, end_time, signature, v, r, s)
       JOIN orders o ON o.id = u.id WHERE e.order_hash = o.hash`,
    updates.flat(),
  );
  await db.sql.query(
    `UPDATE orders o SET hash = u.hash, start_time = u.start_time, end_time = u.end_time, signature = u.signature, v = u.v, r = u.r, s = u.s
       FROM (VALUES ${values.join(', ')}) AS u(id, hash, start_time, end_time, signature, v, r, s) WHERE o.id = u.id`,
    updates.flat(),
  );
}
