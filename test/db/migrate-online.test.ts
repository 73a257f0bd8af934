// Migrations that run while the book is open: index builds CONCURRENTLY outside a transaction and
// their recovery from a build that failed halfway (an INVALID index), runs that died halfway,
// an older instance starting against a newer database, and (PostgreSQL) DDL that waits for its
// locks in short tries, an instance starting during a build, no statement bound on migrations.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate, prismaChecksum, readMigrations, readRepeatables, type Migration } from '../../src/db/migrate.js';
import type { SqlRunner } from '../../src/db/sql-runner.js';
import { titled } from '../helpers/skip-reasons.js';
import { backendName, createPostgresDatabase, openTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-database.js';

const migration = (name: string, sql: string): Migration => ({ name, sql, checksum: prismaChecksum(sql) });
const all = () => readMigrations();

let open: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(open.map((t) => t.close()));
  open = [];
});
/** a fresh copy of the migrated database per test: these tests write the bookkeeping */
async function fresh(): Promise<SqlRunner> {
  const t = await openTestDatabase();
  open.push(t);
  return t.db.sql;
}

const indexValid = async (sql: SqlRunner, name: string) =>
  (await sql.query<{ valid: boolean }>('SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)', [name]))[0]?.valid;

const bookkeeping = (sql: SqlRunner, name: string) =>
  sql.query<{ checksum: string; finished_at: Date | null; rolled_back_at: Date | null; logs: string | null; applied_steps_count: number }>(
    'SELECT checksum, finished_at, rolled_back_at, logs, applied_steps_count FROM _prisma_migrations WHERE migration_name = $1 ORDER BY started_at, finished_at NULLS FIRST',
    [name],
  );

describe(`migrations that run while the book is open (${backendName})`, () => {
  it('builds indexes CONCURRENTLY outside a transaction, recorded as Prisma records a finished migration', async () => {
    const sql = await fresh();
    const m = migration(
      '29990101000000_probe_indexes',
      `-- migrate: no-transaction
-- two builds; this comment's semicolon; and 'quotes' do not split anything
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_probe_signer_idx" ON "orders" ("signer", "id");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_probe_nonce_idx" ON "orders" ("nonce") WHERE "signer" <> ';';
`,
    );
    // PostgreSQL refuses CONCURRENTLY in a transaction, so success says each statement ran alone
    expect(await migrate(sql, [...all(), m])).toMatchObject({ applied: [m.name], newer: [] });
    expect(await indexValid(sql, 'orders_probe_signer_idx')).toBe(true);
    expect(await indexValid(sql, 'orders_probe_nonce_idx')).toBe(true);
    expect(await bookkeeping(sql, m.name)).toEqual([
      { checksum: createHash('sha256').update(m.sql).digest('hex'), finished_at: expect.any(Date), rolled_back_at: null, logs: null, applied_steps_count: 1 },
    ]);
    expect(await migrate(sql, [...all(), m])).toMatchObject({ applied: [], repeated: [] });
  });

  it('drops an INVALID index a failed build left and builds it again; a failed or interrupted run is run again at the next start', async () => {
    const sql = await fresh();
    await sql.exec('CREATE TABLE probe_items (a int); INSERT INTO probe_items VALUES (1), (1), (2)');
    const m = migration('29990101000100_probe_unique', `-- migrate: no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "probe_items_a_key" ON "probe_items" ("a");\n`);
    const failedBuild = () => expect(sql.exec('CREATE UNIQUE INDEX CONCURRENTLY "probe_items_a_key" ON "probe_items" ("a")')).rejects.toThrow(/could not create unique index/);

    // a build that failed halfway (here: a duplicate) leaves its index INVALID; IF NOT EXISTS alone would keep it
    await failedBuild();
    expect(await indexValid(sql, 'probe_items_a_key')).toBe(false);
    // the runner drops it and builds again, which fails the same way: recorded rolled back with the
    // error, as `prisma migrate resolve --rolled-back` would, and no INVALID index left behind
    await expect(migrate(sql, [...all(), m])).rejects.toThrow(/failed at statement 1 of 1 and is run again at the next start.*could not create unique index/s);
    expect(await indexValid(sql, 'probe_items_a_key')).toBeUndefined();
    expect(await bookkeeping(sql, m.name)).toEqual([
      expect.objectContaining({ finished_at: null, rolled_back_at: expect.any(Date), logs: expect.stringMatching(/^statement 1 of 1: could not create unique index/), applied_steps_count: 0 }),
    ]);
    // a run that died halfway (kill -9 during the build): its INVALID index and its unfinished row
    await failedBuild();
    await sql.exec(`INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ('00000000-0000-4000-8000-000000000001', '${m.checksum}', '${m.name}', now(), 0)`);
    // the data fixed, the next start runs it again and finishes it
    await sql.exec(`DELETE FROM probe_items; INSERT INTO probe_items VALUES (1), (2)`);
    expect(await migrate(sql, [...all(), m])).toMatchObject({ applied: [m.name] });
    expect(await indexValid(sql, 'probe_items_a_key')).toBe(true);
    const rows = await bookkeeping(sql, m.name);
    expect(rows.map((r) => [Boolean(r.finished_at), Boolean(r.rolled_back_at)])).toEqual([
      [false, true],
      [false, true],
      [true, false],
    ]);
    expect(rows[1]!.logs).toBe('interrupted: run again');
    expect(await migrate(sql, [...all(), m])).toMatchObject({ applied: [], alreadyApplied: expect.arrayContaining([m.name]) });
  });

  it('refuses to start over a transactional migration left unfinished, unless it is a newer release’s', async () => {
    const sql = await fresh();
    const m = migration('29990101000200_probe_column', 'ALTER TABLE "orders" ADD COLUMN "probe" TEXT;');
    await sql.exec(`INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ('00000000-0000-4000-8000-000000000002', '${m.checksum}', '${m.name}', now(), 0)`);
    await expect(migrate(sql, [...all(), m])).rejects.toThrow(/29990101000200_probe_column started but never finished/);
    // the release before it knows nothing of it: it starts, and says the database is ahead of it
    expect(await migrate(sql)).toMatchObject({ applied: [], newer: [m.name] });
  });

  it('an instance older than the database starts without its migrations and leaves the database functions to the newer release', async () => {
    const sql = await fresh();
    const comment = async () =>
      (await sql.query<{ c: string | null }>(`SELECT obj_description('submit_orders(jsonb)'::regprocedure, 'pg_proc') AS c`))[0]!.c;
    const newer = migration('29990101000300_newer_release', `COMMENT ON FUNCTION submit_orders(JSONB) IS 'newer';`);
    expect((await migrate(sql, [...all(), newer])).applied).toEqual([newer.name]);
    // the previous release restarted during the rollout, with its own text of a repeatable step
    const original = readRepeatables().find((r) => r.name === 'submit_orders.sql')!.sql;
    const older = readRepeatables().map((r) => (r.name === 'submit_orders.sql' ? migration(r.name, `${original}\nCOMMENT ON FUNCTION submit_orders(JSONB) IS 'older';`) : r));
    expect(await migrate(sql, all(), older)).toEqual({ applied: [], alreadyApplied: all().map((m) => m.name), repeated: [], newer: [newer.name] });
    expect(await comment()).toBe('newer');
    // the newer release itself still runs a step whose text changed
    expect((await migrate(sql, [...all(), newer], older)).repeated).toEqual(['submit_orders.sql']);
    expect(await comment()).toBe('older');
  });
});

describe.runIf(TEST_DATABASE_URL)(titled('migrations next to live traffic (postgres)', 'postgres'), () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A new database with a table of `rows` rows, its URL, and a function that drops it. */
  async function probeDatabase(rows: number) {
    const created = await createPostgresDatabase();
    const client = new pg.Client({ connectionString: created.url });
    await client.connect();
    await client.query(`CREATE TABLE probe (id serial PRIMARY KEY, v int); INSERT INTO probe (v) SELECT g FROM generate_series(1, ${rows}) g`);
    await client.end();
    return created;
  }
  /** A statement on a connection of its own (a report, a writer). */
  async function onOwnConnection<T>(url: string, text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  }
  /** The longest an INSERT waited, sending one every 100 ms for `forMs`. */
  async function longestInsert(url: string, forMs: number): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let longest = 0;
    try {
      for (const end = Date.now() + forMs; Date.now() < end; ) {
        const t0 = performance.now();
        await client.query('INSERT INTO probe (v) VALUES (0)');
        longest = Math.max(longest, performance.now() - t0);
        await sleep(100);
      }
    } finally {
      await client.end();
    }
    return longest;
  }

  async function alterBehindLongRead(lockTimeoutMs: number) {
    const created = await probeDatabase(10);
    const db = await openDatabase({ databaseUrl: created.url, poolSize: 2 });
    try {
      const m = migration('29990101000400_probe_column', 'ALTER TABLE probe ADD COLUMN note TEXT;');
      // a report reading the table for 2.5 s: the ALTER's ACCESS EXCLUSIVE has to wait for it
      const report = onOwnConnection(created.url, 'SELECT pg_sleep(2.5), count(*) FROM probe');
      await sleep(200);
      const migrating = migrate(db.sql, [m], [], { lockTimeoutMs });
      await sleep(300);
      const longest = await longestInsert(created.url, 1200);
      await report;
      expect(await migrating).toMatchObject({ applied: [m.name] });
      return longest;
    } finally {
      await db.close();
      await created.drop();
    }
  }

  it('DDL waits for its locks in short tries: writers pass a long read instead of queueing behind the ALTER', async () => {
    // with the bound, a writer waits at most one lock_timeout (100 ms) per try of the ALTER
    expect(await alterBehindLongRead(100)).toBeLessThan(1000);
    // without it (what the runner did before), every writer queues behind the waiting ALTER until the read ends
    expect(await alterBehindLongRead(0)).toBeGreaterThan(1000);
  });

  it('an instance starting during a concurrent build waits for it without deadlocking it; an older one does not wait', async () => {
    const created = await probeDatabase(50_000);
    const dbs = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: created.url, poolSize: 2 })));
    try {
      const m = migration('29990101000500_probe_index', '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS probe_v_idx ON probe (v);');
      await migrate(dbs[0]!.sql, [], []); // the bookkeeping table
      // a report whose snapshot the build waits for before it is done (about 2 s)
      const report = onOwnConnection(created.url, 'SELECT pg_sleep(2), count(*) FROM probe');
      await sleep(100);
      // Two instances of the new release start at once: one builds, the other waits for the
      // migration lock. Had it waited inside a statement, its snapshot would be one the build
      // waits for while it waits for the build's lock: PostgreSQL ends one of them (deadlock).
      const newRelease = Promise.all([migrate(dbs[0]!.sql, [m], []), migrate(dbs[1]!.sql, [m], [])]);
      let building = false;
      for (let i = 0; i < 100 && !building; i++, await sleep(20)) {
        building = (await dbs[2]!.sql.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE '%CREATE INDEX CONCURRENTLY%' AND state = 'active' AND pid <> pg_backend_pid()`)).length > 0;
      }
      expect(building).toBe(true);
      // an instance of the previous release, starting meanwhile, is not held up by the build
      const t0 = performance.now();
      expect(await migrate(dbs[2]!.sql, [], [])).toMatchObject({ applied: [], newer: [m.name] });
      expect(performance.now() - t0).toBeLessThan(500);
      const results = await newRelease;
      expect(results.flatMap((r) => r.applied)).toEqual([m.name]);
      expect(results.flatMap((r) => r.alreadyApplied)).toEqual([m.name]);
      expect(await indexValid(dbs[0]!.sql, 'probe_v_idx')).toBe(true);
      await report;
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
      await created.drop();
    }
  });

  it('a migration runs as long as it needs: the session statement bound does not apply to it', async () => {
    const created = await probeDatabase(10);
    const db = await openDatabase({ databaseUrl: created.url, poolSize: 2, timeouts: { sessionMs: 300 } });
    try {
      const m = migration('29990101000600_slow', 'SELECT pg_sleep(0.6);\nALTER TABLE probe ADD COLUMN slow TEXT;');
      expect(await migrate(db.sql, [m], [])).toMatchObject({ applied: [m.name] });
      // and the bound is back on the session's connection for whoever uses it next
      await expect(db.sql.withSession((s) => s.exec('SELECT pg_sleep(0.6)'))).rejects.toThrow(/statement timeout/);
    } finally {
      await db.close();
      await created.drop();
    }
  });
});
