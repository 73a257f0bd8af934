// Hostile images through the whole pipeline: source URLs served by a loopback server that
// misbehaves (decompression bombs, truncated files, HTML dressed as a JPEG, scripted SVG,
// polyglots, huge EXIF, a byte a second, redirects into the private network, gzip bombs, ...),
// fetched by the real fetcher, checked and encoded by the real sharp, stored in a real database
// by the media worker. After one drain every source is STORED with sanitised variants or carries
// its code; every stored variant is served as WebP over a real socket; nothing answers 5xx, nothing
// hangs, and the control image read among them is exact.
import http from 'node:http';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentSource } from '../../../src/domain/token-uri.js';
import { guardedLookup } from '../../../src/services/guarded-lookup.js';
import { createContentFetcher, type ContentFetcher } from '../../../src/services/metadata-fetch/index.js';
import { safeGet } from '../../../src/services/metadata-fetch/safe-get.js';
import { createMediaWorker } from '../../../src/services/media/media-worker.js';
import { urlSha256 } from '../../../src/services/media/media-queue.js';
import {
  animatedGif,
  GIF_JS_POLYGLOT,
  gifDeclaring,
  HTML_AS_JPEG,
  jpegDeclaring,
  noisyPng,
  pngDeclaring,
  pngWithText,
  rotatedJpegWithExif,
  solidJpeg,
  SVG_ENTITY_BOMB,
  SVG_USE_BOMB,
  SVG_WITH_SCRIPT,
  svgWithExternalRefs,
  webpDeclaring,
} from '../../fixtures/media-images.js';
import { listen, type ListeningApp } from '../../helpers/listening-app.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { backendName } from '../../helpers/test-database.js';
import { startServer, type LocalServer } from '../metadata-fetch/local-servers.js';

// every fetch shares this process with the server, the encoder and the embedded database: room enough
const TIMEOUT_MS = 5000;
const MAX_BYTES = 4 * 1024 * 1024;
const PUBLIC_NAME = 'images.example';

type Body = Buffer | ((res: http.ServerResponse) => void);
interface HostileCase {
  name: string;
  /** the source URL (a path on the hostile server unless it has a scheme) */
  url: (s: LocalServer) => string;
  body?: Body;
  /** the code it must end with; none: STORED */
  code?: string;
  /** STORED: more to check on its variants */
  check?: (variants: Record<string, Buffer>) => Promise<void> | void;
}

let app: TestApp;
let server: LocalServer;
let socket: ListeningApp;
const bodies = new Map<string, Body>();
const control: { png: Buffer } = { png: Buffer.alloc(0) };

const send = (type: string, bytes: Buffer) => (res: http.ServerResponse) => res.writeHead(200, { 'content-type': type }).end(bytes);

const CASES: HostileCase[] = [
  { name: 'control', url: (s) => `${s.origin}/control.png`, check: async (v) => expect(await sharp(v.w1024!).metadata()).toMatchObject({ width: 1024, height: 512 }) },
  { name: '50,000 x 50,000 PNG bomb', url: (s) => `${s.origin}/bomb.png`, body: pngDeclaring(50_000, 50_000), code: 'TOO_MANY_PIXELS' },
  { name: '65,000 x 60,000 JPEG header', url: (s) => `${s.origin}/bomb.jpg`, body: jpegDeclaring(65_000, 60_000), code: 'TOO_MANY_PIXELS' },
  { name: '65,535 x 65,535 GIF screen', url: (s) => `${s.origin}/bomb.gif`, body: gifDeclaring(65_535, 65_535), code: 'TOO_MANY_PIXELS' },
  { name: '16,383 x 16,383 WebP canvas', url: (s) => `${s.origin}/bomb.webp`, body: webpDeclaring(16_383, 16_383), code: 'TOO_MANY_PIXELS' },
  { name: 'truncated PNG', url: (s) => `${s.origin}/truncated.png`, code: 'DECODE_FAILED' },
  { name: 'truncated JPEG', url: (s) => `${s.origin}/truncated.jpg`, code: 'DECODE_FAILED' },
  { name: 'a JPEG that is HTML', url: (s) => `${s.origin}/photo.jpg`, body: send('image/jpeg', HTML_AS_JPEG), code: 'UNSUPPORTED_TYPE' },
  {
    name: 'SVG with script (rasterised)',
    url: (s) => `${s.origin}/script.svg`,
    body: send('image/svg+xml', SVG_WITH_SCRIPT),
    check: async (v) => expect(await sharp(v.w256!).metadata()).toMatchObject({ format: 'webp', width: 256, height: 256 }),
  },
  { name: 'SVG pointing outside (nothing fetched)', url: (s) => `${s.origin}/external.svg` },
  { name: 'SVG entity bomb', url: (s) => `${s.origin}/laughs.svg`, body: SVG_ENTITY_BOMB, code: 'UNSUPPORTED_TYPE' },
  { name: 'SVG <use> bomb', url: (s) => `${s.origin}/use-bomb.svg`, body: SVG_USE_BOMB, code: 'DECODE_FAILED' },
  { name: 'GIF/JS polyglot', url: (s) => `${s.origin}/polyglot.gif`, body: GIF_JS_POLYGLOT, code: 'AMBIGUOUS_TYPE' },
  { name: 'PNG carrying a page', url: (s) => `${s.origin}/page.png`, code: 'AMBIGUOUS_TYPE' },
  {
    name: 'JPEG with 60 KB of EXIF (stripped)',
    url: (s) => `${s.origin}/exif.jpg`,
    check: async (v) => {
      for (const bytes of Object.values(v)) expect((await sharp(bytes).metadata()).exif).toBeUndefined();
      // orientation 6: the stored 300 x 100 is shown 100 x 300
      expect(await sharp(v.w1024!).metadata()).toMatchObject({ width: 100, height: 300 });
    },
  },
  {
    name: 'a byte a second',
    url: (s) => `${s.origin}/trickle.png`,
    body: (res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      let i = 0;
      const timer = setInterval(() => (res.destroyed || i > 100 ? clearInterval(timer) : res.write(Buffer.from([0x89 + (i++ % 2)]))), 1000);
      res.on('close', () => clearInterval(timer));
    },
    code: 'TIMEOUT',
  },
  { name: 'redirect to a private address', url: (s) => `http://${PUBLIC_NAME}:${s.port}/to-private`, code: 'BLOCKED_TARGET' },
  { name: 'redirect to localhost', url: (s) => `http://${PUBLIC_NAME}:${s.port}/to-localhost`, code: 'BLOCKED_TARGET' },
  { name: 'cloud metadata address', url: () => 'http://169.254.169.254/latest/meta-data/iam.png', code: 'BLOCKED_TARGET' },
  { name: 'zero bytes', url: (s) => `${s.origin}/empty.png`, body: Buffer.alloc(0), code: 'EMPTY' },
  { name: 'a PNG named .jpg and sent as image/jpeg', url: (s) => `${s.origin}/cat.jpg` },
  {
    name: 'gzip bomb',
    url: (s) => `${s.origin}/gzip-bomb.png`,
    body: (res) => res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip' }).end(GZIP_BOMB),
    code: 'TOO_LARGE',
  },
  { name: 'over MEDIA_MAX_BYTES', url: (s) => `${s.origin}/huge.png`, code: 'TOO_LARGE' },
  { name: 'TIFF', url: (s) => `${s.origin}/scan.tiff`, code: 'UNSUPPORTED_TYPE' },
  {
    name: '400-frame animation (a still everywhere)',
    url: (s) => `${s.origin}/long.gif`,
    check: async (v) => expect((await sharp(v.w1024!, { animated: true }).metadata()).pages ?? 1).toBe(1),
  },
  { name: 'not found', url: (s) => `${s.origin}/missing.png`, body: (res) => res.writeHead(404).end('no'), code: 'HTTP_STATUS' },
  { name: 'SVG in a data: URI', url: () => `data:image/svg+xml;base64,${SVG_WITH_SCRIPT.toString('base64')}` },
  { name: 'javascript: URI', url: () => 'javascript:alert(1)', code: 'UNSUPPORTED_URI' },
];

const GZIP_BOMB = zlib.gzipSync(Buffer.alloc(16 * MAX_BYTES), { level: 9 });

/**
 * The production guard (private targets refused) for every URL, except that the test's loopback
 * server stands for a public host: read with private targets allowed, and `images.example`
 * resolves to it (as a public name to a public address) so that its redirects meet the guard.
 */
function hostileFetcher(): ContentFetcher {
  const options = { ipfsGateways: [], arweaveGateway: 'https://arweave.invalid', timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, maxRedirects: 3, perHostConcurrency: 16, perHostIntervalMs: 0, retries: 0 };
  const open = createContentFetcher({ ...options, allowPrivateTargets: true });
  const guarded = createContentFetcher({ ...options, allowPrivateTargets: false });
  const guard = guardedLookup(false);
  const agent = new http.Agent({
    lookup: ((name: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
      name === PUBLIC_NAME ? (o.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) : guard(name, o as never, cb as never)) as never,
  });
  return {
    fetch(source: ContentSource) {
      if (source.kind !== 'http') return open.fetch(source);
      const url = new URL(source.url);
      if (url.hostname === PUBLIC_NAME) return safeGet(source.url, { timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, allowPrivateTargets: false, agents: { http: agent, https: agent as never, destroy: () => agent.destroy() } });
      return (url.host === new URL(server.origin).host ? open : guarded).fetch(source);
    },
    close() {
      open.close();
      guarded.close();
      agent.destroy();
    },
  };
}

beforeAll(async () => {
  app = await startTestApp({ MEDIA_MAX_BYTES: String(MAX_BYTES) });
  socket = await listen(app);
  control.png = await noisyPng(1200, 600, 21);
  const truncatedPng = await noisyPng(400, 400, 2);
  const truncatedJpeg = await sharp(await noisyPng(400, 400, 3)).jpeg().toBuffer();
  const fixed: Record<string, Buffer> = {
    '/control.png': control.png,
    '/truncated.png': truncatedPng.subarray(0, truncatedPng.length >> 1),
    '/truncated.jpg': truncatedJpeg.subarray(0, truncatedJpeg.length >> 1),
    '/page.png': pngWithText(await noisyPng(32, 32, 4), 'Comment', '<!doctype html><html><body onload="alert(1)"></body></html>'),
    '/exif.jpg': await rotatedJpegWithExif(300, 100, 60_000),
    '/cat.jpg': await noisyPng(120, 80, 5),
    '/huge.png': Buffer.concat([await noisyPng(32, 32, 6), Buffer.alloc(MAX_BYTES)]),
    '/scan.tiff': await sharp(await solidJpeg(20, 20)).tiff().toBuffer(),
    '/long.gif': await animatedGif(64, 64, 400),
  };
  server = await startServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/to-private') res.writeHead(302, { location: `http://127.0.0.1:${server.port}/control.png` }).end();
    else if (path === '/to-localhost') res.writeHead(302, { location: `http://localhost:${server.port}/control.png` }).end();
    else if (path === '/external.svg') send('image/svg+xml', svgWithExternalRefs(server.origin))(res);
    else {
      const body = bodies.get(path) ?? fixed[path];
      if (body === undefined) res.writeHead(404).end();
      // every path answers as image/jpeg unless the case says otherwise: the header is never trusted
      else if (Buffer.isBuffer(body)) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(body);
      else body(res);
    }
  });
  for (const c of CASES) {
    const url = c.url(server);
    if (c.body !== undefined && url.startsWith(server.origin)) bodies.set(new URL(url).pathname, c.body);
  }
});
afterAll(async () => {
  await socket?.close();
  await server?.close();
  await app?.close();
});

describe(`hostile images (${backendName})`, () => {
  it('ends every source STORED with sanitised variants or refused with its code, serves every variant, answers no 5xx', async () => {
    const media = app.services.media;
    const urls = CASES.map((c) => c.url(server));
    await media.enqueueMediaSources(urls, 'logo');
    const started = performance.now();
    const worker = createMediaWorker(media, hostileFetcher(), { concurrency: 6, leaseMs: 60_000, instanceId: 'hostile', random: () => 0.5 });
    const processed = await worker.runOnce();
    const drainMs = performance.now() - started;
    await worker.stop();
    expect(processed).toBe(CASES.length);
    // the slowest case is the trickle (its timeout) or the <use> bomb (librsvg's element limit,
    // seconds of one core); a machine busy with other work stretches it, never past this
    expect(drainMs).toBeLessThan(60_000);

    const states = await media.mediaStatusForUrls(urls);
    const statuses: number[] = [];
    for (const [i, c] of CASES.entries()) {
      const state = states.get(urls[i]!)!;
      if (c.code) {
        expect({ name: c.name, code: state.errorCode, sha256: state.sha256 }).toEqual({ name: c.name, code: c.code, sha256: null });
        // a timeout is worth another try later; every other refusal is final
        expect(state.status, c.name).toBe(c.code === 'TIMEOUT' ? 'PENDING' : 'REFUSED');
        continue;
      }
      expect({ name: c.name, status: state.status, error: state.errorMessage }).toEqual({ name: c.name, status: 'STORED', error: null });
      const variants: Record<string, Buffer> = {};
      for (const [variant, url] of Object.entries(state.urls!)) {
        const res = await fetch(`${socket.url}${url}`);
        statuses.push(res.status);
        expect(res.status, `${c.name} ${variant}`).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/webp');
        variants[variant] = Buffer.from(await res.arrayBuffer());
        expect((await sharp(variants[variant]!).metadata()).format).toBe('webp');
        expect(variants[variant]!.includes(Buffer.from('script')), c.name).toBe(false);
      }
      await c.check?.(variants);
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // the SVG's outside references were never fetched, nor the private redirect targets
    expect(server.seen.map((s) => s.path).filter((p) => p.includes('tracker'))).toEqual([]);
    expect(server.seen.filter((s) => s.path === '/control.png')).toHaveLength(1);
    // a PNG sent as image/jpeg under a .jpg name is stored as what it is
    const cat = await app.testDb.db.sql.query<{ mime_type: string }>(
      `SELECT m.mime_type FROM media m JOIN media_sources s ON s.sha256 = m.sha256 WHERE s.url_sha256 = $1`,
      [urlSha256(CASES.find((c) => c.name.startsWith('a PNG named'))!.url(server))],
    );
    expect(cat).toEqual([{ mime_type: 'image/png' }]);
    // the refused ones left no media behind; the same bytes from two URLs are stored once
    const [counts] = await app.testDb.db.sql.query(
      `SELECT (SELECT count(*) FROM media)::int AS media, (SELECT count(DISTINCT sha256) FROM media_sources WHERE status = 'STORED')::int AS stored`,
    );
    expect(counts).toEqual({ media: CASES.filter((c) => !c.code).length - 1, stored: CASES.filter((c) => !c.code).length - 1 });
    const sameBytes = CASES.filter((c) => c.name.startsWith('SVG with script') || c.name.startsWith('SVG in a data')).map((c) => states.get(c.url(server))!.sha256);
    expect(sameBytes[0]).toBe(sameBytes[1]);
    // and the service is still itself
    expect((await fetch(`${socket.url}/healthz`)).status).toBe(200);
    expect((await app.gql('{ collections(first: 1) { totalCount } }')).errors).toBeUndefined();
  }, 180_000);
});
