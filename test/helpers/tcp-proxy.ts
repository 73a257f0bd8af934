// A TCP proxy a test controls, in front of a shared server (PostgreSQL, Redis) that must never be
// stopped: 'forward' passes bytes; 'hang' keeps every socket open and silently drops bytes both
// ways (a stuck disk, a partition); 'refuse' stops listening and resets every connection, so
// new connections are refused. Back to 'forward' and it serves again on the same port.
import net from 'node:net';

export type ProxyMode = 'forward' | 'hang' | 'refuse';

export interface TcpProxy {
  port: number;
  mode: ProxyMode;
  setMode(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const onConnection = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (b) => {
      if (mode === 'forward') upstream.write(b);
    });
    upstream.on('data', (b) => {
      if (mode === 'forward') client.write(b);
    });
  };
  let server = net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const listening = () => server.listening;

  const proxy: TcpProxy = {
    port,
    get mode() {
      return mode;
    },
    async setMode(next) {
      mode = next;
      if (next === 'refuse') {
        for (const p of pairs) {
          p.client.resetAndDestroy();
          p.upstream.destroy();
        }
        pairs.clear();
        if (listening()) await new Promise<void>((resolve) => server.close(() => resolve()));
      } else if (!listening()) {
        server = net.createServer(onConnection);
        await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      }
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      pairs.clear();
      if (listening()) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
