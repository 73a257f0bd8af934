// Opens the database: PostgreSQL through @prisma/adapter-pg when DATABASE_URL is set, else the
// embedded PGlite (PostgreSQL in WASM, in-process) persisted under DATA_DIR or kept in memory.
// Both run the same migrations and the same queries.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import type { SqlRunner } from './sql-runner.js';

export type DatabaseKind = 'postgres' | 'pglite';

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  sql: SqlRunner;
  /** a short description for logs (never the password) */
  describe: string;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  /** folder for the embedded database, or 'memory' */
  dataDir?: string;
  poolSize?: number;
  /** called with every SQL statement sent, through Prisma or the SQL runner (tests count them) */
  onQuery?: (sql: string) => void;
}

function attachQueryLog(prisma: PrismaClient, onQuery?: (sql: string) => void) {
  if (!onQuery) return;
  (prisma as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) =>
    onQuery(ev.query),
  );
}

function clientOptions(onQuery?: (sql: string) => void) {
  return onQuery ? { log: [{ emit: 'event' as const, level: 'query' as const }] } : {};
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts);
  return openPglite(opts.dataDir ?? './data', opts);
}

function openPostgres(url: string, opts: OpenDatabaseOptions): Database {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10 });
  // An idle client erroring (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), ...clientOptions(opts.onQuery) });
  attachQueryLog(prisma, opts.onQuery);
  const log = opts.onQuery ?? (() => {});
  const runnerFor = (q: pg.Pool | pg.PoolClient): SqlRunner => ({
    exec: async (sql) => {
      log(sql);
      await q.query(sql);
    },
    query: async <T>(sql: string, params?: unknown[], prepareAs?: string) => {
      log(sql);
      return (prepareAs ? await q.query({ name: prepareAs, text: sql, values: params }) : await q.query(sql, params)).rows as T[];
    },
    withSession: async (fn) => {
      if (q !== pool) return fn(runnerFor(q));
      const client = await pool.connect();
      // A held session (advisory locks, the indexer) can be dropped by the server; without a
      // listener pg raises that as an unhandled 'error' and the whole process exits.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        broken = err;
      };
      client.on('error', onError);
      try {
        return await fn(runnerFor(client));
      } finally {
        client.off('error', onError);
        client.release(broken ?? false);
      }
    },
  });
  const u = new URL(url);
  return {
    kind: 'postgres',
    prisma,
    sql: runnerFor(pool),
    describe: `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}`,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string, opts: OpenDatabaseOptions): Promise<Database> {
  const inMemory = dataDir === 'memory';
  let dir: string | undefined;
  if (!inMemory) {
    dir = path.resolve(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  const pglite = inMemory ? new PGlite() : new PGlite(dir);
  await pglite.waitReady;
  return wrapPglite(pglite, inMemory ? 'embedded PGlite (in memory)' : `embedded PGlite ${dir}`, opts);
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
