import path from 'node:path';

/** The embedded database's folder inside DATA_DIR (src/db/pglite-database.ts opens it). */
export const embeddedDatabaseDir = (dataDir: string) => path.resolve(dataDir, 'pglite');
