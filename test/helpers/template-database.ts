// vitest globalSetup: the migrated database every test file starts from, built once per run.
// Starting PGlite from scratch (initdb in WASM) and migrating costs seconds per file; loading a
// migrated data directory skips both. On PostgreSQL each file's database is a
// `CREATE DATABASE ... TEMPLATE` copy of one migrated database.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { PGLITE_EXTENSIONS, wrapPglite } from '../../src/db/pglite-database.js';
import { migrate } from '../../src/db/migrate.js';
import { adminQuery, postgresDatabaseName, TEST_DATABASE_URL } from './test-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a migrated PGlite data directory as a tar file, or a migrated PostgreSQL database's name */
    migratedTemplate: { pgliteTar: string } | { postgresDatabase: string };
  }
}

export default async function setup(project: TestProject) {
  if (TEST_DATABASE_URL) {
    const name = postgresDatabaseName('mkt_template');
    await adminQuery(`CREATE DATABASE ${name}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
    try {
      await migrate(db.sql);
    } finally {
      await db.close();
    }
    // a session left on the template would make every copy fail
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    project.provide('migratedTemplate', { postgresDatabase: name });
    return () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const pglite = new PGlite({ extensions: PGLITE_EXTENSIONS });
  const db = wrapPglite(pglite, 'template PGlite (memory)');
  try {
    await migrate(db.sql);
    const dir = mkdtempSync(path.join(tmpdir(), 'mkt-test-template-'));
    const tar = path.join(dir, 'pgdata.tar');
    writeFileSync(tar, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    project.provide('migratedTemplate', { pgliteTar: tar });
    return () => rmSync(dir, { recursive: true, force: true });
  } finally {
    await db.close();
  }
}
