// PostgreSQL unreachable at boot: a bounded retry, then one line that says what to do;
// or, when asked, waiting until it comes (here: a TCP proxy to the test server opened late).
import { createServer, connect, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { waitForDatabase } from '../../src/db/wait-for-database.js';
import { StartupError } from '../../src/startup-error.js';
import { TEST_DATABASE_URL } from '../helpers/test-database.js';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

describe('PostgreSQL unreachable at boot', () => {
  it('gives up after the bounded wait with one actionable line', async () => {
    const port = await freePort();
    const db = await openDatabase({ databaseUrl: `postgresql://postgres@127.0.0.1:${port}/nothing`, poolSize: 1 });
    const retries: number[] = [];
    const t0 = performance.now();
    try {
      await expect(waitForDatabase(db, { seconds: 1, onRetry: (n) => retries.push(n) })).rejects.toThrow(StartupError);
      const elapsed = performance.now() - t0;
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(5000);
      expect(retries.length).toBeGreaterThanOrEqual(2);
      const err = await waitForDatabase(db, { seconds: 0 }).catch((e: Error) => e);
      expect((err as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*unreachable.*ECONNREFUSED.*DATABASE_WAIT_SECONDS=forever`));
      expect((err as Error).message).not.toContain('\n');
    } finally {
      await db.close();
    }
  });

  it.skipIf(!TEST_DATABASE_URL)('waits for a database that comes up later (set TEST_DATABASE_URL to run)', async () => {
    const target = new URL(TEST_DATABASE_URL!);
    const port = await freePort();
    const url = new URL(TEST_DATABASE_URL!);
    url.host = `127.0.0.1:${port}`;
    const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
    try {
      // The "database" (a proxy to the real one) starts listening 1.5 s after the wait began.
      setTimeout(() => {
        const proxy = createServer((client) => {
          const upstream = connect(Number(target.port || 5432), target.hostname);
          client.pipe(upstream).pipe(client);
          client.on('error', () => upstream.destroy());
          upstream.on('error', () => client.destroy());
        });
        proxy.listen(port, '127.0.0.1');
        servers.push(proxy);
      }, 1500);
      const t0 = performance.now();
      await waitForDatabase(db, { seconds: Infinity });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(1400);
      expect((await db.sql.query<{ one: number }>('SELECT 1 AS one'))[0]!.one).toBe(1);
    } finally {
      await db.close();
    }
  });
});
