// kill -9 of an instance while it fetches an image: a worker in another process claims the source
// (its host holds the answer), is killed with SIGKILL mid-fetch, and this process's worker takes
// the source over once the lease runs out and stores it. PostgreSQL only: two processes share the
// database.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { createContentFetcher } from '../../../src/services/metadata-fetch/index.js';
import { createMediaService } from '../../../src/services/media/index.js';
import { createMediaWorker } from '../../../src/services/media/media-worker.js';
import { noisyPng } from '../../fixtures/media-images.js';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../../helpers/test-database.js';
import { startServer, type LocalServer } from '../metadata-fetch/local-servers.js';

const skipReason = TEST_DATABASE_URL ? null : 'set TEST_DATABASE_URL (a PostgreSQL server): two processes share one database';

describe.skipIf(skipReason)(`media sources across a kill -9 of the fetching instance${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let db: Database;
  let drop = async () => {};
  let url = '';
  let server: LocalServer;
  let child: ChildProcess | undefined;
  let asked!: Promise<void>;

  beforeAll(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    url = created.url;
    db = await openDatabase({ databaseUrl: url, poolSize: 4 });
    await migrate(db.sql);
    const png = await noisyPng(300, 200, 8);
    let first = true;
    let onAsked!: () => void;
    asked = new Promise((resolve) => (onAsked = resolve));
    // the first request (the doomed instance's) is never answered; later ones are
    server = await startServer((_req, res) => {
      if (first) {
        first = false;
        onAsked();
        return;
      }
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await server?.close();
    await db?.close();
    await drop();
  });

  it('lets another instance take the source over once the dead one\'s lease runs out', async () => {
    const media = createMediaService({ db, config: loadConfig({ DATABASE_URL: url }) });
    const source = `${server.origin}/logo.png`;
    await media.enqueueMediaSource(source, 'logo');
    child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/media-worker-child.ts', url], { stdio: ['ignore', 'pipe', 'inherit'] });
    await asked;
    // it holds the lease, mid-fetch
    expect(await db.sql.query(`SELECT lease_owner FROM media_sources`)).toEqual([{ lease_owner: 'doomed' }]);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));

    const fetcher = createContentFetcher({
      ipfsGateways: [],
      arweaveGateway: 'https://arweave.invalid',
      allowPrivateTargets: true,
      timeoutMs: 5000,
      maxBytes: 4 * 1024 * 1024,
      maxRedirects: 0,
      perHostConcurrency: 4,
      perHostIntervalMs: 0,
      retries: 0,
    });
    const survivor = createMediaWorker(media, fetcher, { concurrency: 1, leaseMs: 60_000, instanceId: 'survivor' });
    // nothing to take while the lease holds
    expect(await survivor.runOnce()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await survivor.runOnce()).toBe(1);
    await survivor.stop();
    const state = await media.mediaStatusForUrl(source);
    expect(state).toMatchObject({ status: 'STORED', errorCode: null });
    expect((await media.serveVariant(state.sha256!, 'w1024')).found).toBe(true);
    expect(await db.sql.query(`SELECT count(*)::int AS n FROM media_variants WHERE sha256 = $1`, [state.sha256])).toEqual([{ n: 3 }]);
    expect(server.seen).toHaveLength(2);
  });
});
