// A test app on a real port, wired as src/server.ts wires it: the HTTP handler, the envelope for
// requests Node cannot parse, and GraphQL over WebSocket on the 'upgrade' event. For clients that
// need a socket (graphql-ws, Apollo Client, the graphql-http audit) rather than yoga.fetch.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../src/logger.js';
import { answerClientErrorsInEnvelope } from '../../src/http/client-error.js';
import { createGraphqlWebSocketServer, type GraphqlWebSocketServer } from '../../src/http/graphql-ws.js';
import type { TestApp } from './test-app.js';

export interface ListeningApp {
  server: Server;
  ws: GraphqlWebSocketServer;
  /** http://127.0.0.1:port */
  url: string;
  /** ws://127.0.0.1:port/graphql */
  wsUrl: string;
  /** server.ts's drain for WebSockets: refuse new ones, close the open ones with 1001 */
  drain(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function listen(app: Pick<TestApp, 'yoga' | 'handle' | 'config' | 'rateLimit'>): Promise<ListeningApp> {
  const server = createServer((req, res) => app.handle(req, res));
  answerClientErrorsInEnvelope(server);
  const ws = createGraphqlWebSocketServer(app.yoga, app.config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), app.rateLimit);
  server.on('upgrade', ws.handleUpgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let drained: Promise<void> | null = null;
  const drain = (timeoutMs = 2000) => (drained ??= ws.drain(timeoutMs));
  return {
    server,
    ws,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    drain,
    async close() {
      await drain();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
