// The server opens its database while the application's modules load (src/server.ts): the two
// wait on different things. The embedded database boots on its own thread (pglite-thread.ts), on
// the second core, started in the server's first moment from the environment alone, before even
// the configuration's modules load; PostgreSQL's first connection waits on the network. boot()
// takes over what this opened. A first embedded start is left to boot(): the demo data must be
// laid out before the database opens.
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { StartupSteps } from '../startup-steps.js';
import type { Database } from './database.js';
import { embeddedDatabaseDir, embeddedDataDirOf } from './embedded-dir.js';
import { startEmbeddedOnDisk, type OpeningEmbedded } from './pglite-thread-start.js';

/** Connections opened ahead of the first requests (PostgreSQL). */
const WARM_CONNECTIONS = 2;

/** What the first moment started: an embedded database opening, or why it could not. */
export interface EarlyStart {
  embedded?: OpeningEmbedded & { dataDir: string; startedAt: number };
  /** starting failed (DATA_DIR locked by another process): reported once the logger exists */
  error?: unknown;
}

/** Step 1, before anything else loads: a restart of an embedded database starts its thread. */
export function startDatabaseEarly(env: NodeJS.ProcessEnv): EarlyStart {
  const dataDir = embeddedDataDirOf(env);
  if (dataDir === null || dataDir === 'memory' || !existsSync(embeddedDatabaseDir(dataDir))) return {};
  try {
    const startedAt = performance.now();
    return { embedded: { ...startEmbeddedOnDisk(dataDir), dataDir, startedAt } };
  } catch (error) {
    return { error };
  }
}

/** Step 2, with the configuration: the opening database (reachable, for PostgreSQL), or undefined when boot() must open it. */
export function openDatabaseEarly(config: Config, logger: Logger, steps: StartupSteps, early: EarlyStart = {}): Promise<Database> | undefined {
  const opening = open(config, logger, steps, early);
  // boot() awaits it and reports a failure; until then a rejection is not unhandled
  opening?.catch(() => {});
  return opening;
}

function open(config: Config, logger: Logger, steps: StartupSteps, early: EarlyStart): Promise<Database> | undefined {
  if (early.error) return Promise.reject(early.error);
  const { embedded } = early;
  if (!config.databaseUrl) {
    if (!embedded) return undefined;
    // the environment and the configuration read DATA_DIR alike (embeddedDataDirOf); never open another folder
    if (embedded.dataDir !== config.dataDir) throw new Error(`DATA_DIR read as ${embedded.dataDir} and ${config.dataDir}`);
    // The Database at once, with `ready` pending: boot() builds the application while PostgreSQL
    // boots, and the step is logged when it answers, timed from the thread's start.
    return (async () => {
      const { openPglite } = await import('./pglite-database.js');
      const db = await openPglite(config.dataDir, {}, embedded, { deferReady: true });
      const ready = steps.run('open database', () => db.ready!, undefined, embedded.startedAt);
      ready.catch(() => {});
      return { ...db, ready };
    })();
  }
  return (async () => {
    const [{ openDatabase }, { waitForDatabase }] = await Promise.all([import('./database.js'), import('./wait-for-database.js')]);
    const db = await steps.run('open database', () => openDatabase({ databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize, timeouts: config.databaseTimeouts }));
    try {
      await steps.run('connect', () =>
        waitForDatabase(db, {
          seconds: config.databaseWaitSeconds,
          onRetry: (attempt, reason) => logger.warn({ attempt, reason }, `waiting for ${db.describe}`),
        }),
      );
    } catch (err) {
      await db.close().catch(() => {});
      throw err;
    }
    // A few more connections while the modules load: /readyz checks two components at once, and
    // the first requests would otherwise each wait for a new connection (PostgreSQL starts a
    // process and authenticates it: 20-50 ms here). Best effort, not awaited.
    void Promise.allSettled(Array.from({ length: Math.min(WARM_CONNECTIONS, config.databasePoolSize) }, () => db.sql.query('SELECT 1')));
    return db;
  })();
}
