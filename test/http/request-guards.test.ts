// Early refusals over a real socket: one body limit for every route and transfer
// encoding with the connection left usable or closed cleanly, 431 and parse errors in the
// envelope, CORS without credentials unless allow-listed, no GraphQL over text/plain or forms
// (CSRF), an introspection switch and a persisted-operations allow-list.
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrorsInEnvelope } from '../../src/http/client-error.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const LIMIT = 2048;

async function serve(app: TestApp): Promise<{ server: Server; port: number }> {
  const server = createServer(app.yoga);
  answerClientErrorsInEnvelope(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}
async function stop(server: Server | undefined) {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

/** One keep-alive socket; reads whole HTTP/1.1 responses (Content-Length or chunked). */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = Buffer.alloc(0);
  let ended = false;
  let reset = false;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  socket.on('data', (d) => {
    buffer = Buffer.concat([buffer, d]);
    wake();
  });
  socket.on('end', () => {
    ended = true;
    wake();
  });
  socket.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNRESET') reset = true;
    ended = true;
    wake();
  });
  const wait = () => new Promise<void>((r) => waiters.push(r));

  async function response(): Promise<{ status: number; headers: Record<string, string>; body: string } | null> {
    for (;;) {
      const text = buffer.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      if (head >= 0) {
        const lines = text.slice(0, head).split('\r\n');
        const status = Number(lines[0]!.split(' ')[1]);
        const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const rest = buffer.subarray(head + 4);
        if (headers['content-length'] !== undefined) {
          const n = Number(headers['content-length']);
          if (rest.length >= n) {
            buffer = rest.subarray(n);
            return { status, headers, body: rest.subarray(0, n).toString('utf8') };
          }
        } else if (headers['transfer-encoding'] === 'chunked') {
          const s = rest.toString('latin1');
          const end = s.indexOf('\r\n0\r\n\r\n');
          if (end >= 0 || s.startsWith('0\r\n\r\n')) {
            const raw = s.startsWith('0\r\n\r\n') ? '' : s.slice(0, end + 2);
            let body = '';
            for (let i = 0; i < raw.length; ) {
              const nl = raw.indexOf('\r\n', i);
              const size = parseInt(raw.slice(i, nl), 16);
              body += raw.slice(nl + 2, nl + 2 + size);
              i = nl + 2 + size + 2;
            }
            buffer = rest.subarray(s.startsWith('0\r\n\r\n') ? 5 : end + 7);
            return { status, headers, body: Buffer.from(body, 'latin1').toString('utf8') };
          }
        } else if (ended) {
          buffer = Buffer.alloc(0);
          return { status, headers, body: rest.toString('utf8') };
        }
      }
      if (ended) return null;
      await wait();
    }
  }
  return {
    socket,
    write: (s: string | Buffer) => new Promise<void>((r) => (socket.writable ? socket.write(s, () => r()) : r())),
    response,
    closed: async () => {
      const until = Date.now() + 3000;
      while (!ended && Date.now() < until) await Promise.race([wait(), new Promise((r) => setTimeout(r, 50))]);
      return { ended, reset };
    },
    destroy: () => socket.destroy(),
  };
}

const GET_NONCE = `GET /api/v1/orders/nonce?address=0x${'1'.repeat(40)} HTTP/1.1\r\nHost: t\r\n\r\n`;
const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

describe('body limit on every route and transfer encoding', () => {
  let app: TestApp;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    app = await startTestApp({ MAX_BODY_BYTES: String(LIMIT) });
    ({ server, port } = await serve(app));
  });
  afterAll(async () => {
    await stop(server);
    await app?.close();
  });

  for (const [route, target] of [
    ['REST POST /orders', '/api/v1/orders'],
    ['REST POST /orders/validate', '/api/v1/orders/validate'],
    ['GraphQL', '/graphql'],
  ] as const) {
    it(`${route}: an oversized chunked body gets 413, then the connection serves the next request or closes cleanly`, async () => {
      const c = rawConnection(port);
      try {
        await c.write(`POST ${target} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const big = JSON.stringify({ query: `{ __typename } # ${'x'.repeat(LIMIT * 4)}` });
        for (let i = 0; i < big.length; i += 1000) await c.write(chunk(big.slice(i, i + 1000)));
        await c.write('0\r\n\r\n');
        const res = await c.response();
        expect(res?.status).toBe(413);
        const body = JSON.parse(res!.body);
        if (target === '/graphql') expect(body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
        else expect(body).toMatchObject({ success: false, data: null });
        if (res!.headers.connection === 'close') {
          const { reset } = await c.closed();
          expect(reset).toBe(false);
        } else {
          await c.write(GET_NONCE);
          expect((await c.response())?.status).toBe(200);
        }
      } finally {
        c.destroy();
      }
    });
  }

  it('a chunked GraphQL body under the limit is served, and the connection stays usable', async () => {
    const c = rawConnection(port);
    try {
      const q = JSON.stringify({ query: '{ __typename }' });
      await c.write(`POST /graphql HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(q.slice(0, 5))}${chunk(q.slice(5))}0\r\n\r\n`);
      const res = await c.response();
      expect(res?.status).toBe(200);
      expect(JSON.parse(res!.body)).toEqual({ data: { __typename: 'Query' } });
      await c.write(GET_NONCE);
      expect((await c.response())?.status).toBe(200);
    } finally {
      c.destroy();
    }
  });

  it('a declared Content-Length over the limit gets 413 with Connection: close before the body is read', async () => {
    const c = rawConnection(port);
    try {
      await c.write(`POST /api/v1/orders HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT * 10}\r\n\r\n{"a":`);
      const res = await c.response();
      expect(res?.status).toBe(413);
      expect(res?.headers.connection).toBe('close');
      expect(JSON.parse(res!.body)).toMatchObject({ success: false, data: null });
      expect((await c.closed()).ended).toBe(true);
    } finally {
      c.destroy();
    }
  });

  it('answers header overflow (431) and an unparsable request (400) in the envelope', async () => {
    const c = rawConnection(port);
    try {
      await c.write(`GET /api/v1/collections HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
      const res = await c.response();
      expect(res?.status).toBe(431);
      expect(JSON.parse(res!.body)).toEqual({ success: false, message: 'Request header fields too large', data: null });
    } finally {
      c.destroy();
    }
    const d = rawConnection(port);
    try {
      await d.write('GARBAGE\r\n\r\n');
      const res = await d.response();
      expect(res?.status).toBe(400);
      expect(JSON.parse(res!.body)).toMatchObject({ success: false, data: null });
    } finally {
      d.destroy();
    }
  });

  it('answers a path nothing serves with the 404 envelope', async () => {
    const res = await app.rest('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, data: null });
  });
});

describe('GraphQL over HTTP: CSRF, CORS, introspection, persisted operations', () => {
  let open: TestApp;
  let strict: TestApp;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'persisted-'));
    const file = path.join(dir, 'operations.json');
    writeFileSync(file, JSON.stringify({ typename: 'query Typename { __typename }' }));
    open = await startTestApp();
    strict = await startTestApp({
      CORS_ORIGINS: 'https://app.example.com,https://admin.example.com',
      GRAPHQL_INTROSPECTION: 'false',
      GRAPHQL_PERSISTED_OPERATIONS: file,
      GRAPHQL_PERSISTED_ONLY: 'true',
    });
  });
  afterAll(async () => {
    await open?.close();
    await strict?.close();
  });

  const post = (app: TestApp, contentType: string, body: string, headers: Record<string, string> = {}) =>
    app.yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });

  it('refuses GraphQL POSTs sent as text/plain, form or multipart (what a cross-site form can send)', async () => {
    for (const [type, body] of [
      ['text/plain', '{"query":"mutation { __typename }"}'],
      ['application/x-www-form-urlencoded', 'query=%7B__typename%7D'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{"query":"{__typename}"}\r\n--x--\r\n'],
      ['', '{"query":"{ __typename }"}'],
    ]) {
      const res = await post(open, type!, body!);
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as any).errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await post(open, 'application/json; charset=utf-8', '{"query":"{ __typename }"}')).status).toBe(200);
  });

  it('a subscription asked for as plain JSON is a typed 406, not an empty body (found by the long fuzz run)', async () => {
    const res = await post(open, 'application/json', JSON.stringify({ query: 'subscription { sales { txHash } }' }), { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
  });

  it('without an allow-list any origin may read, never with credentials', async () => {
    const res = await post(open, 'application/json', '{"query":"{ __typename }"}', { origin: 'https://evil.example' });
    // yoga reflects the origin for '*' (with Vary: Origin); without credentials that is the same grant
    expect(['*', 'https://evil.example']).toContain(res.headers.get('access-control-allow-origin'));
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const rest = await open.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40), { headers: { origin: 'https://evil.example' } });
    expect(['*', 'https://evil.example']).toContain(rest.headers.get('access-control-allow-origin'));
    expect(rest.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('with an allow-list only listed origins are allowed, with credentials', async () => {
    const ok = await post(strict, 'application/json', '{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"typename"}}}', { origin: 'https://app.example.com' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    const evil = await strict.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40), { headers: { origin: 'https://evil.example' } });
    expect(evil.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).not.toBe('*');
    const preflight = await strict.yoga.fetch('http://test/graphql', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
  });

  it('introspection is on by default and can be switched off', async () => {
    const on = await open.gql('{ __schema { queryType { name } } }');
    expect(on.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const off = await post(strict, 'application/json', JSON.stringify({ query: '{ __schema { queryType { name } } }' }));
    expect(off.status).toBe(400);
  });

  it('with GRAPHQL_PERSISTED_ONLY only listed operations run, by id; REST keeps working', async () => {
    const arbitrary = await post(strict, 'application/json', JSON.stringify({ query: '{ __typename }' }));
    expect(arbitrary.status).toBe(400);
    expect(((await arbitrary.json()) as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await post(strict, 'application/json', '{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"nope"}}}');
    expect(((await unknown.json()) as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const byId = await post(strict, 'application/json', '{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"typename"}}}');
    expect(await byId.json()).toEqual({ data: { __typename: 'Query' } });
    expect((await strict.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40))).status).toBe(200);
  });
});
