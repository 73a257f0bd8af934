// CREATE INDEX CONCURRENTLY builds an index without blocking writes, in several transactions of
// its own; when it fails halfway (a cancel, a deadlock, a unique violation, a lost connection, a
// killed process) it leaves the index behind, INVALID: never read, yet maintained by every write,
// and in the way of the next try (`IF NOT EXISTS` would keep the broken one, a plain CREATE
// would fail on the name). https://www.postgresql.org/docs/15/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
// says to drop it and build again; these are the two steps the migration runner takes before
// each build.
import type { SqlRunner } from './sql-runner.js';

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
const CONCURRENT_INDEX = new RegExp(
  String.raw`^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?(${IDENT}(?:\.${IDENT})?)\s+ON\s`,
  'i',
);

/**
 * The index a `CREATE INDEX CONCURRENTLY` statement builds, as written (quotes and schema kept),
 * from a statement's `code` (comments removed: split-sql-statements.ts); undefined for any other
 * statement, and for a concurrent build without a name (the lint refuses those in migrations).
 */
export function concurrentIndexName(code: string): string | undefined {
  return CONCURRENT_INDEX.exec(code)?.[1];
}

/**
 * Drops `index` if it exists and is INVALID (left by a failed concurrent build); true if it did.
 * Only ever called under the migration lock: no other build of this index can be running, so
 * `indisvalid = false` means a build that ended, not one in progress.
 */
export async function dropInvalidIndex(session: SqlRunner, index: string): Promise<boolean> {
  const [row] = await session.query<{ valid: boolean }>('SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)', [index]);
  if (!row || row.valid) return false;
  await session.exec(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  return true;
}
