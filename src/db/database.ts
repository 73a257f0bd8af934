// Opens the database: PostgreSQL through @prisma/adapter-pg when DATABASE_URL is set, else the
// embedded PGlite (PostgreSQL in WASM, in-process) persisted under DATA_DIR or kept in memory.
// Both run the same migrations and the same queries.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { attachQueryLog, clientOptions } from './prisma-query-log.js';
import type { Database, DatabaseTimeouts, OpenDatabaseOptions } from './database-types.js';
import type { Prepared, SqlRunner } from './sql-runner.js';

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

/** Session settings of every pool connection (why: openPostgres). */
const SESSION_OPTIONS = '-c max_parallel_workers_per_gather=0 -c jit=off';
/**
 * The generic pool's own: a statement there is planned once, without values
 * (src/read-engine/generic-plans.ts sends only statements whose generic plan serves every value), and random
 * pages cost little more than sequential ones: the pages these reads touch are in memory, and at
 * the default (4) a generic plan, planned for a collection of average size, prefers a bitmap scan
 * and a sort of its few expected rows to reading the index in order, which is what every hot
 * collection needs (the book page: Bitmap Heap Scan and Sort at 4, the ordered index at 1.1).
 */
const GENERIC_OPTIONS = '-c plan_cache_mode=force_generic_plan -c random_page_cost=1.1';

/** the generic pool's application_name: its sessions in pg_stat_activity */
export const GENERIC_POOL_NAME = 'marketplace generic plans';

function openPostgres(url: string, opts: OpenDatabaseOptions): Database {
  const t = { ...DEFAULT_DATABASE_TIMEOUTS, ...opts.timeouts };
  const newPool = (options: string, applicationName?: string) => {
    const p = new pg.Pool({
      connectionString: url,
      ...(applicationName ? { application_name: applicationName } : {}),
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: t.connectMs,
      statement_timeout: t.statementMs,
      query_timeout: readTimeout(t.statementMs),
      idle_in_transaction_session_timeout: t.idleInTransactionMs,
      // A dead peer (partition) is noticed by the OS instead of never.
      keepAlive: true,
      options,
    });
    // An idle client erroring (server restart) must not crash the process; the pool replaces it.
    p.on('error', () => {});
    p.on('connect', destroyOnReadTimeout);
    p.on('connect', (client) => void client.query(RAISE_MALLOC_THRESHOLDS_SQL).catch(() => {}));
    return p;
  };
  // Named statements (src/db/prepared-names.ts) are planned for each run's own values.
  // No parallel workers: a request's statement that PostgreSQL plans as parallel (the card
  // ranking's window sums at 10M orders) starts worker processes on every run, ~10 ms of a
  // 17 ms statement, on cores the other requests already use (bench/peer-bench.ts, shape g).
  // No JIT: a read of one page whose estimate passes jit_above_cost (a token page at 10M orders:
  // the planner reckons with 9,911 token rows, one is read) is compiled on every run, 406 ms
  // of JIT for 2 ms of execution; statements here are many and short, never worth compiling.
  const pool = newPool(`-c plan_cache_mode=force_custom_plan ${SESSION_OPTIONS}`);
  // Opened on the first generic statement: a process that never sends one (a CLI, the indexer)
  // holds no second set of connections. It has poolSize connections of its own.
  let generic: pg.Pool | undefined;
  const genericPool = () => (generic ??= newPool(`${GENERIC_OPTIONS} ${SESSION_OPTIONS}`, GENERIC_POOL_NAME));
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
    query: async <T>(sql: string, params?: unknown[], prepareAs?: string | Prepared) => {
      log(sql);
      const config = statement(sql, params, queryTimeout);
      // a named statement is parsed once per connection (the submission's hot call)
      const named = typeof prepareAs === 'string' ? { name: prepareAs } : prepareAs;
      if (named) config.name = named.name;
      // a session's statements stay on its connection
      const on = named?.generic && q === pool ? genericPool() : q;
      return (await on.query(config)).rows as T[];
    },
    ...(q === pool ? { genericPlan: (sql: string, paramCount: number) => genericPlan(genericPool(), sql, paramCount) } : {}),
    withSession: async (fn, sessionOpts) => {
      if (q !== pool) return fn(runnerFor(q, queryTimeout));
      const sessionMs = sessionOpts?.statementTimeoutMs ?? t.sessionMs;
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
        await client.query(statement(`SET statement_timeout = ${Math.floor(sessionMs)}`, undefined, readTimeout(t.sessionMs)));
        try {
          return await fn(runnerFor(client, readTimeout(sessionMs)));
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
    // both pools together: the generic one counts once it is open
    poolStats: () => {
      const pools = generic ? [pool, generic] : [pool];
      const sum = (f: (p: pg.Pool) => number) => pools.reduce((n, p) => n + f(p), 0);
      return { total: sum((p) => p.totalCount), idle: sum((p) => p.idleCount), waiting: sum((p) => p.waitingCount), max: pools.length * (opts.poolSize ?? 10) };
    },
    describe: `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}`,
    close: async () => {
      await prisma.$disconnect();
      await Promise.all([pool.end(), generic?.end()]);
    },
  };
}

/** throwaway names of the verdicts' prepared statements (not logged with onQuery: they are no request's) */
let explained = 0;

/**
 * The generic plan of `sql` on one of `pool`'s connections: prepared under a throwaway name
 * (parameter types inferred as for the protocol's unnamed ones), explained with every parameter
 * NULL (a generic plan does not look at them), deallocated.
 */
async function genericPlan(pool: pg.Pool, sql: string, paramCount: number): Promise<unknown> {
  const name = `generic_plan_check_${++explained}`;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`PREPARE ${name} AS ${sql}`);
    try {
      const args = paramCount ? `(${Array.from({ length: paramCount }, () => 'NULL').join(', ')})` : '';
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON, COSTS OFF) EXECUTE ${name}${args}`);
      return rows[0]?.['QUERY PLAN'];
    } finally {
      await client.query(`DEALLOCATE ${name}`).catch((err: Error) => (broken = err));
    }
  } finally {
    client.release(broken ?? false);
  }
}
