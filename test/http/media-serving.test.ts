// /media/ served like a CDN origin, over a real socket (the media lane) and through yoga.fetch (the
// plugin), which must answer alike; and the admin upload, POST /api/v1/media.
import { request } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareImage } from '../../src/services/media/prepare-image.js';
import { noisyPng, solidPng } from '../fixtures/media-images.js';
import { listen, type ListeningApp } from '../helpers/listening-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const ADMIN = 'media-admin-key-0123456789';
const MAX_BYTES = 2 * 1024 * 1024;
let app: TestApp;
let http: ListeningApp;
let sha256: string;
let urls: Record<string, string>;

beforeAll(async () => {
  app = await startTestApp({ ADMIN_API_KEY: ADMIN, MEDIA_MAX_BYTES: String(MAX_BYTES) });
  http = await listen(app);
});
afterAll(async () => {
  await http?.close();
  await app?.close();
});

const upload = (body: BodyInit | Buffer, headers: Record<string, string> = {}) => app.rest('/api/v1/media', { method: 'POST', body: body as BodyInit, headers: { 'x-api-key': ADMIN, ...headers } });
const overSocket = (path: string, init: RequestInit = {}) => fetch(`${http.url}${path}`, init);
const throughYoga = async (path: string, init: RequestInit = {}): Promise<Response> => app.yoga.fetch(`http://test${path}`, init);
/** What a client can compare: status, body and headers but those that differ per request. */
async function seen(res: Response) {
  const headers = Object.fromEntries([...res.headers].filter(([k]) => !['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

describe(`admin upload (${backendName})`, () => {
  it('stores a raw body and answers its hash and variant URLs (201, then 200 for the same bytes)', async () => {
    const png = await noisyPng(640, 480, 5);
    const first = await upload(png, { 'content-type': 'application/octet-stream' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ success: true, data: { created: true, mimeType: 'image/png', width: 640, height: 480, frames: 1 } });
    sha256 = first.body.data.sha256;
    urls = first.body.data.urls;
    expect(urls).toEqual({ w64: `/media/${sha256}/w64`, w256: `/media/${sha256}/w256`, w1024: `/media/${sha256}/w1024` });
    const again = await upload(png, { 'content-type': 'image/jpeg' });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ sha256, created: false });
  });

  it('takes a multipart form with the image in its file field', async () => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(await solidPng(50, 50, '#00aa00'))]), 'logo.jpg');
    const res = await upload(form);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mimeType: 'image/png', width: 50, height: 50 });
    const empty = new FormData();
    empty.set('other', 'x');
    expect((await upload(empty)).status).toBe(400);
  });

  it('refuses what is not an image, too large bodies, and callers without the admin key', async () => {
    const html = await upload('<!doctype html><html><body><script>alert(1)</script></body></html>', { 'content-type': 'image/jpeg' });
    expect(html.status).toBe(400);
    expect(html.body).toMatchObject({ success: false, errors: [{ field: 'file', code: 'UNSUPPORTED_TYPE' }] });
    const big = await upload(Buffer.alloc(MAX_BYTES + 1, 1));
    expect(big.status).toBe(413);
    expect((await app.rest('/api/v1/media', { method: 'POST', body: (await solidPng(8, 8)) as BodyInit })).status).toBe(401);
    expect((await app.rest('/api/v1/media', { method: 'POST', body: (await solidPng(8, 8)) as BodyInit, headers: { 'x-api-key': 'wrong-key-wrong-key' } })).status).toBe(403);
    expect((await app.rest('/api/v1/media', { method: 'GET' })).status).toBe(405);
  });
});

describe(`serving /media/ (${backendName})`, () => {
  it('serves a variant with a strong ETag, a year of immutable caching, its type and the sandbox headers', async () => {
    const res = await overSocket(urls.w256!);
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'image/webp',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'accept-ranges': 'bytes',
      'content-length': String(body.length),
      etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
    });
    const meta = await sharp(body).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 256, height: 192 });
  });

  it('answers If-None-Match with 304 and no body', async () => {
    const etag = (await overSocket(urls.w64!)).headers.get('etag')!;
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await overSocket(urls.w64!, { headers: { 'if-none-match': inm } });
      expect(res.status, inm).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
    expect((await overSocket(urls.w64!, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('serves ranges (206), refuses unsatisfiable ones (416), and ignores a Range whose If-Range is stale', async () => {
    const whole = Buffer.from(await (await overSocket(urls.w1024!)).arrayBuffer());
    const etag = (await overSocket(urls.w1024!, { method: 'HEAD' })).headers.get('etag')!;
    const part = await overSocket(urls.w1024!, { headers: { range: 'bytes=10-29' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-29/${whole.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(10, 30))).toBe(true);
    const tail = await overSocket(urls.w1024!, { headers: { range: 'bytes=-5', 'if-range': etag } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(whole.length - 5))).toBe(true);
    const beyond = await overSocket(urls.w1024!, { headers: { range: `bytes=${whole.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    const stale = await overSocket(urls.w1024!, { headers: { range: 'bytes=0-9', 'if-range': '"stale"' } });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(whole.length);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const head = await overSocket(urls.w256!, { method: 'HEAD' });
    const get = await overSocket(urls.w256!);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers 404 for what is not stored, 400 for a malformed path, 405 for other methods: never an image', async () => {
    const cases: Array<[string, RequestInit, number]> = [
      [`/media/${'0'.repeat(64)}/w256`, {}, 404],
      [`/media/${sha256}/w512`, {}, 404],
      [`/media/${sha256.toUpperCase()}/w256`, {}, 400],
      [`/media/${sha256}`, {}, 400],
      [`/media/..%2F..%2Fetc%2Fpasswd/w64`, {}, 400],
      [`/media/${sha256}/w256`, { method: 'DELETE' }, 405],
    ];
    for (const [path, init, status] of cases) {
      const res = await throughYoga(path, init);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // node:http does not resolve dot segments: the lane sees them, and refuses them
    const raw = await new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(http.url);
      const req = request({ hostname, port, path: '/media/../../etc/passwd' }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    expect(raw).toBe(400);
  });

  it('encodes a token image\'s larger variant on its first request', async () => {
    const prepared = await prepareImage(await noisyPng(700, 700, 11), ['w64'], app.services.media.limits);
    if (!prepared.ok) throw new Error(prepared.message);
    await app.services.media.store.store(prepared);
    const res = await overSocket(`/media/${prepared.sha256}/w1024`);
    expect(res.status).toBe(200);
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ format: 'webp', width: 700, height: 700 });
  });

  it('gives the same answer over node:http (the media lane) as through yoga (the plugin)', async () => {
    const etag = (await overSocket(urls.w256!)).headers.get('etag')!;
    const requests: Array<[string, RequestInit]> = [
      [urls.w256!, {}],
      [urls.w256!, { method: 'HEAD' }],
      [urls.w256!, { headers: { 'if-none-match': etag } }],
      [urls.w256!, { headers: { range: 'bytes=5-15' } }],
      [urls.w256!, { headers: { range: 'bytes=999999-' } }],
      [urls.w256!, { headers: { origin: 'https://app.example' } }],
      [`/media/${'1'.repeat(64)}/w64`, {}],
      [`/media/nothing`, {}],
    ];
    for (const [path, init] of requests) {
      const [lane, yoga] = await Promise.all([overSocket(path, init).then(seen), throughYoga(path, init).then(seen)]);
      expect(lane, `${init.method ?? 'GET'} ${path} ${JSON.stringify(init.headers ?? {})}`).toEqual(yoga);
    }
  });
});
