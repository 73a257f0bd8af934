// createContentFetcher end to end on local servers: every kind of source, retries with backoff
// and Retry-After, per-host limits and pauses, and kept-alive connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContentFetcher, type ContentFetcherOptions } from '../../../src/services/metadata-fetch/index.js';
import { startServer, sleep, type LocalServer } from './local-servers.js';
import { importContent, startGateway, type FakeGateway, type Imported } from './trustless-gateway.js';

const DOC = '{"name":"Token #3"}';
const AR_ID = 'bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U';

let server: LocalServer;
let gateway: FakeGateway;
let broken: FakeGateway;
let content: Imported;
const counters = new Map<string, number>();
let inFlight = 0;
let mostInFlight = 0;

const options = (over: Partial<ContentFetcherOptions> = {}): ContentFetcherOptions => ({
  ipfsGateways: [broken.origin, gateway.origin],
  arweaveGateway: server.origin,
  allowPrivateTargets: true,
  timeoutMs: 2000,
  maxBytes: 1 << 20,
  maxRedirects: 5,
  perHostConcurrency: 4,
  perHostIntervalMs: 0,
  retries: 2,
  retryBaseDelayMs: 10,
  retryMaxDelayMs: 2000,
  ...over,
});

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    const p = req.url ?? '/';
    const n = (counters.get(p) ?? 0) + 1;
    counters.set(p, n);
    if (p === '/flaky') return void (n === 1 ? res.writeHead(500).end() : res.writeHead(200).end(DOC));
    if (p === '/rate-limited') return void (n === 1 ? res.writeHead(429, { 'retry-after': '1' }).end() : res.writeHead(200).end(DOC));
    if (p === '/come-back-later') return void res.writeHead(503, { 'retry-after': '3600' }).end();
    if (p === '/gone') return void res.writeHead(404).end();
    if (p === '/slow') {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await sleep(60);
      inFlight--;
      return void res.writeHead(200).end(DOC);
    }
    if (p === `/${AR_ID}/meta/1.json`) return void res.writeHead(200, { 'content-type': 'application/json' }).end(DOC);
    res.writeHead(200, { 'content-type': 'application/json' }).end(DOC);
  });
  content = await importContent([{ path: 'meta/1.json', content: new TextEncoder().encode(DOC) }], { wrapWithDirectory: true });
  gateway = await startGateway('good');
  broken = await startGateway('tampered');
  gateway.add(content);
  broken.add(content);
});

afterAll(async () => {
  await Promise.all([server.close(), gateway.close(), broken.close()]);
});

const text = (o: { ok: boolean; bytes?: Uint8Array }) => (o.ok && o.bytes ? Buffer.from(o.bytes).toString() : null);

describe('createContentFetcher', () => {
  it('returns inline content at once', async () => {
    const fetcher = createContentFetcher(options());
    const bytes = new TextEncoder().encode(DOC);
    expect(await fetcher.fetch({ kind: 'inline', mediaType: 'application/json', bytes })).toEqual({ ok: true, bytes, contentType: 'application/json', finalUrl: 'data:application/json' });
    fetcher.close();
  });

  it('reads http, arweave and verified ipfs sources (passing over a lying gateway)', async () => {
    const fetcher = createContentFetcher(options());
    try {
      expect(text(await fetcher.fetch({ kind: 'http', url: `${server.origin}/doc.json` }))).toBe(DOC);
      const ar = await fetcher.fetch({ kind: 'arweave', id: AR_ID, path: '/meta/1.json' });
      expect(ar).toMatchObject({ ok: true, finalUrl: `${server.origin}/${AR_ID}/meta/1.json` });
      expect(await fetcher.fetch({ kind: 'arweave', id: 'short', path: '' })).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
      const ipfs = await fetcher.fetch({ kind: 'ipfs', cid: content.root.toString(), path: '/meta/1.json' });
      expect(text(ipfs)).toBe(DOC);
      expect(broken.seen.length).toBeGreaterThan(0);
    } finally {
      fetcher.close();
    }
  });

  it('retries a 500 and returns the 200', async () => {
    const fetcher = createContentFetcher(options());
    expect(text(await fetcher.fetch({ kind: 'http', url: `${server.origin}/flaky` }))).toBe(DOC);
    expect(counters.get('/flaky')).toBe(2);
    fetcher.close();
  });

  it('waits at least the Retry-After of a 429 before the second attempt', async () => {
    const fetcher = createContentFetcher(options({ retries: 1 }));
    expect(text(await fetcher.fetch({ kind: 'http', url: `${server.origin}/rate-limited` }))).toBe(DOC);
    const [first, second] = server.seen.filter((r) => r.path === '/rate-limited');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(990);
    fetcher.close();
  });

  it('does not retry a 404, nor wait an hour-long Retry-After; that host is then paused', async () => {
    const fetcher = createContentFetcher(options());
    expect(await fetcher.fetch({ kind: 'http', url: `${server.origin}/gone` })).toMatchObject({ ok: false, status: 404, retryable: false });
    expect(counters.get('/gone')).toBe(1);
    const started = performance.now();
    const later = await fetcher.fetch({ kind: 'http', url: `${server.origin}/come-back-later` });
    expect(later).toMatchObject({ ok: false, code: 'HTTP_STATUS', status: 503, retryable: true, retryAfterMs: 3_600_000 });
    expect(counters.get('/come-back-later')).toBe(1);
    // the pause (capped at 5 minutes) answers for the host without a request
    const asked = server.seen.length;
    const paused = await fetcher.fetch({ kind: 'http', url: `${server.origin}/doc.json` });
    expect(paused).toMatchObject({ ok: false, code: 'HTTP_STATUS', status: 503, retryable: true });
    expect(!paused.ok && paused.retryAfterMs).toBeLessThanOrEqual(300_000);
    expect(server.seen.length).toBe(asked);
    expect(performance.now() - started).toBeLessThan(500);
    fetcher.close();
  });

  it('holds one host to its concurrency and spacing, over kept-alive connections', async () => {
    const fetcher = createContentFetcher(options({ perHostConcurrency: 1, perHostIntervalMs: 200 }));
    const before = server.seen.length;
    const got = await Promise.all([1, 2, 3].map(() => fetcher.fetch({ kind: 'http', url: `${server.origin}/slow` })));
    expect(got.every((o) => o.ok)).toBe(true);
    expect(mostInFlight).toBe(1);
    const asked = server.seen.slice(before);
    // starts are spaced by the client; arrivals here jitter by a few ms (one request takes ~60 ms)
    for (let i = 1; i < asked.length; i++) expect(asked[i]!.at - asked[i - 1]!.at).toBeGreaterThanOrEqual(170);
    expect(new Set(asked.map((r) => r.remotePort)).size).toBe(1);
    fetcher.close();
  });

  it('refuses private targets when they are not allowed, without retrying', async () => {
    const fetcher = createContentFetcher(options({ allowPrivateTargets: false }));
    const asked = () => server.seen.length + gateway.seen.length + broken.seen.length;
    const before = asked();
    expect(await fetcher.fetch({ kind: 'http', url: `${server.origin}/doc.json` })).toMatchObject({ ok: false, code: 'BLOCKED_TARGET', retryable: false });
    expect(await fetcher.fetch({ kind: 'ipfs', cid: content.root.toString(), path: '/meta/1.json' })).toMatchObject({ ok: false, code: 'BLOCKED_TARGET' });
    expect(asked()).toBe(before);
    fetcher.close();
  });
});
