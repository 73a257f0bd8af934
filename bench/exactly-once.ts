// Exactly once across everything that can go wrong for a stream: clients of
// Subscription.marketEvents (SSE firehose, SSE filtered by a collection, graphql-ws with `after`)
// disconnect at random, switch instances, live through SIGTERM and kill -9 restarts of an
// instance and a Redis outage, during a randomized market on a local EVM, and must receive every
// event id their filter selects from the log exactly once, in the log's order. The client
// deduplicates nothing. Prints the counts, the outages, the longest delay and a verdict.
//
//   npm run bench:exactly-once -- [--minutes 10] [--seed 1] [--drop-ms 8000] [--pg-url postgresql://...]
//
// --drop-ms: the mean time between a client's own disconnects.
//
// Harness: bench/exactly-once/harness.ts (also run for ~30 s by test/events/exactly-once.test.ts).
import { parseArgs } from 'node:util';
import { runExactlyOnce } from './exactly-once/harness.js';
import { printExactlyOnceReport } from './exactly-once/report.js';
import { createBenchDatabase, machine, runBench } from './helpers.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
    'drop-ms': { type: 'string', default: '8000' },
    'pg-url': { type: 'string' },
  },
});
const MINUTES = Number(args.minutes);

await runBench(async () => {
  const db = await createBenchDatabase('postgres', { prefix: 'exactlyonce', pgUrl: args['pg-url'] });
  console.log(`Exactly-once bench: ${MINUTES} min randomized market, 2 built instances on ${db.describe}, a private redis-server, a local EVM; ${machine()}`);
  const report = await runExactlyOnce({ databaseUrl: db.url!, durationMs: MINUTES * 60_000, seed: Number(args.seed), meanDropMs: Number(args['drop-ms']), log: (l) => console.log(l) });
  printExactlyOnceReport(report, MINUTES, (l) => console.log(l));
  if (!report.met) process.exitCode = 1;
});
