// A client of Subscription.marketEvents that resumes the way docs/activity.md tells a bot to:
// over SSE with Last-Event-ID (the last `id:` field, as EventSource keeps it), over graphql-ws
// with `after` (the last eventId), each time from the last event it saw.
// It keeps every id it receives, in arrival order, duplicates included: it deduplicates nothing,
// so the check sees exactly what the service delivered. Chaos comes from outside (instances and
// Redis going away) and from here: the client drops its own connection at random, and on each
// reconnect may switch to the other instance.
import http from 'node:http';
import WebSocket from 'ws';
import type { prng } from '../../src/demo/prng.js';

export type Transport = 'sse' | 'ws';

export interface ClientSpec {
  name: string;
  transport: Transport;
  /** the stream filter (MarketEventStreamFilter), {} for the firehose */
  filter: Record<string, unknown>;
}

export interface ClientStats {
  /** every id received, in arrival order */
  ids: string[];
  /** performance.timeOrigin-based ms of each receipt, parallel to ids */
  at: number[];
  connects: number;
  /** drops the client chose */
  randomDrops: number;
  /** reconnects to the other instance */
  switches: number;
  /** streams the server ended or broke (drain, crash, refusal) */
  serverEnds: number;
  /** failed connection attempts (instance down, refusing while draining) */
  refused: number;
  /** frames whose SSE `id:` differed from the event's eventId */
  idMismatches: number;
  /** errors the service sent (GraphQL errors), by code */
  errors: Map<string, number>;
}

const QUERY = 'subscription($after: ID, $f: MarketEventStreamFilter) { marketEvents(after: $after, filter: $f) { eventId type } }';

export interface StreamClient {
  spec: ClientSpec;
  stats: ClientStats;
  /** stops the chaos and keeps the connection open (the final catch-up) */
  settle(): void;
  close(): void;
}

export interface ClientOptions {
  /** base URLs of the instances (http://127.0.0.1:port) */
  instances: string[];
  rnd: ReturnType<typeof prng>;
  /** mean ms between the client's own drops */
  meanDropMs: number;
  /** chance that a reconnect goes to the other instance */
  switchChance: number;
}

export function startStreamClient(spec: ClientSpec, opts: ClientOptions): StreamClient {
  const stats: ClientStats = { ids: [], at: [], connects: 0, randomDrops: 0, switches: 0, serverEnds: 0, refused: 0, idMismatches: 0, errors: new Map() };
  let instance = opts.rnd.int(0, opts.instances.length - 1);
  let closed = false;
  let chaos = true;
  let drop: (() => void) | null = null;
  let dropTimer: NodeJS.Timeout | null = null;
  let connectedOnce = false;

  const last = () => stats.ids.at(-1) ?? '0';
  /** what an EventSource would send as Last-Event-ID: the last `id:` field seen */
  let lastSseId = '0';
  const receive = (id: string) => {
    stats.ids.push(id);
    stats.at.push(performance.now());
  };
  const noteError = (code: string) => stats.errors.set(code, (stats.errors.get(code) ?? 0) + 1);

  function scheduleDrop() {
    if (dropTimer) clearTimeout(dropTimer);
    if (!chaos) return;
    const wait = -Math.log(1 - opts.rnd.next()) * opts.meanDropMs;
    dropTimer = setTimeout(() => {
      if (closed || !chaos) return;
      if (drop) {
        stats.randomDrops++;
        drop();
      }
      scheduleDrop();
    }, wait);
  }

  /** One connection; resolves when it ends, whoever ended it. */
  function connectSse(base: string): Promise<void> {
    return new Promise((resolve) => {
      const after = lastSseId;
      const body = JSON.stringify({ query: QUERY, variables: { after: connectedOnce ? null : after, f: spec.filter } });
      const headers: Record<string, string | number> = { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) };
      // first connection: `after` in the variables; every resume: the Last-Event-ID header
      if (connectedOnce) headers['last-event-id'] = after;
      const url = new URL('/graphql', base);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        drop = null;
        resolve();
      };
      let responded = false;
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent: false }, (res) => {
        responded = true;
        if (res.statusCode !== 200) {
          stats.refused++;
          res.resume();
          res.on('end', finish);
          res.on('error', finish);
          return;
        }
        stats.connects++;
        connectedOnce = true;
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let i;
          while ((i = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, i);
            buffer = buffer.slice(i + 2);
            const lines = frame.split('\n');
            const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
            if (event !== 'next') continue;
            // as EventSource does: any frame's id: field moves Last-Event-ID, an error's too
            const sseId = lines.find((l) => l.startsWith('id:'))?.slice(3).trim();
            if (sseId !== undefined) lastSseId = sseId;
            const data = JSON.parse(lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join(''));
            const id = data?.data?.marketEvents?.eventId as string | undefined;
            if (!id) {
              for (const e of data?.errors ?? []) noteError(e?.extensions?.code ?? 'UNKNOWN');
              continue;
            }
            if (sseId !== id) stats.idMismatches++;
            receive(id);
          }
        });
        const end = () => {
          if (!dropping && !done) stats.serverEnds++;
          finish();
        };
        res.on('end', end);
        res.on('error', end);
        res.on('close', end);
      });
      let dropping = false;
      drop = () => {
        dropping = true;
        req.destroy();
      };
      req.on('error', () => {
        if (!responded) stats.refused++;
        finish();
      });
      req.end(body);
    });
  }

  function connectWs(base: string): Promise<void> {
    return new Promise((resolve) => {
      const url = new URL('/graphql', base);
      url.protocol = 'ws:';
      const ws = new WebSocket(url, 'graphql-transport-ws');
      let opened = false;
      let dropping = false;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        drop = null;
        resolve();
      };
      drop = () => {
        dropping = true;
        ws.terminate();
      };
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
      ws.on('message', (raw) => {
        const m = JSON.parse(raw.toString());
        if (m.type === 'connection_ack') {
          opened = true;
          stats.connects++;
          connectedOnce = true;
          ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY, variables: { after: last(), f: spec.filter } } }));
        } else if (m.type === 'next') {
          const id = m.payload?.data?.marketEvents?.eventId as string | undefined;
          if (id) {
            if (m.payload?.extensions?.eventId !== undefined && m.payload.extensions.eventId !== id) stats.idMismatches++;
            receive(id);
          } else for (const e of m.payload?.errors ?? []) noteError(e?.extensions?.code ?? 'UNKNOWN');
        } else if (m.type === 'error') {
          for (const e of m.payload ?? []) noteError(e?.extensions?.code ?? 'UNKNOWN');
          ws.close();
        } else if (m.type === 'complete') {
          ws.close();
        } else if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      });
      ws.on('error', () => {});
      ws.on('close', () => {
        if (!opened) stats.refused++;
        else if (!dropping) stats.serverEnds++;
        finish();
      });
    });
  }

  void (async () => {
    scheduleDrop();
    let failures = 0;
    while (!closed) {
      const before = stats.connects;
      await (spec.transport === 'sse' ? connectSse : connectWs)(opts.instances[instance]!);
      if (closed) break;
      const failed = stats.connects === before;
      failures = failed ? failures + 1 : 0;
      // a failed attempt goes to the other instance; a drop to the other one by chance
      if (opts.instances.length > 1 && (failed || (chaos && opts.rnd.next() < opts.switchChance))) {
        instance = (instance + 1) % opts.instances.length;
        stats.switches++;
      }
      await new Promise((r) => setTimeout(r, failed ? Math.min(1000, 50 * failures) : opts.rnd.int(0, 300)));
    }
  })();

  return {
    spec,
    stats,
    settle() {
      chaos = false;
      if (dropTimer) clearTimeout(dropTimer);
    },
    close() {
      closed = true;
      chaos = false;
      if (dropTimer) clearTimeout(dropTimer);
      drop?.();
    },
  };
}
