// The smallest SQL surface both backends share, used below Prisma by the migration runner,
// the seed's bulk inserts and a few statements Prisma cannot express (advisory locks).
export interface SqlRunner {
  /** Runs one or more statements through the simple query protocol (one implicit transaction). */
  exec(sql: string): Promise<void>;
  /**
   * Runs one parameterised statement and returns its rows. `prepareAs` names it as a prepared
   * statement on PostgreSQL (parsed and planned once per connection: hot paths); PGlite ignores it.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], prepareAs?: string): Promise<T[]>;
  /** Runs fn on one dedicated connection (advisory locks are per session). */
  withSession<T>(fn: (session: SqlRunner) => Promise<T>): Promise<T>;
}
