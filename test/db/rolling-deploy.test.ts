// A rolling deploy on one PostgreSQL database, with orders submitted all along: an instance of the
// previous release serves while the new release's migrations run (an expand step that adds a
// column, then an index built CONCURRENTLY), behind a report that reads the orders table for
// 4.5 s; an instance of the previous release restarted during the rollout starts at once; the
// new release's first instance waits for its migrations, then serves. Nothing submitted is
// refused, nothing accepted is lost, and no submission waits behind the migration.
//
// The previous release is this code on the schema before the migration: what a release that does
// not know the new column and index does with them is what this code does with them, nothing. So
// the test holds for any release whose migrations keep the rules of src/db/migration-lint.ts
// (checked here on the migrations it deploys).
import { Wallet } from 'ethers';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate, prismaChecksum, readMigrations, type MigrateResult, type Migration } from '../../src/db/migrate.js';
import { lintMigration } from '../../src/db/migration-lint.js';
import { createLogger } from '../../src/logger.js';
import { signWithEthers6, standardAsk } from '../helpers/maker-orders.js';
import { titled } from '../helpers/skip-reasons.js';
import { FIXED_NOW } from '../helpers/test-app.js';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../helpers/test-database.js';

const migration = (name: string, sql: string): Migration => ({ name, sql, checksum: prismaChecksum(sql) });

/** The new release's migrations. */
const EXPAND = migration(
  '29990101000000_rollout_probe_column',
  `-- expand: a column the previous release neither reads nor writes; nullable, so its inserts go on as before
ALTER TABLE "orders" ADD COLUMN "rollout_probe" TEXT;
`,
);
const INDEX = migration(
  '29990101000001_rollout_probe_index',
  `-- migrate: no-transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_rollout_probe_idx" ON "orders" ("signer", "nonce", "id");
`,
);

const REPORT_SECONDS = 4.5;
const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const ERC721 = '0x' + 'd7'.repeat(20);
const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', WEBHOOKS: 'false', METADATA: 'false' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Instance {
  name: string;
  running: Running;
  db: Database;
  /** what its own start's migration step returned (the new release's) */
  migrated?: MigrateResult;
  readyAt: number;
}

/** run after the test, last first: instances, connections, the database */
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** An instance as the server starts one: its migrations (the new release's, when given), then the app. */
async function startInstance(name: string, url: string, migrations?: Migration[]): Promise<Instance> {
  const db = await openDatabase({ databaseUrl: url, poolSize: 4 });
  const migrated = migrations ? await migrate(db.sql, migrations) : undefined;
  const running = await boot(config, createLogger('silent'), { db, indexer: false, now: () => FIXED_NOW });
  cleanups.push(async () => {
    await running.close();
    await db.close();
  });
  return { name, running, db, migrated, readyAt: performance.now() };
}

interface Submission {
  instance: string;
  status: number;
  body: string;
  hash?: string;
  startedAt: number;
  ms: number;
}

let nonce = 0;
/** Signs and posts orders to one instance, one after another, until told to stop. */
async function submitUntil(instance: Instance, stop: { now: boolean }, out: Submission[]) {
  const net = config.network;
  while (!stop.now) {
    nonce++;
    const order = standardAsk(net, { signer: wallet.address.toLowerCase(), collection: ERC721, nonce, now: NOW }, { tokenId: String(nonce) });
    const signed = await signWithEthers6(wallet, net.chainId, net.exchange, order);
    const startedAt = performance.now();
    const res = await instance.running.yoga.fetch('http://deploy/api/v1/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
    });
    const body = await res.text();
    const ms = performance.now() - startedAt;
    out.push({ instance: instance.name, status: res.status, body, hash: res.status === 201 ? JSON.parse(body).data.hash : undefined, startedAt, ms });
    await sleep(5);
  }
}

describe.runIf(TEST_DATABASE_URL)(titled('a rolling deploy with orders submitted all along (postgres)', 'postgres'), () => {
  it('refuses nothing, loses nothing and holds no submission while the new release migrates', async () => {
    for (const m of [EXPAND, INDEX]) expect(lintMigration(m), m.name).toEqual([]);
    const created = await createPostgresDatabase();
    cleanups.push(created.drop);
    const newRelease = [...readMigrations(), EXPAND, INDEX];

    // the previous release, serving
    const previous = await startInstance('previous', created.url);
    await previous.running.services.collections.upsertCollection({ address: ERC721, type: 'ERC721', name: 'Rollout' });
    const submissions: Submission[] = [];
    const stop = { now: false };
    const loops = [submitUntil(previous, stop, submissions), submitUntil(previous, stop, submissions)];
    await sleep(500);

    // a report reading the orders for a while: a plain ALTER TABLE would wait for it with every
    // submission queued behind the ALTER; the concurrent build waits for it too, without them
    const reader = new pg.Client({ connectionString: created.url });
    await reader.connect();
    cleanups.push(() => reader.end());
    const report = reader.query(`SELECT pg_sleep(${REPORT_SECONDS}), count(*) FROM orders`);
    await sleep(200);

    // the deploy: the new release's migrations (`npm run migrate` of the new build)
    const deployDb = await openDatabase({ databaseUrl: created.url, poolSize: 2 });
    cleanups.push(() => deployDb.close());
    const migrationStart = performance.now();
    let migrationEnd = Infinity;
    const deploying = migrate(deployDb.sql, newRelease).then((r) => ((migrationEnd = performance.now()), r));
    await sleep(300);

    // an instance of the previous release restarted during the rollout: it starts at once
    const restarted = await startInstance('previous, restarted', created.url);
    expect(restarted.readyAt, 'the restarted previous release started while the migration ran').toBeLessThan(migrationEnd);
    loops.push(submitUntil(restarted, stop, submissions));

    // the new release's first instance: its start waits for its migrations, then it serves
    const next = await startInstance('new', created.url, newRelease);
    expect(next.readyAt).toBeGreaterThan(migrationEnd);
    loops.push(submitUntil(next, stop, submissions), submitUntil(next, stop, submissions));
    const deployed = await deploying;
    await sleep(1000);
    stop.now = true;
    await Promise.all(loops);
    await report;

    // the migrations ran once, in the deploy, and had to wait for the report
    expect(deployed.applied).toEqual([EXPAND.name, INDEX.name]);
    expect(next.migrated).toMatchObject({ applied: [], alreadyApplied: expect.arrayContaining([EXPAND.name, INDEX.name]) });
    expect(migrationEnd - migrationStart).toBeGreaterThan((REPORT_SECONDS - 1) * 1000);

    // nothing refused
    const refused = submissions.filter((s) => s.status !== 201);
    expect(refused.map((s) => `${s.instance}: ${s.status} ${s.body}`)).toEqual([]);
    // nothing lost
    const hashes = submissions.map((s) => s.hash!);
    const [stored] = await deployDb.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE hash = ANY($1::char(66)[])', [hashes]);
    expect(stored!.n).toBe(hashes.length);

    // no submission held behind the migration (a writer queued behind the ALTER waits for the report: seconds)
    const ms = submissions.map((s) => s.ms).sort((a, b) => a - b);
    const p99 = ms[Math.floor(ms.length * 0.99)]!;
    expect(ms.at(-1), `${ms.length} submissions, p50 ${ms[ms.length >> 1]!.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`).toBeLessThan(2000);

    // each instance took orders, the previous release's two while the migration ran
    const during = (name: string) => submissions.filter((s) => s.instance === name && s.startedAt > migrationStart && s.startedAt + s.ms < migrationEnd).length;
    expect(during('previous')).toBeGreaterThan(10);
    expect(during('previous, restarted')).toBeGreaterThan(0);
    expect(submissions.filter((s) => s.instance === 'new').length).toBeGreaterThan(10);

    // the new schema is in place: the column, and a valid index
    const [index] = await deployDb.sql.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('orders_rollout_probe_idx')`);
    expect(index?.valid).toBe(true);
    expect(await deployDb.sql.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'rollout_probe'`)).toHaveLength(1);
  });
});
