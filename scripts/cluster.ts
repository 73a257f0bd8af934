// npm run cluster -- --instances 3 [--base-port 4001] [--log-dir .cluster]
// npm run cluster -- stop [--log-dir .cluster]
//
// Starts N gateway instances on the PostgreSQL in DATABASE_URL (and the Redis in REDIS_URL, for
// live events and shared rate limits across them), waits until each answers /readyz, prints
// their addresses and stays in the foreground; Ctrl-C (or `npm run cluster -- stop` from another
// shell) stops them cleanly. Any other variable of the service (RPC_URL, INDEXER, ...) is passed
// through to every instance. Put a load balancer in front of the printed ports (docs/operations.md, "Deploying").
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, stopRecordedCluster, REPO_ROOT } from './cluster/start-cluster.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    instances: { type: 'string', short: 'n', default: '3' },
    'base-port': { type: 'string', default: '4001' },
    'log-dir': { type: 'string', default: '.cluster' },
  },
});
const logDir = path.resolve(REPO_ROOT, values['log-dir']!);

if (positionals[0] === 'stop') {
  const n = stopRecordedCluster(logDir);
  console.log(`sent SIGTERM to ${n} instance(s) recorded in ${path.join(logDir, 'cluster.json')}`);
  process.exit(0);
}

const instances = Number(values.instances);
const basePort = Number(values['base-port']);
if (!Number.isInteger(instances) || instances < 1 || instances > 64) {
  console.error('--instances must be a whole number from 1 to 64');
  process.exit(2);
}
if (!process.env.DATABASE_URL) {
  console.error('DATABASE_URL is required: every instance must share one PostgreSQL (the embedded database lives inside one process)');
  process.exit(2);
}
if (!process.env.REDIS_URL) console.warn('REDIS_URL is not set: live events and rate limits stay per instance');

const started = performance.now();
const cluster = await startCluster({ instances, basePort, logDir, env: {} });
console.log(`${instances} instance(s) ready in ${Math.round(performance.now() - started)} ms (logs in ${logDir}):`);
for (const i of cluster.instances) console.log(`  #${i.index}  ${i.url}  pid ${i.pid}  ${path.relative(process.cwd(), i.logFile)}`);
console.log('Ctrl-C or `npm run cluster -- stop` stops them.');

let stopping = false;
const poll = setInterval(() => {
  for (const i of cluster.instances) if (i.exited && !stopping) console.error(`instance #${i.index} (port ${i.port}) exited; see ${i.logFile}`);
  if (cluster.instances.every((i) => i.exited)) void shutdown('all instances exited');
}, 1000);

async function shutdown(reason: string) {
  if (stopping) return;
  stopping = true;
  clearInterval(poll);
  console.log(`stopping (${reason})...`);
  await cluster.stop();
  console.log('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
