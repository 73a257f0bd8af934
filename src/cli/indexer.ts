// The chain indexer on its own.
//
//   tsx src/cli/indexer.ts                  follow the chain until SIGINT/SIGTERM
//   tsx src/cli/indexer.ts --from N [--to M]  index blocks N..M (M: head - confirmations) and exit
//
// Reads the service configuration (loadConfig: RPC_URL, CHAIN_ID, addresses, DATABASE_URL, ...)
// including the indexer settings (src/config.ts):
//   INDEXER_START_BLOCK    first block when the database has no cursor yet; "latest" (default) = the
//                          head at first start (earlier history is then not indexed)
//   INDEXER_CONFIRMATIONS  blocks below the head left alone (default 3)
//   INDEXER_BATCH_SIZE     most blocks per eth_getLogs and per transaction (default 100)
//   INDEXER_POLL_MS        pause between polls once caught up (default 2000)
// A range shows a progress bar on a terminal and progress lines otherwise. With the embedded
// database, stop the server first: PGlite is one process.
import cliProgress from 'cli-progress';
import { createIndexer, type BackfillProgress } from '../chain/indexer/indexer.js';
import { createIndexerProvider } from '../chain/indexer/indexer-provider.js';
import { openDatabase } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { missingNetworkAddresses } from '../domain/networks.js';
import { createLogger } from '../logger.js';

import { parseCommand, runCommand } from './command.js';

const USAGE = `usage: npm run indexer [-- --from N [--to M]]
Without options: follows the chain until SIGINT/SIGTERM. With --from: indexes blocks N..M
(M defaults to the head minus INDEXER_CONFIRMATIONS) and exits.
Needs RPC_URL; reads CHAIN_ID, the *_ADDRESS variables, DATABASE_URL or DATA_DIR and
INDEXER_START_BLOCK, INDEXER_CONFIRMATIONS, INDEXER_BATCH_SIZE, INDEXER_POLL_MS.
With the embedded database, stop the server first (the data directory is locked).`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { values: args } = parseCommand({ usage: USAGE, options: { from: { type: 'string' }, to: { type: 'string' } } });
const blockArg = (name: string, v: string | undefined) => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) fail(`--${name} must be a block number`);
  return Number(v);
};
const from = blockArg('from', args.from);
const to = blockArg('to', args.to);
if (to !== undefined && from === undefined) fail('--to needs --from');

await runCommand(async (config) => {
  const settings = {
    INDEXER_START_BLOCK: config.indexer.startBlock,
    INDEXER_CONFIRMATIONS: config.indexer.confirmations,
    INDEXER_BATCH_SIZE: config.indexer.batchSize,
    INDEXER_POLL_MS: config.indexer.pollMs,
  };
  if (!config.rpcUrl) fail('RPC_URL is required');
  const missing = missingNetworkAddresses(config.network);
  if (missing.length) fail(`chain ${config.network.chainId}: missing ${missing.join(', ')} (set the *_ADDRESS variables)`);

  const logger = createLogger(config.logLevel);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: Math.min(config.databasePoolSize, 4) });
  const provider = createIndexerProvider(config.rpcUrl, config.network.chainId);

  try {
    await migrate(db.sql);
    const startBlock = settings.INDEXER_START_BLOCK === 'latest' ? Math.max(0, (await provider.getBlockNumber()) - settings.INDEXER_CONFIRMATIONS) : settings.INDEXER_START_BLOCK;
    const indexer = createIndexer({
      db,
      provider,
      network: config.network,
      startBlock,
      confirmations: settings.INDEXER_CONFIRMATIONS,
      batchSize: settings.INDEXER_BATCH_SIZE,
      now: () => new Date(),
      logger,
    });
    logger.info({ database: db.describe, chainId: config.network.chainId, startBlock, ...settings }, 'indexer starting');

    if (from !== undefined) {
      const last = to ?? (await provider.getBlockNumber()) - settings.INDEXER_CONFIRMATIONS;
      const total = Math.max(0, last - from + 1);
      const bar = process.stderr.isTTY
        ? new cliProgress.SingleBar(
            { format: 'blocks {bar} {percentage}% | {value}/{total} | {events} events | {rate} blocks/s | eta {eta_formatted}', stream: process.stderr },
            cliProgress.Presets.shades_classic,
          )
        : null;
      bar?.start(total, 0, { events: 0, rate: '0' });
      let lastLine = 0;
      const onProgress = (p: BackfillProgress) => {
        const done = p.current - p.from + 1;
        const rate = (done / Math.max(p.elapsedMs / 1000, 0.001)).toFixed(0);
        if (bar) bar.update(done, { events: p.events, rate });
        else if (performance.now() - lastLine > 5000 || p.current >= last) {
          lastLine = performance.now();
          logger.info({ block: p.current, to: last, done, total, events: p.events, blocksPerSecond: Number(rate) }, 'backfill progress');
        }
      };
      const result = await indexer.backfill(from, last, onProgress);
      bar?.stop();
      if (!result) logger.warn({}, 'another indexer holds the lock; nothing done');
      else logger.info({ cursor: result.cursor, events: result.events }, 'backfill done');
    } else {
      indexer.start(settings.INDEXER_POLL_MS);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      logger.info({}, 'indexer stopping');
      await indexer.stop();
    }
  } finally {
    provider.destroy();
    await db.close();
  }
});
