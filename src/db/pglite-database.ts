// The embedded database: PGlite (PostgreSQL in WASM) behind the same Database interface as
// PostgreSQL. A module of its own so that a service on PostgreSQL never loads it
// (src/db/database.ts imports it on demand).
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGliteThread } from './pglite-thread.js';
import { PGLITE_SETTINGS, startEmbeddedOnDisk, type OpeningEmbedded } from './pglite-thread-start.js';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Database, OpenDatabaseOptions } from './database-types.js';
import { attachQueryLog, clientOptions } from './prisma-query-log.js';
import type { SqlRunner } from './sql-runner.js';

const START_PARAMS = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS];

/**
 * The PostgreSQL extensions the migrations create (pg_trgm: collection search). PGlite loads an
 * extension's library only when it was registered at construction, so every PGlite that opens
 * this service's database takes them (the thread's worker, pglite-thread-worker.mjs, names its own).
 */
export const PGLITE_EXTENSIONS = { pg_trgm };

/** A PGlite instance with this service's settings: in memory, or persisted in dir. */
export function createPglite(dir?: string): PGlite {
  return new PGlite({ dataDir: dir, startParams: START_PARAMS, extensions: PGLITE_EXTENSIONS });
}

/**
 * The embedded database: in memory (tests, DATA_DIR=memory), in-process, where cloning a template
 * is one call; or persisted under DATA_DIR, on a thread of its own (pglite-thread.ts), so PostgreSQL
 * executes beside the event loop. `opening` is a thread the server started before loading the
 * application (open-database-early.ts).
 */
export async function openPglite(dataDir: string, opts: OpenDatabaseOptions, opening?: OpeningEmbedded, { deferReady = false } = {}): Promise<Database> {
  if (dataDir === 'memory') {
    const pglite = createPglite();
    await pglite.waitReady;
    return wrapPglite(pglite, 'embedded PGlite (in memory)', opts);
  }
  const { dir, thread, unlock } = opening ?? startEmbeddedOnDisk(dataDir);
  const pglite = new PGliteThread(thread);
  const failed = async (err: unknown): Promise<never> => {
    await pglite.close().catch(() => {});
    unlock();
    throw err;
  };
  // deferReady: the Database now, `ready` when PostgreSQL answers (the server builds its app meanwhile)
  const ready = pglite.waitReady.catch(failed);
  if (!deferReady) await ready;
  else ready.catch(() => {}); // boot() awaits it; unobserved until then
  const db = wrapPglite(pglite as unknown as PGlite, `embedded PGlite ${dir}`, opts);
  const close = db.close;
  return { ...db, ...(deferReady ? { ready } : {}), close: () => close().finally(unlock) };
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
