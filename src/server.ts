// Listens. Everything else is in app.ts and yoga.ts.
import { createServer } from 'node:http';
import { boot } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { answerClientErrorsInEnvelope } from './http/client-error.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger(config.logLevel);
const running = await boot(config, logger, { collectDefaultMetrics: true });
const server = createServer(running.yoga);
answerClientErrorsInEnvelope(server);
server.listen(config.port, config.host, () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  logger.info(`serving on http://localhost:${port}  (GraphQL /graphql, REST /api/v1, /healthz, /readyz, /metrics)`);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  server.close();
  server.closeAllConnections();
  await running.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
