// A fresh, migrated database for one test file: in-memory PGlite by default, or a new database
// on the PostgreSQL server named by TEST_DATABASE_URL (dropped again in close()).
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { wrapPglite } from '../../src/db/pglite-database.js';
import { migrate } from '../../src/db/migrate.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const backendName = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDatabase {
  db: Database;
  /** SQL statements Prisma sent since the last reset */
  statements: string[];
  close(): Promise<void>;
}

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new empty database URL on the test server, and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mkt_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export async function openTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const statements: string[] = [];
  const onQuery = (sql: string) => statements.push(sql);
  let db: Database;
  let drop = async () => {};
  if (TEST_DATABASE_URL) {
    const created = await createPostgresDatabase();
    drop = created.drop;
    db = await openDatabase({ databaseUrl: created.url, poolSize: 8, onQuery });
  } else {
    const pglite = new PGlite();
    await pglite.waitReady;
    db = wrapPglite(pglite, 'test PGlite (memory)', { onQuery });
  }
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
