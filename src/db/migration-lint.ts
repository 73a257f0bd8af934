// The rules a new migration keeps so that it runs while the previous release serves
// (docs/operations.md#writing-a-migration): reads and writes of the book go on during it, and
// the previous release keeps working against the schema it leaves. test/db/migration-lint.test.ts
// applies them to every migration after GRANDFATHERED_THROUGH; the ones before were written for a
// stopped service and stay as they ran (a migration is never edited after it shipped).
import { MIGRATION_DIRECTIVES, migrationDirectives, runsOutsideTransaction, type Migration } from './migrate.js';
import { splitSqlStatements } from './split-sql-statements.js';

/** The last migration written before these rules; those up to it are not checked. */
export const GRANDFATHERED_THROUGH = '20261207210000_token_metadata';

/**
 * Tables large enough that a lock held for a scan of them stops the book for seconds to minutes
 * (orders: 38 s for one index build at 10M orders). Grow with orders, events, sales or tokens.
 */
export const LARGE_TABLES = ['orders', 'market_events', 'sales', 'token_balances', 'token_metadata', 'token_attributes', 'token_transfers', 'order_status_changes'];

export type MigrationProblemCode =
  /** CREATE INDEX on a large table without CONCURRENTLY: blocks every write for the whole build */
  | 'INDEX_BLOCKS_WRITES'
  /** a statement that scans or rewrites a large table under a lock writers need */
  | 'SCAN_UNDER_LOCK'
  /** CONCURRENTLY in a migration that runs in a transaction: PostgreSQL refuses it */
  | 'CONCURRENTLY_IN_TRANSACTION'
  /** a statement of a no-transaction migration that fails when the migration runs again */
  | 'NOT_RERUNNABLE'
  /** a change the previous release cannot run against, in a migration not declared `contract` */
  | 'BREAKS_PREVIOUS_RELEASE'
  /** a `-- migrate:` line the runner does not know */
  | 'UNKNOWN_DIRECTIVE';

export interface MigrationProblem {
  migration: string;
  /** 1-based; 0 for the migration as a whole */
  statement: number;
  code: MigrationProblemCode;
  message: string;
}

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
const QUALIFIED = String.raw`${IDENT}(?:\.${IDENT})?`;

/** A table name as PostgreSQL resolves it here: unquoted, folded to lower case, without `public.` */
function tableName(written: string): string {
  const last = written.match(new RegExp(`${IDENT}$`))![0];
  return last.startsWith('"') ? last.slice(1, -1).replaceAll('""', '"') : last.toLowerCase();
}

const CREATE_INDEX = new RegExp(
  String.raw`^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(CONCURRENTLY\s+)?(IF\s+NOT\s+EXISTS\s+)?(${QUALIFIED}\s+)?ON\s+(?:ONLY\s+)?(${QUALIFIED})`,
  'i',
);
const CREATE_TABLE = new RegExp(String.raw`^CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(${QUALIFIED})`, 'i');
const ALTER_TABLE = new RegExp(String.raw`^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(${QUALIFIED})\s+(.*)$`, 'is');
const DROP_TABLE = new RegExp(String.raw`^DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(${QUALIFIED}(?:\s*,\s*${QUALIFIED})*)`, 'i');
const NEEDS_NO_TRANSACTION = /^(?:CREATE\s+(?:UNIQUE\s+)?INDEX|DROP\s+INDEX|REINDEX\s+\w+)\s+CONCURRENTLY\b|\bDETACH\s+PARTITION\s+\S+\s+CONCURRENTLY\b/i;

/** What an ALTER TABLE's actions do that the previous release cannot live with. */
const BREAKING_ACTIONS: [RegExp, string][] = [
  [/\bDROP\s+(?:COLUMN\s+)?(?!CONSTRAINT\b|DEFAULT\b|NOT\s+NULL\b|EXPRESSION\b|IDENTITY\b)/i, 'drops a column the previous release reads or writes'],
  [/\bRENAME\b/i, 'renames what the previous release names'],
  [/\bALTER\s+(?:COLUMN\s+)?\S+\s+(?:SET\s+DATA\s+)?TYPE\b/i, 'changes a column type the previous release reads or writes'],
  [/\bALTER\s+(?:COLUMN\s+)?\S+\s+SET\s+NOT\s+NULL\b/i, 'makes a column required that the previous release may leave empty'],
];

/** Each ADD [COLUMN] action of an ALTER TABLE, up to the next top-level comma. */
function addedColumns(actions: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  const parts: string[] = [];
  for (let i = 0; i < actions.length; i++) {
    if (actions[i] === '(') depth++;
    else if (actions[i] === ')') depth--;
    else if (actions[i] === ',' && depth === 0) (parts.push(actions.slice(from, i)), (from = i + 1));
  }
  parts.push(actions.slice(from));
  for (const p of parts) if (/^\s*ADD\s+(?!CONSTRAINT\b|PRIMARY\b|UNIQUE\b|CHECK\b|FOREIGN\b|EXCLUDE\b)/i.test(p)) out.push(p.trim());
  return out;
}

export function lintMigration(m: Pick<Migration, 'name' | 'sql'>): MigrationProblem[] {
  const problems: MigrationProblem[] = [];
  const problem = (statement: number, code: MigrationProblemCode, message: string) => problems.push({ migration: m.name, statement, code, message });
  const directives = migrationDirectives(m.sql);
  for (const d of directives) {
    if (!(MIGRATION_DIRECTIVES as readonly string[]).includes(d)) problem(0, 'UNKNOWN_DIRECTIVE', `unknown directive "-- migrate: ${d}" (known: ${MIGRATION_DIRECTIVES.join(', ')})`);
  }
  const outside = runsOutsideTransaction(m);
  const contract = directives.includes('contract');
  // tables this migration creates are empty and unknown to the previous release: anything goes
  const created = new Set<string>();
  for (const [i, { code }] of splitSqlStatements(m.sql).entries()) {
    const n = i + 1;
    const table = CREATE_TABLE.exec(code);
    if (table) {
      created.add(tableName(table[2]!));
      if (outside && !table[1]) problem(n, 'NOT_RERUNNABLE', 'CREATE TABLE without IF NOT EXISTS in a migration that may run again');
      continue;
    }
    const concurrent = NEEDS_NO_TRANSACTION.test(code);
    if (concurrent && !outside) {
      problem(n, 'CONCURRENTLY_IN_TRANSACTION', 'CONCURRENTLY cannot run inside a transaction: declare "-- migrate: no-transaction" (and keep that migration to such statements)');
    }
    const index = CREATE_INDEX.exec(code);
    if (index) {
      const [, isConcurrent, ifNotExists, name, on] = index;
      const target = tableName(on!);
      if (!isConcurrent && LARGE_TABLES.includes(target) && !created.has(target)) {
        problem(n, 'INDEX_BLOCKS_WRITES', `CREATE INDEX on ${target} blocks its writes for the whole build: CREATE INDEX CONCURRENTLY IF NOT EXISTS, in a "-- migrate: no-transaction" migration`);
      }
      if (isConcurrent && outside && (!ifNotExists || !name)) {
        problem(n, 'NOT_RERUNNABLE', 'a concurrent build needs a name and IF NOT EXISTS: a failed build leaves an INVALID index of that name, which the runner drops before building again');
      }
      continue;
    }
    if (outside && /^DROP\s+INDEX\b/i.test(code) && !/^DROP\s+INDEX\s+(?:CONCURRENTLY\s+)?IF\s+EXISTS\b/i.test(code)) {
      problem(n, 'NOT_RERUNNABLE', 'DROP INDEX without IF EXISTS in a migration that may run again');
    }
    const drop = DROP_TABLE.exec(code);
    if (drop && !contract) {
      const existing = drop[1]!.split(',').map((t) => tableName(t.trim())).filter((t) => !created.has(t));
      if (existing.length) problem(n, 'BREAKS_PREVIOUS_RELEASE', `drops ${existing.join(', ')}: only in a "-- migrate: contract" migration, once no running release uses it`);
    }
    if (/^DROP\s+FUNCTION\b/i.test(code) && !contract) {
      problem(n, 'BREAKS_PREVIOUS_RELEASE', 'drops a function the previous release may call: only in a "-- migrate: contract" migration, once no running release uses it');
    }
    const alter = ALTER_TABLE.exec(code);
    if (!alter) {
      if (/^(?:VACUUM\s+(?:\(\s*)?FULL|CLUSTER)\b/i.test(code)) problem(n, 'SCAN_UNDER_LOCK', 'VACUUM FULL and CLUSTER rewrite a table under ACCESS EXCLUSIVE');
      continue;
    }
    const target = tableName(alter[1]!);
    if (created.has(target)) continue;
    const actions = alter[2]!;
    for (const [pattern, why] of BREAKING_ACTIONS) {
      if (pattern.test(actions) && !contract) problem(n, 'BREAKS_PREVIOUS_RELEASE', `${target}: ${why}; expand and contract instead (docs/operations.md#writing-a-migration), or declare "-- migrate: contract" once no running release depends on it`);
    }
    for (const column of addedColumns(actions)) {
      if (outside && !/^ADD\s+(?:COLUMN\s+)?IF\s+NOT\s+EXISTS\b/i.test(column)) problem(n, 'NOT_RERUNNABLE', 'ADD COLUMN without IF NOT EXISTS in a migration that may run again');
      if (/\bNOT\s+NULL\b/i.test(column) && !/\bDEFAULT\b|\bGENERATED\b/i.test(column)) {
        problem(n, 'BREAKS_PREVIOUS_RELEASE', `${target}: a required column without a default refuses every row the previous release writes; add it with a DEFAULT, or nullable`);
      }
    }
    if (LARGE_TABLES.includes(target)) {
      if (/\bADD\s+(?:CONSTRAINT\s+\S+\s+)?(?:CHECK|FOREIGN\s+KEY)\b/i.test(actions) && !/\bNOT\s+VALID\b/i.test(actions)) {
        problem(n, 'SCAN_UNDER_LOCK', `${target}: a new constraint is checked against every row under the ALTER's lock: add it NOT VALID, then VALIDATE CONSTRAINT (which lets writes go on) in a later statement`);
      }
      if (/\bADD\s+(?:CONSTRAINT\s+\S+\s+)?(?:UNIQUE|PRIMARY\s+KEY)\b/i.test(actions) && !/\bUSING\s+INDEX\b/i.test(actions)) {
        problem(n, 'SCAN_UNDER_LOCK', `${target}: a UNIQUE or PRIMARY KEY constraint builds its index under the ALTER's lock: build it CONCURRENTLY first, then ADD CONSTRAINT ... USING INDEX`);
      }
      if (BREAKING_ACTIONS[2]![0].test(actions)) problem(n, 'SCAN_UNDER_LOCK', `${target}: a type change rewrites the table under ACCESS EXCLUSIVE: add a new column and fill it in batches`);
    }
  }
  return problems;
}
