// A second instance's media worker in a process of its own, for the kill -9 test: argv[2] is the
// PostgreSQL URL; it prints "claiming" and drains the queue (leases of LEASE_MS) until killed.
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createContentFetcher } from '../../src/services/metadata-fetch/index.js';
import { createMediaService } from '../../src/services/media/index.js';
import { createMediaWorker } from '../../src/services/media/media-worker.js';

const LEASE_MS = 1500;

const [, , databaseUrl] = process.argv;
const db = await openDatabase({ databaseUrl: databaseUrl!, poolSize: 2 });
const media = createMediaService({ db, config: loadConfig({ DATABASE_URL: databaseUrl }) });
const fetcher = createContentFetcher({
  ipfsGateways: [],
  arweaveGateway: 'https://arweave.invalid',
  allowPrivateTargets: true,
  timeoutMs: 60_000,
  maxBytes: 4 * 1024 * 1024,
  maxRedirects: 0,
  perHostConcurrency: 4,
  perHostIntervalMs: 0,
  retries: 0,
});
const worker = createMediaWorker(media, fetcher, { concurrency: 1, leaseMs: LEASE_MS, instanceId: 'doomed' });
console.log('claiming');
await worker.runOnce();
