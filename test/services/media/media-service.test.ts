// The media service over a real database: uploads stored once under their SHA-256 with every
// variant, a failed write leaving nothing behind, a token image's larger variants encoded on their
// first request exactly once however many requests (and instances) ask at the same moment, then
// served from memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createMediaService, type MediaService } from '../../../src/services/media/index.js';
import { prepareImage, sha256Hex } from '../../../src/services/media/prepare-image.js';
import { animatedGif, noisyPng, solidPng } from '../../fixtures/media-images.js';
import { backendName, openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let t: TestDatabase;
let media: MediaService;
const config = loadConfig({ MEDIA_BASE_URL: 'https://cdn.example.com/' });

beforeAll(async () => {
  t = await openTestDatabase();
  media = createMediaService({ db: t.db, config });
});
afterAll(() => t.close());

const count = async (table: string, where = 'true') => (await t.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0]!.n;
const variantInserts = () => t.statements.filter((s) => s.trimStart().startsWith('INSERT INTO media_variants')).length;

describe(`media service (${backendName})`, () => {
  it('stores an upload once under its SHA-256 with every variant, and answers its URLs', async () => {
    const png = await noisyPng(500, 400, 3);
    const first = await media.upload(png);
    const sha256 = sha256Hex(png);
    expect(first).toMatchObject({ sha256, created: true, mimeType: 'image/png', width: 500, height: 400, frames: 1 });
    expect('urls' in first && first.urls).toEqual({
      w64: `https://cdn.example.com/media/${sha256}/w64`,
      w256: `https://cdn.example.com/media/${sha256}/w256`,
      w1024: `https://cdn.example.com/media/${sha256}/w1024`,
    });
    expect(await count('media_variants', `sha256 = '${sha256}'`)).toBe(3);
    const again = await media.upload(png);
    expect(again).toMatchObject({ sha256, created: false });
    expect(await count('media', `sha256 = '${sha256}'`)).toBe(1);
    expect(await count('media_variants', `sha256 = '${sha256}'`)).toBe(3);
    const [row] = await t.db.sql.query<{ source: Uint8Array; byte_size: number }>(`SELECT source, byte_size FROM media WHERE sha256 = $1`, [sha256]);
    expect(Buffer.from(row!.source).equals(png)).toBe(true);
    expect(row!.byte_size).toBe(png.length);
  });

  it('refuses what is not an image, storing nothing', async () => {
    const before = await count('media');
    expect(await media.upload(Buffer.from('<html><body>hi</body></html>'))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE' });
    expect(await media.upload(Buffer.alloc(config.media.maxBytes + 1))).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    expect(await count('media')).toBe(before);
  });

  it('writes a source and its variants in one statement: a failing variant leaves no source row', async () => {
    const prepared = await prepareImage(await solidPng(30, 30, '#010203'), ['w64'], media.limits);
    if (!prepared.ok) throw new Error(prepared.message);
    const broken = { ...prepared, variants: [prepared.variants[0]!, { ...prepared.variants[0]!, variant: 'a-name-far-too-long-for-its-column' as never }] };
    await expect(media.store.store(broken)).rejects.toThrow();
    expect(await count('media', `sha256 = '${prepared.sha256}'`)).toBe(0);
    expect(await count('media_variants', `sha256 = '${prepared.sha256}'`)).toBe(0);
  });

  it('encodes a variant on its first request once, however many ask at once, then serves it from memory', async () => {
    const png = await noisyPng(800, 800, 9);
    const prepared = await prepareImage(png, ['w64'], media.limits);
    if (!prepared.ok) throw new Error(prepared.message);
    await media.store.store(prepared);
    const inserts = variantInserts();
    const answers = await Promise.all(Array.from({ length: 25 }, () => media.serveVariant(prepared.sha256, 'w256')));
    expect(answers.every((a) => a.found)).toBe(true);
    const etags = new Set(answers.map((a) => (a.found ? a.variant.etag : null)));
    expect(etags.size).toBe(1);
    expect(variantInserts() - inserts).toBe(1);
    expect(await count('media_variants', `sha256 = '${prepared.sha256}'`)).toBe(2);
    const statements = t.statements.length;
    expect(await media.serveVariant(prepared.sha256, 'w256')).toMatchObject({ found: true });
    expect(t.statements.length).toBe(statements);
  });

  it('keeps the first write when two instances encode the same variant at once: both serve the stored bytes', async () => {
    const other = createMediaService({ db: t.db, config });
    const gif = await animatedGif(120, 90, 4);
    const prepared = await prepareImage(gif, ['w64'], media.limits);
    if (!prepared.ok) throw new Error(prepared.message);
    await media.store.store(prepared);
    const [a, b] = await Promise.all([media.serveVariant(prepared.sha256, 'w1024'), other.serveVariant(prepared.sha256, 'w1024')]);
    expect(a.found && b.found).toBe(true);
    const [row] = await t.db.sql.query<{ etag: string }>(`SELECT etag FROM media_variants WHERE sha256 = $1 AND variant = 'w1024'`, [prepared.sha256]);
    expect(a.found && a.variant.etag).toBe(row!.etag);
    expect(b.found && b.variant.etag).toBe(row!.etag);
  });

  it('answers not found for a hash nothing is stored under, without encoding anything', async () => {
    const inserts = variantInserts();
    expect(await media.serveVariant('0'.repeat(64), 'w256')).toEqual({ found: false });
    expect(variantInserts()).toBe(inserts);
  });

  it('tells where a URL stands', async () => {
    const url = 'https://img.example/never-queued.png';
    expect(await media.mediaStatusForUrl(url)).toEqual({ url, status: 'UNKNOWN', sha256: null, urls: null, errorCode: null, errorMessage: null });
    await media.enqueueMediaSource(url, 'token');
    expect(await media.mediaStatusForUrl(url)).toMatchObject({ url, status: 'PENDING', sha256: null });
  });
});
