// Opens the database: PostgreSQL through @prisma/adapter-pg when DATABASE_URL is set, else the
// embedded PGlite (PostgreSQL in WASM, in-process) persisted under DATA_DIR or kept in memory.
// Both run the same migrations and the same queries.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { attachQueryLog, clientOptions } from './prisma-query-log.js';
import type { Database, DatabaseTimeouts, OpenDatabaseOptions } from './database-types.js';
import type { SqlRunner } from './sql-runner.js';

export type { Database, DatabaseKind, DatabaseTimeouts, OpenDatabaseOptions } from './database-types.js';

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 2000, statementMs: 5000, idleInTransactionMs: 10_000, sessionMs: 60_000 };

/** The client-side bound for a statement: the server's own timeout first, then ours. */
const readTimeout = (ms: number) => (ms > 0 ? ms + 1000 : 0);

/**
 * A pg client whose query timed out on the client side still has that query in flight: given
 * back to the pool it would block whoever gets it next (Prisma releases transaction clients
 * without an error). Destroy its socket instead, so the pool replaces it.
 */
function destroyOnReadTimeout(client: pg.PoolClient) {
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  const kill = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => {
        kill(err);
        (last as (e: unknown, r: unknown) => void)(err, res);
      };
      return original(...args);
    }
    const result = original(...args);
    if (result instanceof Promise) result.catch(kill);
    return result;
  };
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts);
  // Loaded only when used: PGlite's module alone is about 40 MB of resident memory, which a
  // service on PostgreSQL should not carry (bench/peer-bench.ts measures RSS).
  const { openPglite } = await import('./pglite-database.js');
  return openPglite(opts.dataDir ?? './data', opts);
}

/**
 * Run once on each new connection. A PostgreSQL backend on glibc gives its heap's free top back
 * to the kernel (`brk`) whenever more than 128 KB are free there, and a read that builds a 15 KB
 * JSON answer frees about that much at its end: every statement then shrank the heap and grew it
 * again, and on a multi-core machine each shrink interrupts the other cores to flush their TLBs
 * (perf: 28 % of PostgreSQL's CPU in `brk`; pgbench: 1,300 statements/s where the same plan with
 * less transient memory ran 4,000). glibc raises both thresholds, for the life of the process,
 * after it frees a block it had to map: this 1 MB value is that block, and the backend then keeps
 * up to 2 MB of free heap (pgbench of the offer board's statement: 1,460 statements/s cold, 3,710
 * after 1 MB, 3,240 after 8 MB). 8 MB cost each new connection about 200 ms on this machine
 * (`npm run bench:start`: connect 396-429 against 145-224 ms); 1 MB is a quarter of a thousand
 * pages to touch.
 */
const RAISE_MALLOC_THRESHOLDS_SQL = `SELECT length(repeat('x', 1048576))`;

function openPostgres(url: string, opts: OpenDatabaseOptions): Database {
  const t = { ...DEFAULT_DATABASE_TIMEOUTS, ...opts.timeouts };
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: t.connectMs,
    statement_timeout: t.statementMs,
    query_timeout: readTimeout(t.statementMs),
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
    // A dead peer (partition) is noticed by the OS instead of never.
    keepAlive: true,
    // Named statements (src/db/prepared-names.ts) are planned for each run's own values.
    // No parallel workers: a request's statement that PostgreSQL plans as parallel (the card
    // ranking's window sums at 10M orders) starts worker processes on every run, ~10 ms of a
    // 17 ms statement, on cores the other requests already use (bench/peer-bench.ts, shape g).
    // No JIT: a read of one page whose estimate passes jit_above_cost (a token page at 10M orders:
    // the planner reckons with 9,911 token rows, one is read) is compiled on every run, 406 ms
    // of JIT for 2 ms of execution; statements here are many and short, never worth compiling.
    options: '-c plan_cache_mode=force_custom_plan -c max_parallel_workers_per_gather=0 -c jit=off',
  });
  // An idle client erroring (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', destroyOnReadTimeout);
  pool.on('connect', (client) => void client.query(RAISE_MALLOC_THRESHOLDS_SQL).catch(() => {}));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), ...clientOptions(opts.onQuery) });
  attachQueryLog(prisma, opts.onQuery);
  const log = opts.onQuery ?? (() => {});
  // pg reads a per-query query_timeout at run time; its types do not declare it.
  const statement = (text: string, values: unknown[] | undefined, queryTimeout: number | undefined) =>
    ({ text, values, ...(queryTimeout === undefined ? {} : { query_timeout: queryTimeout }) }) as pg.QueryConfig;
  const runnerFor = (q: pg.Pool | pg.PoolClient, queryTimeout?: number): SqlRunner => ({
    exec: async (sql) => {
      log(sql);
      await q.query(statement(sql, undefined, queryTimeout));
    },
    query: async <T>(sql: string, params?: unknown[], prepareAs?: string) => {
      log(sql);
      const config = statement(sql, params, queryTimeout);
      // a named statement is parsed and planned once per connection (the submission's hot call)
      if (prepareAs) config.name = prepareAs;
      return (await q.query(config)).rows as T[];
    },
    withSession: async (fn) => {
      if (q !== pool) return fn(runnerFor(q, queryTimeout));
      const client = await pool.connect();
      // A held session (advisory locks, the indexer) can be dropped by the server; without a
      // listener pg raises that as an unhandled 'error' and the whole process exits.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        broken = err;
      };
      client.on('error', onError);
      try {
        // Sessions wait on advisory locks and run whole batches: their own, longer bound.
        await client.query(statement(`SET statement_timeout = ${Math.floor(t.sessionMs)}`, undefined, readTimeout(t.sessionMs)));
        try {
          return await fn(runnerFor(client, readTimeout(t.sessionMs)));
        } finally {
          if (!broken) await client.query('RESET statement_timeout').catch((err: Error) => (broken = err));
        }
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
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: opts.poolSize ?? 10 }),
    describe: `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}`,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

