// The smallest SQL surface both backends share, used below Prisma by the migration runner,
// the seed's bulk inserts and a few statements Prisma cannot express (advisory locks).
export interface SqlRunner {
  /** Runs one or more statements through the simple query protocol (one implicit transaction). */
  exec(sql: string): Promise<void>;
  /**
   * Runs one parameterised statement and returns its rows. `prepareAs` names it as a prepared
   * statement on PostgreSQL (parsed once per connection: hot paths; see Prepared); PGlite ignores it.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], prepareAs?: string | Prepared): Promise<T[]>;
  /**
   * The plan PostgreSQL makes for `sql` without parameter values, as the connections that run
   * `{ generic: true }` statements make it (EXPLAIN (FORMAT JSON, COSTS OFF) of the statement
   * prepared there, its `paramCount` parameters NULL); absent where there are none (PGlite).
   */
  genericPlan?(sql: string, paramCount: number): Promise<unknown>;
  /** Runs fn on one dedicated connection (advisory locks are per session). */
  withSession<T>(fn: (session: SqlRunner) => Promise<T>, opts?: SessionOptions): Promise<T>;
}

export interface SessionOptions {
  /**
   * The bound of each statement of the session instead of the configured one (`sessionMs`);
   * 0: none. The migration runner's index builds take as long as the table needs.
   */
  statementTimeoutMs?: number;
}

/**
 * A named statement. By default each run is planned for its own values (the pool's
 * plan_cache_mode = force_custom_plan, src/db/database.ts). `generic`: it runs on connections that
 * plan it once, without values, and keep that plan: for statements whose plan is the same for
 * every value (the read engine checks it: src/read-engine/generic-plans.ts).
 */
export interface Prepared {
  name: string;
  generic?: boolean;
}
