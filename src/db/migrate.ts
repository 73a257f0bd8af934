// Applies the SQL migrations under prisma/migrations at boot, because Prisma's migrate CLI needs a
// native engine that cannot be downloaded everywhere. Each migration and its bookkeeping row in
// Prisma's own `_prisma_migrations` table (same sha256 checksum Prisma computes) commit together,
// so `prisma migrate status/deploy` agree with what ran here. A PostgreSQL advisory lock keeps
// several instances starting at once from applying the same migration twice.
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

/** Every migration applied and unedited, none started and left unfinished. */
function upToDate(rows: AppliedRow[], migrations: Migration[]): boolean {
  if (rows.some((r) => !r.finished_at && !r.rolled_back_at)) return false;
  const done = new Map(rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => [r.migration_name, r]));
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

export async function migrate(sql: SqlRunner, migrations: Migration[] = readMigrations(), repeatables: Migration[] = readRepeatables()): Promise<MigrateResult> {
  // Every start but the first after an upgrade finds nothing to do: one read settles it, without
  // the lock, the session or any DDL (on PGlite the lock and the CREATE TABLE IF NOT EXISTS of a
  // restart alone took 100-300 ms). Anything else (no table yet, pending, edited or unfinished
  // migrations, a changed repeatable step) goes the locked way below, which applies or refuses.
  const rows = await sql.query<AppliedRow & { repeatable: boolean }>(STATE_SQL).catch((err: { code?: string }) => {
    if (err?.code === '42P01') return null; // undefined_table: a new database, or one from before the repeatable steps
    throw err;
  });
  if (rows) {
    const repeated = new Map(rows.filter((r) => r.repeatable).map((r) => [r.migration_name, r.checksum]));
    if (upToDate(rows.filter((r) => !r.repeatable), migrations) && stale(repeated, repeatables).length === 0) {
      return { applied: [], alreadyApplied: migrations.map((m) => m.name), repeated: [] };
    }
  }
  return migrateLocked(sql, migrations, repeatables);
}

async function migrateLocked(sql: SqlRunner, migrations: Migration[], repeatables: Migration[]): Promise<MigrateResult> {
  return sql.withSession(async (session) => {
    // Keyed by database too: advisory locks are server-wide, and other databases need not wait.
    await session.query('SELECT pg_advisory_lock($1::int, hashtext(current_database()))', [MIGRATION_LOCK_ID]);
    try {
      await session.exec(CREATE_MIGRATIONS_TABLE);
      const rows = await session.query<AppliedRow>(APPLIED_SQL);
      const done = new Map(rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => [r.migration_name, r]));
      const failed = rows.filter((r) => !r.finished_at && !r.rolled_back_at).map((r) => r.migration_name);
      if (failed.length) {
        throw new MigrationError(
          `migration(s) ${failed.join(', ')} started but never finished; resolve them (prisma migrate resolve) before starting`,
        );
      }
      const result: MigrateResult = { applied: [], alreadyApplied: [], repeated: [] };
      for (const m of migrations) {
        const row = done.get(m.name);
        if (row) {
          if (!checksumMatches(m.sql, row.checksum)) {
            throw new MigrationError(`migration ${m.name} was modified after it was applied (checksum mismatch)`);
          }
          result.alreadyApplied.push(m.name);
          continue;
        }
        const bookkeeping = `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, started_at, applied_steps_count)
          VALUES (${quote(randomUUID())}, ${quote(m.checksum)}, now(), ${quote(m.name)}, NULL, now(), 1);`;
        try {
          await session.exec(`BEGIN;\n${m.sql}\n;\n${bookkeeping}\nCOMMIT;`);
        } catch (err) {
          await session.exec('ROLLBACK').catch(() => {});
          throw new MigrationError(`migration ${m.name} failed and was rolled back: ${(err as Error).message}`);
        }
        result.applied.push(m.name);
      }
      await session.exec(CREATE_REPEATABLE_TABLE);
      const repeated = new Map((await session.query<{ name: string; checksum: string }>(REPEATED_SQL)).map((r) => [r.name, r.checksum]));
      for (const r of stale(repeated, repeatables)) {
        const bookkeeping = `INSERT INTO "_repeatable_migrations" (name, checksum) VALUES (${quote(r.name)}, ${quote(r.checksum)})
          ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum;`;
        try {
          await session.exec(`BEGIN;\n${r.sql}\n;\n${bookkeeping}\nCOMMIT;`);
        } catch (err) {
          await session.exec('ROLLBACK').catch(() => {});
          throw new MigrationError(`repeatable step ${r.name} failed and was rolled back: ${(err as Error).message}`);
        }
        result.repeated.push(r.name);
      }
      return result;
    } finally {
      await session.query('SELECT pg_advisory_unlock($1::int, hashtext(current_database()))', [MIGRATION_LOCK_ID]).catch(() => {});
    }
  });
}
