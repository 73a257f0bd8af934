// The embedded database: PGlite (PostgreSQL in WASM, in-process) behind the same Database
// interface as PostgreSQL. A module of its own so that a service on PostgreSQL never loads it
// (src/db/database.ts imports it on demand).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { attachQueryLog, clientOptions, type Database, type OpenDatabaseOptions } from './database.js';
import { lockDataDir } from './data-dir-lock.js';
import { embeddedDatabaseDir } from './embedded-dir.js';
import type { SqlRunner } from './sql-runner.js';

/**
 * PostgreSQL's defaults size shared memory for a server: shared_buffers = 128MB, which PGlite
 * allocates and zeroes on every open (emscripten's mmap runs memset in WASM that is not yet
 * optimised): about 0.5 s of CPU per start, measured. 32MB still holds the demo database
 * (about 12 MB) two times over; what does not fit is read from the data folder through the OS
 * page cache. Shared memory drops from 153 MB to 44 MB.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/** A PGlite instance with this service's settings: in memory, or persisted in dir. */
export function createPglite(dir?: string): PGlite {
  return new PGlite({ dataDir: dir, startParams: START_PARAMS });
}

export async function openPglite(dataDir: string, opts: OpenDatabaseOptions): Promise<Database> {
  const inMemory = dataDir === 'memory';
  let dir: string | undefined;
  // One process per data directory (data-dir-lock.ts); released when the database closes.
  const unlock = inMemory ? () => {} : lockDataDir(dataDir);
  try {
    if (!inMemory) {
      dir = embeddedDatabaseDir(dataDir);
      mkdirSync(dir, { recursive: true });
    }
    const pglite = createPglite(dir);
    await pglite.waitReady;
    const db = wrapPglite(pglite, inMemory ? 'embedded PGlite (in memory)' : `embedded PGlite ${dir}`, opts);
    const close = db.close;
    return { ...db, close: () => close().finally(unlock) };
  } catch (err) {
    unlock();
    throw err;
  }
}

/** Wraps an open PGlite instance (tests pass clones of a migrated template). */
export function wrapPglite(pglite: PGlite, describe: string, opts: OpenDatabaseOptions = {}): Database {
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite), ...clientOptions(opts.onQuery) });
  attachQueryLog(prisma, opts.onQuery);
  const log = opts.onQuery ?? (() => {});
  const runner: SqlRunner = {
    exec: async (sql) => {
      log(sql);
      await pglite.exec(sql);
    },
    query: async <T>(sql: string, params?: unknown[]) => {
      log(sql);
      return (await pglite.query<T>(sql, params)).rows;
    },
    // PGlite is one session: every caller already shares it.
    withSession: (fn) => fn(runner),
  };
  return {
    kind: 'pglite',
    prisma,
    sql: runner,
    describe,
    close: async () => {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
    },
  };
}
