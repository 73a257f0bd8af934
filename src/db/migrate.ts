// Applies the SQL migrations under prisma/migrations at boot, because Prisma's migrate CLI needs a
// native engine that cannot be downloaded everywhere. Each migration and its bookkeeping row in
// Prisma's own `_prisma_migrations` table (same sha256 checksum Prisma computes) commit together,
// so `prisma migrate status/deploy` agree with what ran here. A PostgreSQL advisory lock keeps
// several instances starting at once from applying the same migration twice.
//
// Migrations run while the previous release still serves (docs/operations.md#deploying-a-new-version),
// so none may stop the book:
//   * DDL runs under a short lock_timeout and is retried when its locks are busy (lock-retry.ts):
//     an ALTER TABLE never queues behind a long read with every writer queued behind it;
//   * a migration whose first lines say `-- migrate: no-transaction` runs statement by statement
//     outside a transaction, for CREATE INDEX CONCURRENTLY, which cannot run inside one; before
//     each concurrent build an INVALID index of that name, left by a build that failed, is dropped
//     (concurrent-index.ts). Its bookkeeping row is written first and finished last, as Prisma's
//     CLI does; a run that failed is recorded as rolled back (what `prisma migrate resolve
//     --rolled-back` records) and one that died halfway is found unfinished under the lock: both
//     run again at the next start, so such a migration is written to be run again (IF NOT EXISTS);
//   * the lock is waited for by polling, never inside a statement: a statement waiting for the
//     lock holds a snapshot, a concurrent build waits for every older snapshot, and the two would
//     deadlock (an instance starting during a build would fail, or the build would);
//   * an instance older than the database (it finds migrations it does not know, finished or in
//     progress) starts without waiting for them and leaves the repeatable steps alone, so an old
//     instance restarted during a rollout neither waits for the new release's index builds nor
//     puts its own version of the database functions back.
//
// Then the repeatable steps, as Flyway's repeatable migrations: each file of src/db/sql holds the
// whole current source of database code (CREATE OR REPLACE FUNCTION ...), kept in one readable
// file instead of a new dated copy per change. A step runs after the dated migrations whenever
// its checksum differs from the one recorded in `_repeatable_migrations` (Prisma knows nothing of
// that table), atomically with its new checksum.
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project-root.js';
import { concurrentIndexName, dropInvalidIndex } from './concurrent-index.js';
import { lockTimeoutSql, retryWhileLocksBusy, type LockRetryOptions } from './lock-retry.js';
import { splitSqlStatements } from './split-sql-statements.js';
import type { SqlRunner } from './sql-runner.js';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'prisma', 'migrations');
export const REPEATABLE_DIR = path.join(PROJECT_ROOT, 'src', 'db', 'sql');

/** An arbitrary constant: the advisory lock id all instances agree on for migrations. */
const MIGRATION_LOCK_ID = 72_707_369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {}

export interface MigrateOptions {
  /**
   * lock_timeout of the migrations' statements (ms; 0: wait as long as it takes). Each wait for a
   * lock holds every later writer of that table for as long, so it is short and retried.
   */
  lockTimeoutMs?: number;
  /** how long a migration whose locks stay busy is retried before the run fails (ms) */
  lockRetryForMs?: number;
  /** the pause between two tries of the migration lock while another instance migrates (ms) */
  lockPollMs?: number;
}

/** Writers wait at most this long per try (the submission goal: p99 under 100 ms while migrating). */
export const DEFAULT_LOCK_TIMEOUT_MS = 100;
const DEFAULTS: Required<MigrateOptions> = { lockTimeoutMs: DEFAULT_LOCK_TIMEOUT_MS, lockRetryForMs: 10 * 60_000, lockPollMs: 250 };

/** The `-- migrate: ...` lines a migration may declare (the lint refuses any other). */
export const MIGRATION_DIRECTIVES = ['no-transaction', 'contract'] as const;
export type MigrationDirective = (typeof MIGRATION_DIRECTIVES)[number];

/** The directives a migration's text declares, on lines of their own: `-- migrate: no-transaction`. */
export function migrationDirectives(sql: string): string[] {
  return [...sql.matchAll(/^--\s*migrate:\s*(\S+)\s*$/gm)].map((m) => m[1]!);
}

export const runsOutsideTransaction = (m: Pick<Migration, 'sql'>) => migrationDirectives(m.sql).includes('no-transaction');

export function prismaChecksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

function checksumMatches(sql: string, checksum: string): boolean {
  // Prisma accepts a script whose line endings were changed by git (checksum.rs).
  return [sql, sql.replaceAll('\r\n', '\n'), sql.replaceAll('\n', '\r\n')].some((s) => prismaChecksum(s) === checksum);
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: prismaChecksum(sql) };
    });
}

/** The repeatable steps: every .sql file of dir, by name; a step is named after its file. */
export function readRepeatables(dir = REPEATABLE_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(dir, file), 'utf8');
      return { name: file, sql, checksum: prismaChecksum(sql) };
    });
}

const CREATE_REPEATABLE_TABLE = `
CREATE TABLE IF NOT EXISTS "_repeatable_migrations" (
    "name"      VARCHAR(255) PRIMARY KEY NOT NULL,
    "checksum"  VARCHAR(64) NOT NULL
);`;

// Prisma's own definition of its bookkeeping table.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
);`;

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
  /** repeatable steps run this time: new, or changed since they last ran */
  repeated: string[];
  /**
   * migrations the database records (finished or in progress) that this code does not have: it is
   * an older release than the database, so its repeatable steps were left alone
   */
  newer: string[];
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

const APPLIED_SQL = 'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"';
const REPEATED_SQL = 'SELECT name, checksum FROM "_repeatable_migrations"';
/** Both bookkeeping tables in one read: the repeatable steps' rows have no finished_at. */
const STATE_SQL = `SELECT migration_name, checksum, finished_at, rolled_back_at, false AS repeatable FROM "_prisma_migrations"
  UNION ALL SELECT name, checksum, NULL, NULL, true FROM "_repeatable_migrations"`;

const unfinished = (r: AppliedRow) => !r.finished_at && !r.rolled_back_at;
const finished = (r: AppliedRow) => Boolean(r.finished_at) && !r.rolled_back_at;

/** The migrations the database has, finished or in progress, that `migrations` does not name. */
function newerThan(rows: AppliedRow[], migrations: Migration[]): string[] {
  const known = new Set(migrations.map((m) => m.name));
  return [...new Set(rows.filter((r) => (finished(r) || unfinished(r)) && !known.has(r.migration_name)).map((r) => r.migration_name))].sort();
}

/** Every migration applied and unedited, none of them started and left unfinished. */
function upToDate(rows: AppliedRow[], migrations: Migration[]): boolean {
  const known = new Set(migrations.map((m) => m.name));
  if (rows.some((r) => unfinished(r) && known.has(r.migration_name))) return false;
  const done = new Map(rows.filter(finished).map((r) => [r.migration_name, r]));
  return migrations.every((m) => {
    const row = done.get(m.name);
    return row !== undefined && checksumMatches(m.sql, row.checksum);
  });
}

/** The repeatable steps whose text differs from what last ran (or that never ran). */
function stale(repeated: Map<string, string>, repeatables: Migration[]): Migration[] {
  return repeatables.filter((r) => {
    const checksum = repeated.get(r.name);
    return checksum === undefined || !checksumMatches(r.sql, checksum);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function migrate(
  sql: SqlRunner,
  migrations: Migration[] = readMigrations(),
  repeatables: Migration[] = readRepeatables(),
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const opts = { ...DEFAULTS, ...options };
  // Every start but the first after an upgrade finds nothing to do: one read settles it, without
  // the lock, the session or any DDL (on PGlite the lock and the CREATE TABLE IF NOT EXISTS of a
  // restart alone took 100-300 ms). Anything else (no table yet, pending, edited or unfinished
  // migrations, a changed repeatable step) goes the locked way below, which applies or refuses.
  const rows = await sql.query<AppliedRow & { repeatable: boolean }>(STATE_SQL).catch((err: { code?: string }) => {
    if (err?.code === '42P01') return null; // undefined_table: a new database, or one from before the repeatable steps
    throw err;
  });
  if (rows) {
    const applied = rows.filter((r) => !r.repeatable);
    const newer = newerThan(applied, migrations);
    const repeated = new Map(rows.filter((r) => r.repeatable).map((r) => [r.migration_name, r.checksum]));
    if (upToDate(applied, migrations) && (newer.length > 0 || stale(repeated, repeatables).length === 0)) {
      return { applied: [], alreadyApplied: migrations.map((m) => m.name), repeated: [], newer };
    }
  }
  // No statement bound: an index build takes as long as its table needs, and one cancelled by a
  // timeout would only be built again at the next start. Lock waits have their own bound.
  return sql.withSession((session) => migrateLocked(session, migrations, repeatables, opts), { statementTimeoutMs: 0 });
}

async function takeMigrationLock(session: SqlRunner, pollMs: number) {
  // Keyed by database too: advisory locks are server-wide, and other databases need not wait.
  // Polled, not waited for in a statement: see the top of this file.
  for (;;) {
    const [row] = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::int, hashtext(current_database())) AS locked', [MIGRATION_LOCK_ID]);
    if (row?.locked) return;
    await sleep(pollMs);
  }
}

async function migrateLocked(session: SqlRunner, migrations: Migration[], repeatables: Migration[], opts: Required<MigrateOptions>): Promise<MigrateResult> {
  await takeMigrationLock(session, opts.lockPollMs);
  try {
    await session.exec(CREATE_MIGRATIONS_TABLE);
    const rows = await session.query<AppliedRow>(APPLIED_SQL);
    const done = new Map(rows.filter(finished).map((r) => [r.migration_name, r]));
    const byName = new Map(migrations.map((m) => [m.name, m]));
    // Unfinished under the lock means its run ended without finishing. One that ran outside a
    // transaction (ours, or Prisma's CLI) is run again; anything else is for a person to look at.
    // Those this code does not know are a newer release's: not ours to judge.
    const failed = rows.filter((r) => unfinished(r) && byName.has(r.migration_name) && !runsOutsideTransaction(byName.get(r.migration_name)!));
    if (failed.length) {
      throw new MigrationError(
        `migration(s) ${failed.map((r) => r.migration_name).join(', ')} started but never finished; resolve them (prisma migrate resolve) before starting`,
      );
    }
    const result: MigrateResult = { applied: [], alreadyApplied: [], repeated: [], newer: newerThan(rows, migrations) };
    const lockRetry: LockRetryOptions = { lockTimeoutMs: opts.lockTimeoutMs, retryForMs: opts.lockRetryForMs };
    for (const m of migrations) {
      const row = done.get(m.name);
      if (row) {
        if (!checksumMatches(m.sql, row.checksum)) {
          throw new MigrationError(`migration ${m.name} was modified after it was applied (checksum mismatch)`);
        }
        result.alreadyApplied.push(m.name);
        continue;
      }
      if (runsOutsideTransaction(m)) await applyOutsideTransaction(session, m, lockRetry);
      else await applyInTransaction(session, m, lockRetry);
      result.applied.push(m.name);
    }
    // An older release than the database leaves the database code to the newer one.
    if (result.newer.length) return result;
    await session.exec(CREATE_REPEATABLE_TABLE);
    const repeated = new Map((await session.query<{ name: string; checksum: string }>(REPEATED_SQL)).map((r) => [r.name, r.checksum]));
    for (const r of stale(repeated, repeatables)) {
      const bookkeeping = `INSERT INTO "_repeatable_migrations" (name, checksum) VALUES (${quote(r.name)}, ${quote(r.checksum)})
          ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum;`;
      await runTransaction(session, r.sql, bookkeeping, lockRetry).catch((err: Error) => {
        throw new MigrationError(`repeatable step ${r.name} failed and was rolled back: ${err.message}`);
      });
      result.repeated.push(r.name);
    }
    return result;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1::int, hashtext(current_database()))', [MIGRATION_LOCK_ID]).catch(() => {});
  }
}

/** The script and its bookkeeping in one transaction, under the lock bound, tried again while its locks are busy. */
async function runTransaction(session: SqlRunner, script: string, bookkeeping: string, lockRetry: LockRetryOptions) {
  await retryWhileLocksBusy(lockRetry, async () => {
    try {
      // the script may SET LOCAL lock_timeout itself: it comes after
      await session.exec(`BEGIN;\n${lockTimeoutSql(lockRetry.lockTimeoutMs, 'LOCAL')};\n${script}\n;\n${bookkeeping}\nCOMMIT;`);
    } catch (err) {
      await session.exec('ROLLBACK').catch(() => {});
      throw err;
    }
  });
}

async function applyInTransaction(session: SqlRunner, m: Migration, lockRetry: LockRetryOptions) {
  const bookkeeping = `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, started_at, applied_steps_count)
          VALUES (${quote(randomUUID())}, ${quote(m.checksum)}, now(), ${quote(m.name)}, NULL, now(), 1);`;
  await runTransaction(session, m.sql, bookkeeping, lockRetry).catch((err: Error) => {
    throw new MigrationError(`migration ${m.name} failed and was rolled back: ${err.message}`);
  });
}

/**
 * Each statement alone, in autocommit, between a bookkeeping row written first and finished last.
 * A concurrent build waits for no lock writers need (SHARE UPDATE EXCLUSIVE), only for older
 * transactions to end: it runs with no lock bound. Any other statement takes the bound and its
 * retries, as in a transaction.
 */
async function applyOutsideTransaction(session: SqlRunner, m: Migration, lockRetry: LockRetryOptions) {
  // a run that died halfway (found unfinished under the lock): recorded as Prisma's resolve does
  await session.exec(`UPDATE "_prisma_migrations" SET rolled_back_at = now(), logs = concat_ws(E'\\n', logs, 'interrupted: run again')
    WHERE migration_name = ${quote(m.name)} AND finished_at IS NULL AND rolled_back_at IS NULL`);
  const id = quote(randomUUID());
  await session.exec(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
    VALUES (${id}, ${quote(m.checksum)}, ${quote(m.name)}, now(), 0)`);
  const statements = splitSqlStatements(m.sql);
  let current: string | undefined;
  try {
    for (const [i, statement] of statements.entries()) {
      current = `statement ${i + 1} of ${statements.length}`;
      const index = concurrentIndexName(statement.code);
      if (index) {
        await session.exec(lockTimeoutSql(0, 'SESSION'));
        await dropInvalidIndex(session, index);
        await session.exec(statement.text);
        continue;
      }
      await retryWhileLocksBusy(lockRetry, async () => {
        await session.exec(lockTimeoutSql(lockRetry.lockTimeoutMs, 'SESSION'));
        await session.exec(statement.text);
      });
    }
    await session.exec(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = ${id}`);
  } catch (err) {
    const message = (err as Error).message;
    // no invalid index left to slow every write down until the next try
    for (const s of statements) {
      const index = concurrentIndexName(s.code);
      if (index) await dropInvalidIndex(session, index).catch(() => {});
    }
    await session
      .exec(`UPDATE "_prisma_migrations" SET rolled_back_at = now(), logs = ${quote(`${current}: ${message}`)} WHERE id = ${id}`)
      .catch(() => {});
    throw new MigrationError(
      `migration ${m.name} failed at ${current} and is run again at the next start (it runs outside a transaction: the statements before stay): ${message}`,
    );
  } finally {
    await session.exec('RESET lock_timeout').catch(() => {});
  }
}
