// The exactly-once bench (bench/exactly-once.ts) in short: ~30 s of a randomized market on a local
// EVM, two built instances on one PostgreSQL database and a private redis-server, one SIGTERM
// restart, one kill -9 and one Redis outage, while four marketEvents clients (SSE and graphql-ws)
// drop and switch instances at random. Each must have received exactly the log's ids its filter
// selects, once each, in the log's order.
import { describe, expect, it } from 'vitest';
import { runExactlyOnce } from '../../bench/exactly-once/harness.js';
import { printExactlyOnceReport } from '../../bench/exactly-once/report.js';
import { redisServerMissing } from '../helpers/private-redis.js';
import { TEST_DATABASE_URL, createPostgresDatabase } from '../helpers/test-database.js';

const skipReason = !TEST_DATABASE_URL ? 'set TEST_DATABASE_URL (a PostgreSQL server): the instances share one database' : redisServerMissing;

describe.skipIf(skipReason)(`exactly-once market event streams${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('every client receives every id its filter selects once, in the log order, through restarts, kill -9, a Redis outage and random drops', async () => {
    const db = await createPostgresDatabase();
    try {
      const lines: string[] = [];
      const report = await runExactlyOnce({ databaseUrl: db.url, durationMs: 30_000, seed: 7, meanDropMs: 4000, log: (l) => lines.push(l) });
      printExactlyOnceReport(report, 0.5, (l) => lines.push(l));
      const summary = lines.join('\n');
      expect(new Set(report.outages.map((o) => o.kind)), summary).toEqual(new Set(['SIGTERM', 'kill -9', 'Redis down']));
      expect(report.logEvents, summary).toBeGreaterThan(50);
      for (const c of report.clients) {
        expect({ client: c.spec.name, ...c.verdict, idMismatches: c.stats.idMismatches }, summary).toMatchObject({ exact: true, duplicates: 0, missing: 0, foreign: 0, idMismatches: 0 });
        expect(c.stats.connects, `${c.spec.name} reconnected`).toBeGreaterThan(1);
      }
      expect(report.met).toBe(true);
    } finally {
      await db.drop();
    }
  }, 240_000);
});
