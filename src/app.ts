// Boot: open the database, apply migrations, seed the embedded demo on first creation, build
// the services and the HTTP app. Used by the server, the CLI commands and the tests.
import { createChainReader } from './chain/chain-reader.js';
import { createIndexer } from './chain/indexer/indexer.js';
import { createIndexerProvider } from './chain/indexer/indexer-provider.js';
import { createEventBus, type EventBus } from './events/event-bus.js';
import { publishIndexerEvent } from './events/from-indexer.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { seedDemo } from './db/seed-demo.js';
import type { Logger } from './logger.js';
import { createIndexerRuntime, type IndexerRuntime } from './chain/indexer/indexer-state.js';
import { createServices, type Services } from './services/index.js';
import { createMarketClock, LATEST_BLOCK_SECONDS_SQL, type MarketClock } from './services/market-clock.js';
import { createSignatureVerifier, type SignatureVerifier } from './services/signature-pool.js';
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
  /** false: never start the chain indexer in this process (tests drive it themselves) */
  indexer?: boolean;
}

export async function boot(config: Config, logger: Logger, opts: BootOptions = {}): Promise<Running> {
  // The database is closed here only if boot opened it (tests pass their own).
  const ownsDb = !opts.db;
  const db = opts.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize }));
  let signatures: SignatureVerifier | undefined;
  let events: EventBus | undefined;
  let stopIndexer = async () => {};
  try {
    const migrations = await migrate(db.sql);
    logger.info({ database: db.describe, applied: migrations.applied, alreadyApplied: migrations.alreadyApplied.length }, 'database ready');
    signatures = createSignatureVerifier(config.signatureWorkers, {
      onWorkerError: (err) => logger.error({ err }, 'signature worker failed; the order was verified on the main thread'),
    });
    events = createEventBus({ redisUrl: config.redisUrl });
    // One "now" for the whole process: the later of the wall clock and the latest indexed block.
    const clock = createMarketClock({
      wall: opts.now ?? (() => new Date()),
      readLatestBlockSeconds: async () => {
        const [row] = await db.sql.query<{ s: string | null }>(LATEST_BLOCK_SECONDS_SQL);
        return row?.s == null ? null : Number(row.s);
      },
      // without RPC_URL no indexer can be moving it: read once at boot, never per request
      refreshMs: config.rpcUrl ? 1000 : Number.POSITIVE_INFINITY,
      onError: (err) => logger.warn({ err }, 'could not read the latest indexed block time'),
    });
    await clock.refresh();
    const indexerRuntime = createIndexerRuntime(config.indexer.confirmations);
    const services = createServices({
      indexerRuntime,
      events,
      db,
      config,
      network: config.network,
      chain: config.rpcUrl ? createChainReader(config.rpcUrl, config.network) : null,
      now: clock.now,
      onInternalError: (err) => logger.error({ err }, 'unexpected error behind a REST route'),
      signatures,
    });
    const freshEmbedded = db.kind === 'pglite' && migrations.alreadyApplied.length === 0 && migrations.applied.length > 0;
    if (freshEmbedded && config.seed && (await db.prisma.collection.count()) === 0) {
      const t0 = performance.now();
      const summary = await seedDemo(services);
      logger.info({ ...summary, ms: Math.round(performance.now() - t0) }, 'demo marketplace seeded (SEED=0 to skip)');
    }
    if (!config.rpcUrl) logger.warn('RPC_URL is not set: checks that need chain state are skipped and the chain indexer is off');
    else if (config.indexer.enabled && opts.indexer !== false) stopIndexer = await startIndexer(config, logger, services, clock, indexerRuntime);
    const yoga = createApp(services, config, logger, { collectDefaultMetrics: opts.collectDefaultMetrics });
    const verifier = signatures;
    const bus = events;
    return {
      db,
      services,
      yoga,
      close: async () => {
        await stopIndexer();
        await verifier.close();
        await bus.close();
        if (ownsDb) await db.close();
      },
    };
  } catch (err) {
    await stopIndexer().catch(() => {});
    await signatures?.close().catch(() => {});
    await events?.close().catch(() => {});
    if (ownsDb) await db.close().catch(() => {});
    throw err;
  }
}

/** The indexer in the service process: one instance indexes at a time (advisory lock), the others wait. */
async function startIndexer(config: Config, logger: Logger, services: Services, clock: MarketClock, runtime: IndexerRuntime): Promise<() => Promise<void>> {
  const provider = createIndexerProvider(config.rpcUrl!, config.network.chainId);
  const { startBlock, confirmations, batchSize, pollMs } = config.indexer;
  const start = startBlock === 'latest' ? Math.max(0, (await provider.getBlockNumber()) - confirmations) : startBlock;
  const indexer = createIndexer({
    db: services.deps.db,
    provider,
    network: config.network,
    startBlock: start,
    confirmations,
    batchSize,
    now: services.now,
    onBlockTime: clock.observeBlockTime,
    runtime,
    logger,
    onEvent: (e) => publishIndexerEvent(services.deps.events, e, services.now()),
  });
  indexer.start(pollMs);
  logger.info({ startBlock: start, confirmations, batchSize, pollMs }, 'chain indexer running (INDEXER=off to disable)');
  return async () => {
    await indexer.stop();
    provider.destroy();
  };
}
