// Boot: open the database, apply migrations, seed the embedded demo on first creation, build
// the services and the HTTP app. Used by the server, the CLI commands and the tests. Each step
// is timed and logged through `steps` (src/startup-steps.ts) when the caller passes them.
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cryptoBackendInfo } from './domain/crypto-backend.js';
import { DEMO_API_KEY, isDemoDatabaseDir, withDemoApiKey } from './demo/demo-api-key.js';
import { createEventBus, type EventBus } from './events/event-bus.js';
import { publishIndexerEvent } from './events/from-indexer.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { embeddedDatabaseDir } from './db/embedded-dir.js';
import { migrate } from './db/migrate.js';
import { openReadReplica, type ReadReplica } from './db/read-replica.js';
import { DEFAULT_TEMPLATE_DIR } from './db/template-dir.js';
import { waitForDatabase } from './db/wait-for-database.js';
import type { Logger } from './logger.js';
import { silentSteps, type StartupSteps } from './startup-steps.js';
import { createIndexerRuntime, type IndexerRuntime } from './chain/indexer/indexer-state.js';
import { startKeptRankingKeys } from './services/kept-ranking-keys.js';
import { startEventLogRetention } from './services/event-log-retention.js';
import { startTraitFloorEvents } from './services/trait-floor-events.js';
import { startWebhookWorker } from './services/webhook-runtime.js';
import { startMetadataWorker } from './services/metadata-runtime.js';
import { startMediaWorker } from './services/media/media-runtime.js';
import { createServices, type Services } from './services/index.js';
import { createMarketClock, LATEST_BLOCK_SECONDS_SQL, type MarketClock } from './services/market-clock.js';
import { createSignatureVerifier, type SignatureVerifier } from './services/signature-pool.js';
import type { RateLimiter } from './http/rate-limit.js';
import { createApp, type App } from './yoga.js';

export interface Running {
  db: Database;
  services: Services;
  yoga: App;
  /** node:http's request handler: the read lane, then yoga (src/http/read-lane.ts) */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** the rate limiter of every API request (HTTP and WebSocket); null when limits are off */
  rateLimit: RateLimiter | null;
  /** ends open subscriptions (SSE streams complete) without closing anything else */
  endSubscriptions(): Promise<void>;
  close(): Promise<void>;
}

export interface BootOptions {
  /** an already opened database (tests); the caller closes it */
  db?: Database;
  /** a database the caller started opening (and, for PostgreSQL, connecting): boot owns it (src/db/open-database-early.ts) */
  opening?: Promise<Database>;
  now?: () => Date;
  collectDefaultMetrics?: boolean;
  /** false: never start the chain indexer in this process (tests drive it themselves) */
  indexer?: boolean;
  /** false: no metadata worker (tests that drive it themselves); it runs only with RPC_URL anyway */
  metadataWorker?: boolean;
  /** false: no media worker (tests that drive it themselves); MEDIA=false turns it off too */
  mediaWorker?: boolean;
  /** logs each startup step with its duration (server); silent by default */
  steps?: StartupSteps;
  /** the prepared demo database copied by a first embedded start; null: always seed */
  demoTemplateDir?: string | null;
  /**
   * Milliseconds between floor-history catch-ups (listings reaching startTime or passing endTime)
   * when no indexer runs in this process (the indexer does it on every tick); off when unset.
   */
  timeFloorsEveryMs?: number;
  /** Milliseconds between refreshes of the kept ranking keys (src/services/kept-ranking-keys.ts); off when unset. */
  rankingKeysEveryMs?: number;
}

export async function boot(configured: Config, logger: Logger, opts: BootOptions = {}): Promise<Running> {
  let config = configured;
  // The database is closed here only if boot opened it (tests pass their own).
  const ownsDb = !opts.db;
  const steps = opts.steps ?? silentSteps;
  const now = opts.now ?? (() => new Date());
  // First start of a persistent embedded database: build it whole (template copy or seed) in a
  // staging folder, so a kill midway leaves nothing half done (src/demo/demo-data-dir.ts).
  const embeddedOnDisk = !opts.db && !config.databaseUrl && config.dataDir !== 'memory';
  if (embeddedOnDisk && config.seed) {
    const templateDir = opts.demoTemplateDir === undefined ? DEFAULT_TEMPLATE_DIR : (opts.demoTemplateDir ?? undefined);
    // Present on every start but the first: then the demo code (and the wallets it derives) stays unloaded.
    const demo = await steps.run(
      'demo data',
      async () =>
        existsSync(embeddedDatabaseDir(config.dataDir))
          ? { source: 'present' as const, summary: undefined }
          : (await import('./demo/demo-data-dir.js')).ensureEmbeddedDemo({ dataDir: config.dataDir, config, now, templateDir }),
      (r) => ({ source: r.source, ...r.summary }),
    );
    if (demo.source === 'seeded') logger.info('demo marketplace seeded (SEED=0 to skip; `npm run build` prepares a template that makes this first start fast)');
  }
  // The demo the service seeded for itself (on disk, marked so on every start; or in memory,
  // seeded below) has an API key of its own unless keys are configured (src/demo/demo-api-key.ts).
  const ownDemo = embeddedOnDisk
    ? isDemoDatabaseDir(embeddedDatabaseDir(config.dataDir))
    : !opts.db && !config.databaseUrl && config.dataDir === 'memory' && config.seed;
  config = withDemoApiKey(config, ownDemo);
  if (config !== configured) {
    logger.info({ apiKey: DEMO_API_KEY }, `the demo marketplace's API key (X-Looks-Api-Key, for webhooks: docs/webhooks.md) is ${DEMO_API_KEY}; API_KEYS replaces it`);
  }
  const db =
    opts.db ??
    (opts.opening
      ? await opts.opening
      : await steps.run('open database', () => openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, timeouts: config.databaseTimeouts })));
  let signatures: SignatureVerifier | undefined;
  let events: EventBus | undefined;
  let replica: ReadReplica | undefined;
  let stopIndexer = async () => {};
  try {
    if (db.kind === 'postgres' && ownsDb && !opts.opening) {
      await steps.run('connect', () =>
        waitForDatabase(db, {
          seconds: config.databaseWaitSeconds,
          onRetry: (attempt, reason) => logger.warn({ attempt, reason }, `waiting for ${db.describe}`),
        }),
      );
    }
    // First what needs no database, then the database: on a restart of the embedded database it is
    // still booting on its own thread (db.ready, src/db/open-database-early.ts) and the main thread
    // would otherwise idle. Nothing built here sends a statement before the migrations below.
    const crypto = cryptoBackendInfo();
    logger.info(
      { crypto: crypto.backend, ...(crypto.nativeError ? { nativeError: crypto.nativeError } : {}), signatureWorkers: config.signatureWorkers },
      crypto.backend === 'native' ? 'order hashing and signature recovery: native (keccak, libsecp256k1)' : 'order hashing and signature recovery: pure JS (the native addons did not load)',
    );
    signatures = await steps.run('signature workers', () => createSignatureVerifier(config.signatureWorkers, {
      onWorkerError: (err) => logger.error({ err }, 'signature worker failed; the order was verified on the main thread'),
    }));
    events = createEventBus({ redisUrl: config.redisUrl, logger });
    if (config.databaseReplica) {
      if (db.kind !== 'postgres') throw new Error('DATABASE_REPLICA_URL needs a PostgreSQL primary');
      const { url, maxLagMs, probeMs } = config.databaseReplica;
      replica = await openReadReplica({ url, maxLagMs, probeMs, primary: db, poolSize: config.databasePoolSize, logger });
      logger.info({ replica: replica.db.describe, ...replica.state(), maxLagMs }, 'read replica configured');
    }
    // One "now" for the whole process: the later of the wall clock and the latest indexed block.
    const clock = createMarketClock({
      wall: now,
      readLatestBlockSeconds: async () => {
        const [row] = await db.sql.query<{ s: string | null }>(LATEST_BLOCK_SECONDS_SQL);
        return row?.s == null ? null : Number(row.s);
      },
      // without RPC_URL no indexer can be moving it: read once at boot, never per request
      refreshMs: config.rpcUrl ? 1000 : Number.POSITIVE_INFINITY,
      onError: (err) => logger.warn({ err }, 'could not read the latest indexed block time'),
    });
    const indexerRuntime = createIndexerRuntime(config.indexer.confirmations);
    const services = createServices({
      indexerRuntime,
      events,
      db,
      config,
      network: config.network,
      // loaded only with RPC_URL: the reader is what brings ethers into the process
      chain: config.rpcUrl ? (await import('./chain/chain-reader.js')).createChainReader(config.rpcUrl, config.network) : null,
      now: clock.now,
      onInternalError: (err) => logger.error({ err }, 'unexpected error behind a REST route'),
      signatures,
      replica,
    });
    const indexerOn = Boolean(config.rpcUrl && config.indexer.enabled && opts.indexer !== false);
    // The indexer's position is detail only: a lagging indexer does not make reads unready.
    // lastError stays out of this public answer (it can name the RPC host); the log has it.
    services.health.register(
      'indexer',
      async () => {
        const { lastError: _omitted, ...position } = await services.indexer.indexerStatus({ maxWaitMs: 1000 });
        return { status: indexerOn ? 'on' : 'off', ...position };
      },
      { required: false },
    );
    const { yoga, handle, rateLimit } = await steps.run('http app', () => createApp(services, config, logger, { collectDefaultMetrics: opts.collectDefaultMetrics }));

    if (db.ready) await db.ready;
    const migrations = await steps.run('migrations', () => migrate(db.sql), (m) => ({ applied: m.applied.length, alreadyApplied: m.alreadyApplied.length }));
    logger.info({ database: db.describe, applied: migrations.applied, alreadyApplied: migrations.alreadyApplied.length }, 'database ready');
    await clock.refresh();
    // the indexed block every response is stamped with (src/services/indexed-block.ts)
    await services.indexedBlock.refresh();
    services.indexedBlock.start();
    // In memory there is nothing to keep atomic: seed the new database in place.
    const freshInMemory = ownsDb && db.kind === 'pglite' && !embeddedOnDisk && migrations.alreadyApplied.length === 0 && migrations.applied.length > 0;
    if (freshInMemory && config.seed && (await db.prisma.collection.count()) === 0) {
      await steps.run('demo data', async () => (await import('./demo/seed-demo.js')).seedDemo(services), (summary) => ({ source: 'seeded', ...summary }));
    }
    if (!config.rpcUrl) logger.warn('RPC_URL is not set: checks that need chain state are skipped and the chain indexer is off');
    else if (config.indexer.enabled && opts.indexer !== false) stopIndexer = await steps.run('chain indexer', () => startIndexer(config, logger, services, clock, indexerRuntime));
    // Without an indexer here nothing else writes the time-driven floor changes (src/db/floor-sql.ts):
    // every instance may run the catch-up, it is idempotent and serialised by the floor lock.
    const timeFloors =
      opts.timeFloorsEveryMs && !indexerOn
        ? setInterval(() => services.stats.catchUpTimeFloors().catch((err) => logger.warn({ err }, 'floor history catch-up failed')), opts.timeFloorsEveryMs).unref()
        : undefined;
    // every instance may run it: a run that finds the lock taken does nothing
    const rankingKeys = opts.rankingKeysEveryMs ? startKeptRankingKeys(services.keptRankingKeys, opts.rankingKeysEveryMs, logger) : undefined;
    const retention = startEventLogRetention(services.deps, logger);
    const traitFloors = startTraitFloorEvents(services.traitFloors, config.eventLog.traitFloorEveryMs, logger);
    const webhookWorker = startWebhookWorker(services, logger);
    const metadataWorker = opts.metadataWorker === false ? null : startMetadataWorker(services, logger);
    const mediaWorker = opts.mediaWorker === false ? null : startMediaWorker(services, logger);
    const verifier = signatures;
    const bus = events;
    const readReplica = replica;
    return {
      db,
      services,
      yoga,
      handle,
      rateLimit,
      endSubscriptions: async () => {
        // log streams first: new ones are refused from this moment, open ones end at once
        await services.eventStream.drain();
        await bus.endSubscriptions();
      },
      close: async () => {
        clearInterval(timeFloors);
        await rankingKeys?.stop();
        services.indexedBlock.stop();
        retention?.stop();
        await traitFloors?.stop();
        await webhookWorker?.stop();
        await metadataWorker?.stop();
        await mediaWorker?.stop();
        await services.eventStream.drain();
        await stopIndexer();
        await yoga.dispose(); // plugins' resources (the rate limiter's Redis client)
        await verifier.close();
        await bus.close();
        await readReplica?.close();
        if (ownsDb) await db.close();
      },
    };
  } catch (err) {
    await stopIndexer().catch(() => {});
    await signatures?.close().catch(() => {});
    await events?.close().catch(() => {});
    await replica?.close().catch(() => {});
    if (ownsDb) await db.close().catch(() => {});
    throw err;
  }
}

/** The indexer in the service process: one instance indexes at a time (advisory lock), the others wait. */
async function startIndexer(config: Config, logger: Logger, services: Services, clock: MarketClock, runtime: IndexerRuntime): Promise<() => Promise<void>> {
  // Loaded here, not at the top: a service without RPC_URL never needs the indexer's code.
  const [{ createIndexer }, { createIndexerProvider }] = await Promise.all([import('./chain/indexer/indexer.js'), import('./chain/indexer/indexer-provider.js')]);
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
    onCursor: services.indexedBlock.committed,
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
