// Boot: open the database, apply migrations, seed the embedded demo on first creation, build
// the services and the HTTP app. Used by the server, the CLI commands and the tests.
import { createChainReader } from './chain/chain-reader.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { seedDemo } from './db/seed-demo.js';
import type { Logger } from './logger.js';
import { createServices, type Services } from './services/index.js';
import { createApp, type App } from './yoga.js';

export interface Running {
  db: Database;
  services: Services;
  yoga: App;
  close(): Promise<void>;
}

export interface BootOptions {
  /** an already opened database (tests) */
  db?: Database;
  now?: () => Date;
  collectDefaultMetrics?: boolean;
}

export async function boot(config: Config, logger: Logger, opts: BootOptions = {}): Promise<Running> {
  const db = opts.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize }));
  try {
    const migrations = await migrate(db.sql);
    logger.info({ database: db.describe, applied: migrations.applied, alreadyApplied: migrations.alreadyApplied.length }, 'database ready');
    const services = createServices({
      db,
      config,
      network: config.network,
      chain: config.rpcUrl ? createChainReader(config.rpcUrl, config.network) : null,
      now: opts.now ?? (() => new Date()),
      onInternalError: (err) => logger.error({ err }, 'unexpected error behind a REST route'),
    });
    const freshEmbedded = db.kind === 'pglite' && migrations.alreadyApplied.length === 0 && migrations.applied.length > 0;
    if (freshEmbedded && config.seed && (await db.prisma.collection.count()) === 0) {
      const t0 = performance.now();
      const summary = await seedDemo(services);
      logger.info({ ...summary, ms: Math.round(performance.now() - t0) }, 'demo marketplace seeded (SEED=0 to skip)');
    }
    if (!config.rpcUrl) logger.warn('RPC_URL is not set: checks that need chain state are skipped');
    const yoga = createApp(services, config, logger, { collectDefaultMetrics: opts.collectDefaultMetrics });
    return { db, services, yoga, close: () => db.close() };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
