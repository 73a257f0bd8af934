// Real HTTP servers on 127.0.0.1 for the fetcher tests; each records what it was asked and closes
// every connection on close (a server that never answers would otherwise hold close() open).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
  /** the client's port: the same for requests over one kept-alive connection */
  remotePort: number | undefined;
}

export interface LocalServer {
  port: number;
  /** http://127.0.0.1:port */
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<LocalServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers, at: performance.now(), remotePort: req.socket.remotePort });
    void Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves after ms. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
