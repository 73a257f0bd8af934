// Listens. Everything else is in app.ts and yoga.ts. In its first moment it starts the embedded
// database's thread (a restart: src/db/open-database-early.ts), then loads only the configuration
// and the logger before its first log line; the application (GraphQL schema, Prisma) is imported
// after it, while the database opens, so a start says what it is doing from the first moment and
// times every step.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { openDatabaseEarly, startDatabaseEarly } from './db/open-database-early.js';

const USAGE = `usage: npm start            (node dist/server.js)
Serves GraphQL on /graphql, the v1 REST API on /api/v1, /healthz, /readyz and /metrics.
Configured by environment variables only (see docs/configuration.md), e.g.
  PORT=4000 DATA_DIR=./data            embedded database (default)
  DATABASE_URL=postgresql://...        PostgreSQL; DATABASE_WAIT_SECONDS=forever waits for it at boot
  SHUTDOWN_TIMEOUT_MS=8000             how long SIGTERM lets in-flight requests finish`;

const { values: flags } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, strict: false });
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}

// Before anything else loads: PostgreSQL boots on the second core from here on.
const early = startDatabaseEarly(process.env);
// node:http too (about 7 ms to load here): after the thread has started, not before.
const [{ createServer }, { loadConfigOrExit }, { createLogger }, { answerClientErrorsInEnvelope }, { describeStartupFailure }, { createStartupSteps }] = await Promise.all([
  import('node:http'),
  import('./config-or-exit.js'),
  import('./logger.js'),
  import('./http/client-error.js'),
  import('./startup-failure.js'),
  import('./startup-steps.js'),
]);
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const steps = createStartupSteps(logger);
logger.info({ pid: process.pid, node: process.version, sinceStartMs: steps.sinceStart() }, 'starting');

try {
  // The database opens (on its own thread, or over the network) while the modules load.
  const opening = openDatabaseEarly(config, logger, steps, early);
  const [{ boot }, { createGraphqlWebSocketServer }] = await steps.run('load modules', () => Promise.all([import('./app.js'), import('./http/graphql-ws.js')]));
  const running = await boot(config, logger, { collectDefaultMetrics: true, steps, timeFloorsEveryMs: 5000, rankingKeysEveryMs: 2000, opening });
  let draining = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // While draining, answer what arrives on open keep-alive connections and close them after.
    if (draining) res.setHeader('connection', 'close');
    running.handle(req, res);
  });
  answerClientErrorsInEnvelope(server);
  // GraphQL over WebSocket (graphql-ws) on the same path and port as HTTP and SSE.
  const graphqlWs = createGraphqlWebSocketServer(running.yoga, config, logger, running.rateLimit);
  server.on('upgrade', graphqlWs.handleUpgrade);
  await steps.run('listen', () => listen(server, config.port, config.host));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  logger.info(
    { port, readyMs: steps.sinceStart() },
    `ready in ${steps.sinceStart()} ms: http://localhost:${port}  (GraphQL /graphql, REST /api/v1, /healthz, /readyz, /metrics)`,
  );

  // Drain: stop accepting, end subscriptions politely, let in-flight requests finish
  // within SHUTDOWN_TIMEOUT_MS, then stop the indexer (its lease), the workers and the database.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    draining = true;
    const t0 = performance.now();
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down: draining in-flight requests');
    // A last resort if something below hangs: never outlive the bound by much.
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 1500).unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // server.close() only closes the connections idle at that moment; a keep-alive connection
    // whose request (or subscription) finishes later would otherwise linger until its timeout.
    const reaper = setInterval(() => server.closeIdleConnections(), 50);
    // WebSockets: no new connection or operation from now; each closes with 1001 once idle (its
    // subscriptions end with the SSE streams just below); server.close() waits for them.
    void graphqlWs.drain(config.shutdownTimeoutMs);
    await running.endSubscriptions();
    const drained = await Promise.race([closed.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), config.shutdownTimeoutMs).unref())]);
    clearInterval(reaper);
    if (!drained) {
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'requests still running after SHUTDOWN_TIMEOUT_MS; closing their connections');
      server.closeAllConnections();
    }
    await running.close();
    logger.info({ ms: Math.round(performance.now() - t0) }, 'stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
} catch (err) {
  const line = describeStartupFailure(err, config);
  if (!line) throw err;
  logger.fatal(line);
  process.exit(1);
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
