// safeGet against real servers on 127.0.0.1: what a hostile or broken server can do to a fetch
// (hang, trickle, lie about size, inflate, redirect in circles or into the private network) ends
// as a coded outcome, on time and without holding much memory.
import http from 'node:http';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup } from '../../../src/services/guarded-lookup.js';
import { parseRetryAfter } from '../../../src/services/metadata-fetch/fetch-outcome.js';
import { safeGet, type SafeGetOptions } from '../../../src/services/metadata-fetch/safe-get.js';
import { startServer, type LocalServer } from './local-servers.js';

const open: SafeGetOptions = { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivateTargets: true };
const guarded: SafeGetOptions = { ...open, allowPrivateTargets: false };
const DOC = JSON.stringify({ name: 'Token #1', attributes: [{ trait_type: 'Eyes', value: 'Laser' }] });

let server: LocalServer;
let bomb: Buffer;

beforeAll(async () => {
  // 1 GiB of zeros gzipped, streamed through zlib (about 1 MB)
  const zero = Buffer.alloc(1 << 20);
  const parts: Buffer[] = [];
  await pipeline(
    Readable.from((function* () { for (let i = 0; i < 1024; i++) yield zero; })()),
    zlib.createGzip({ level: 9 }),
    async (src: AsyncIterable<Buffer>) => { for await (const c of src) parts.push(c); },
  );
  bomb = Buffer.concat(parts);

  server = await startServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    if (p === '/doc.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(DOC);
    if (p === '/gzip.json') return void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(zlib.gzipSync(DOC));
    if (p === '/br.json') return void res.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync(DOC));
    if (p === '/chain/1') return void res.writeHead(302, { location: '/chain/2' }).end();
    if (p === '/chain/2') return void res.writeHead(301, { location: `${server.origin}/chain/3` }).end();
    if (p === '/chain/3') return void res.writeHead(307, { location: '/doc.json' }).end();
    if (p === '/loop/a') return void res.writeHead(302, { location: '/loop/b' }).end();
    if (p === '/loop/b') return void res.writeHead(302, { location: '/loop/a' }).end();
    if (p.startsWith('/endless/')) return void res.writeHead(302, { location: `/endless/${Number(p.slice(9)) + 1}` }).end();
    if (p === '/to-loopback') return void res.writeHead(302, { location: `http://127.0.0.1:${server.port}/doc.json` }).end();
    if (p === '/to-hostname') return void res.writeHead(302, { location: `http://${hostname()}:${server.port}/doc.json` }).end();
    if (p === '/to-file') return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (p === '/silent') return; // headers never come
    if (p === '/trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write('{'), 100);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (p === '/declared-huge') return void res.writeHead(200, { 'content-length': String(50 << 20) }).write(Buffer.alloc(1024));
    if (p === '/chunked-forever') {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 1);
      const more = () => { while (!res.destroyed && res.write(chunk)); };
      res.on('drain', more);
      more();
      return;
    }
    if (p === '/bomb') return void res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) }).end(bomb);
    if (p === '/missing') return void res.writeHead(404).end('no');
    if (p === '/busy') return void res.writeHead(503, { 'retry-after': '7' }).end();
    res.writeHead(500).end();
  });
}, 60_000);

afterAll(() => server.close());

/** An agent that answers `metadata.example` with this machine's loopback (standing in for a public
 * name's DNS answer) and resolves every other name through the guard as the fetcher does. */
function publicNameAgent() {
  const guard = guardedLookup(false);
  return new http.Agent({
    lookup: ((name: string, options: object, cb: (...a: unknown[]) => void) =>
      name === 'metadata.example'
        ? (options as { all?: boolean }).all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)
        : guard(name, options as never, cb as never)) as never,
  });
}

describe('safeGet', () => {
  it('reads a JSON document with its content type', async () => {
    const got = await safeGet(`${server.origin}/doc.json`, open);
    expect(got).toMatchObject({ ok: true, contentType: 'application/json', finalUrl: `${server.origin}/doc.json` });
    expect(got.ok && Buffer.from(got.bytes).toString()).toBe(DOC);
  });

  it('asks for compressed bodies and decodes gzip and brotli', async () => {
    for (const path of ['/gzip.json', '/br.json']) {
      const got = await safeGet(`${server.origin}${path}`, open);
      expect(got.ok && Buffer.from(got.bytes).toString()).toBe(DOC);
    }
    expect(server.seen.at(-1)!.headers['accept-encoding']).toMatch(/gzip.*br.*deflate/);
  });

  it('follows a redirect chain, relative and absolute, to the final URL', async () => {
    const got = await safeGet(`${server.origin}/chain/1`, open);
    expect(got).toMatchObject({ ok: true, finalUrl: `${server.origin}/doc.json` });
  });

  it('stops a redirect loop when it comes back round', async () => {
    const got = await safeGet(`${server.origin}/loop/a`, open);
    expect(got).toMatchObject({ ok: false, code: 'TOO_MANY_REDIRECTS', retryable: false });
    expect(!got.ok && got.message).toMatch(/loop/);
  });

  it('gives up after maxRedirects', async () => {
    const before = server.seen.length;
    const got = await safeGet(`${server.origin}/endless/0`, { ...open, maxRedirects: 3 });
    expect(got).toMatchObject({ ok: false, code: 'TOO_MANY_REDIRECTS' });
    expect(server.seen.length - before).toBe(4); // the first request and three redirects
  });

  it('refuses literal private addresses and loopback names before connecting', async () => {
    const before = server.seen.length;
    for (const url of [
      `http://127.0.0.1:${server.port}/doc.json`,
      `http://localhost:${server.port}/doc.json`,
      `http://[::1]:${server.port}/doc.json`,
      `http://[::ffff:127.0.0.1]:${server.port}/doc.json`,
      'http://10.0.0.1/metadata.json',
      'http://169.254.169.254/latest/meta-data/',
      'http://2130706433/', // 127.0.0.1 spelled as a number
    ]) {
      expect(await safeGet(url, guarded), url).toMatchObject({ ok: false, code: 'BLOCKED_TARGET', retryable: false });
    }
    expect(server.seen.length).toBe(before);
  });

  it('refuses a name that resolves to a private address (checked at connect)', async () => {
    const got = await safeGet(`http://${hostname()}:${server.port}/doc.json`, guarded);
    expect(got).toMatchObject({ ok: false, code: 'BLOCKED_TARGET' });
  });

  it('checks every redirect target again: loopback address, loopback name, other schemes', async () => {
    const agent = publicNameAgent();
    const agents = { http: agent, https: new http.Agent() as never, destroy: () => agent.destroy() };
    const via = (path: string) => safeGet(`http://metadata.example:${server.port}${path}`, { ...guarded, agents });
    try {
      expect(await via('/doc.json')).toMatchObject({ ok: true }); // the public name itself is let through
      const before = server.seen.length;
      expect(await via('/to-loopback')).toMatchObject({ ok: false, code: 'BLOCKED_TARGET' });
      expect(await via('/to-hostname')).toMatchObject({ ok: false, code: 'BLOCKED_TARGET' });
      expect(await via('/to-file')).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
      expect(server.seen.slice(before).map((r) => r.path)).toEqual(['/to-loopback', '/to-hostname', '/to-file']);
    } finally {
      agents.destroy();
    }
  });

  it('refuses URLs that are not http(s)', async () => {
    expect(await safeGet('file:///etc/passwd', open)).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
    expect(await safeGet('not a url', open)).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
  });

  it('ends a server that never answers at the deadline', async () => {
    const started = performance.now();
    const got = await safeGet(`${server.origin}/silent`, { ...open, timeoutMs: 300 });
    const ms = performance.now() - started;
    expect(got).toMatchObject({ ok: false, code: 'TIMEOUT', retryable: true });
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(600);
  });

  it('ends a server trickling its body at the deadline, not at an idle timeout', async () => {
    const started = performance.now();
    const got = await safeGet(`${server.origin}/trickle`, { ...open, timeoutMs: 500 });
    const ms = performance.now() - started;
    expect(got).toMatchObject({ ok: false, code: 'TIMEOUT' });
    expect(ms).toBeGreaterThanOrEqual(490);
    expect(ms).toBeLessThan(800);
  });

  it('refuses a declared Content-Length over the cap before reading', async () => {
    const got = await safeGet(`${server.origin}/declared-huge`, open);
    expect(got).toMatchObject({ ok: false, code: 'TOO_LARGE', retryable: false });
    expect(!got.ok && got.message).toMatch(/Content-Length/);
  });

  it('stops a chunked body the moment it passes the cap', async () => {
    const got = await safeGet(`${server.origin}/chunked-forever`, { ...open, maxBytes: 256 * 1024 });
    expect(got).toMatchObject({ ok: false, code: 'TOO_LARGE' });
  });

  it('stops a gzip bomb (1 GiB inflated) quickly, counting inflated bytes', async () => {
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    const got = await safeGet(`${server.origin}/bomb`, { ...open, maxBytes: 2 << 20 });
    expect(got).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 << 20);
  });

  it('reports error statuses with retryability and Retry-After', async () => {
    expect(await safeGet(`${server.origin}/missing`, open)).toEqual({ ok: false, code: 'HTTP_STATUS', status: 404, message: 'HTTP 404', retryable: false });
    expect(await safeGet(`${server.origin}/busy`, open)).toEqual({ ok: false, code: 'HTTP_STATUS', status: 503, message: 'HTTP 503', retryable: true, retryAfterMs: 7000 });
  });

  it('refuses a connection that cannot be made as a retryable NETWORK failure', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    expect(await safeGet(`${closed.origin}/`, open)).toMatchObject({ ok: false, code: 'NETWORK', retryable: true });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
