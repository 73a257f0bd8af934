import path from 'node:path';

/** The embedded database's folder inside DATA_DIR (src/db/pglite-database.ts opens it). */
export const embeddedDatabaseDir = (dataDir: string) => path.resolve(dataDir, 'pglite');

/**
 * The DATA_DIR of an embedded database, read from the environment as src/config.ts reads it
 * (DATABASE_URL blank or unset, DATA_DIR defaulting to ./data), or null for PostgreSQL. For the
 * server's first moment, before the configuration's modules load (src/db/open-database-early.ts);
 * test/db/embedded-dir.test.ts checks that the two readings agree.
 */
export function embeddedDataDirOf(env: NodeJS.ProcessEnv): string | null {
  return env.DATABASE_URL?.trim() ? null : (env.DATA_DIR ?? './data');
}
