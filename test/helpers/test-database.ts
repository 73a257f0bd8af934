// A fresh, migrated database for one test file: in-memory PGlite by default, or a new database
// on the PostgreSQL server named by TEST_DATABASE_URL (dropped again in close()). Both start as a
// copy of the template migrated once per run (template-database.ts).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { PGLITE_EXTENSIONS, wrapPglite } from '../../src/db/pglite-database.js';
import { migrate } from '../../src/db/migrate.js';
import { CURSOR_SQL as INDEXED_BLOCK_POLL_SQL } from '../../src/services/indexed-block.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const backendName = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDatabase {
  db: Database;
  /** SQL statements Prisma sent since the last reset */
  statements: string[];
  close(): Promise<void>;
}

export async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const postgresDatabaseName = (prefix: string) => `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;

/** A new database URL on the test server (empty, or a copy of `template`), and a function that drops it. */
export async function createPostgresDatabase(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = postgresDatabaseName('mkt_test');
  await adminQuery(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** The run's migrated template (absent when a file runs outside vitest's global setup). */
function migratedTemplate() {
  try {
    return inject('migratedTemplate');
  } catch {
    return undefined;
  }
}

export async function openTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const statements: string[] = [];
  // the indexed-block poll runs on a timer, not for a request: a count of what a request sent
  // must not depend on whether the poll fell inside it
  const onQuery = (sql: string) => {
    if (sql !== INDEXED_BLOCK_POLL_SQL) statements.push(sql);
  };
  const template = opts.migrate === false ? undefined : migratedTemplate();
  let db: Database;
  let drop = async () => {};
  if (TEST_DATABASE_URL) {
    const created = await createPostgresDatabase(template && 'postgresDatabase' in template ? template.postgresDatabase : undefined);
    drop = created.drop;
    db = await openDatabase({ databaseUrl: created.url, poolSize: 8, onQuery });
  } else {
    const loadDataDir = template && 'pgliteTar' in template ? new Blob([readFileSync(template.pgliteTar)]) : undefined;
    const pglite = new PGlite({ loadDataDir, extensions: PGLITE_EXTENSIONS });
    await pglite.waitReady;
    db = wrapPglite(pglite, 'test PGlite (memory)', { onQuery });
  }
  // a no-op on the template's copy (every migration is recorded there), the real thing otherwise
  if (opts.migrate !== false) await migrate(db.sql);
  return {
    db,
    statements,
    close: async () => {
      // The database is dropped even when closing the connections fails (a test that closed
      // them itself, a pool already ended): FORCE ends whatever is still connected.
      try {
        await db.close();
      } finally {
        await drop();
      }
    },
  };
}
