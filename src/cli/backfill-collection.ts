// Backfill of one collection's history: its NFT transfers (ownership, supply) and
// the sales of its fills, from a block up to where the live indexer started following it.
//
//   tsx src/cli/backfill-collection.ts <collection address> [--from N]
//   npm run backfill -- 0xabc... --from 12000000
//
// Queues the job (collection_backfills; registration through the API queues one automatically
// from INDEXER_BACKFILL_FROM_BLOCK). If a running service holds the indexer lease, it runs the
// job between its live batches and this command only follows the progress; otherwise this
// command takes the lease and runs it itself (live batches included, so the collection's start
// is known). Either way the live indexer is never stopped. Same settings as `npm run indexer`.
import cliProgress from 'cli-progress';
import { readBackfillJob, requestCollectionBackfill, type BackfillJob } from '../chain/indexer/collection-backfill.js';
import { createIndexer } from '../chain/indexer/indexer.js';
import { createIndexerProvider } from '../chain/indexer/indexer-provider.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { normalizeAddress } from '../domain/address.js';
import { missingNetworkAddresses } from '../domain/networks.js';
import { createLogger } from '../logger.js';
import { parseCommand, usageError } from './command.js';

const USAGE = `usage: npm run backfill -- <collection address> [--from N]
Indexes one collection's history (NFT transfers, the sales of its fills) from block N (default
INDEXER_BACKFILL_FROM_BLOCK, else 0) up to where the live indexer started following it. A running
service holding the indexer lease runs the job between its live batches; otherwise this command
runs it. Needs RPC_URL and the database settings of the service (docs/configuration.md).`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { values: args, positionals } = parseCommand({ usage: USAGE, options: { from: { type: 'string' } }, allowPositionals: true });
const collection = normalizeAddress(positionals[0]);
if (!collection) usageError(USAGE, positionals[0] === undefined ? 'a collection address is required' : `not an address: ${positionals[0]}`);
if (args.from !== undefined && !/^\d+$/.test(args.from)) usageError(USAGE, '--from must be a block number');

let config;
try {
  config = loadConfig();
} catch (err) {
  fail((err as Error).message);
}
if (!config.rpcUrl) fail('RPC_URL is required');
const missing = missingNetworkAddresses(config.network);
if (missing.length) fail(`chain ${config.network.chainId}: missing ${missing.join(', ')} (set the *_ADDRESS variables)`);
const from = args.from !== undefined ? Number(args.from) : (config.indexer.backfillFromBlock ?? 0);

const logger = createLogger(config.logLevel);
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: Math.min(config.databasePoolSize, 4) });
const provider = createIndexerProvider(config.rpcUrl, config.network.chainId);

function progressBar() {
  return process.stderr.isTTY
    ? new cliProgress.SingleBar({ format: 'blocks {bar} {percentage}% | {value}/{total} | eta {eta_formatted}', stream: process.stderr }, cliProgress.Presets.shades_classic)
    : null;
}

try {
  await migrate(db.sql);
  const [known] = await db.sql.query<{ address: string }>('SELECT address FROM collections WHERE address = $1', [collection]);
  if (!known) fail(`${collection} is not a registered collection (register it first: the live indexer must follow it)`);
  await requestCollectionBackfill(db.sql, collection, from);
  const startBlock = config.indexer.startBlock === 'latest' ? Math.max(0, (await provider.getBlockNumber()) - config.indexer.confirmations) : config.indexer.startBlock;
  const indexer = createIndexer({
    db,
    provider,
    network: config.network,
    startBlock,
    confirmations: config.indexer.confirmations,
    batchSize: config.indexer.batchSize,
    now: () => new Date(),
    logger,
  });
  const bar = progressBar();
  let started = false;
  let lastLine = 0;
  const show = (job: BackfillJob) => {
    if (job.toBlock === null) return;
    const total = Math.max(1, job.toBlock - job.fromBlock + 1);
    const done = Math.min(total, job.nextBlock - job.fromBlock);
    if (bar) {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    } else if (performance.now() - lastLine > 5000 || job.finished) {
      lastLine = performance.now();
      logger.info({ collection, from: job.fromBlock, to: job.toBlock, next: job.nextBlock, done, total }, 'backfill progress');
    }
  };
  const result = await indexer.backfillCollection(collection, (s) => {
    if (s.state !== 'none') show(s.job);
  });
  if (result === null) {
    // A service holds the lease and runs the job: follow it.
    logger.info({ collection, from }, 'the running indexer holds the lease and runs this backfill; following its progress');
    for (;;) {
      const job = await readBackfillJob(db.sql, collection);
      if (!job) fail('the backfill job disappeared');
      show(job);
      if (job.finished) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  bar?.stop();
  const job = await readBackfillJob(db.sql, collection);
  if (job?.finished) logger.info({ collection, from: job.fromBlock, to: job.toBlock }, 'backfill done');
  else logger.warn({ collection }, 'the live indexer has not reached this collection yet; the backfill stays queued and runs once it does');
} finally {
  provider.destroy();
  await db.close();
}
