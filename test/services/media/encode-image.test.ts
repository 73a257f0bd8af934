// Encoding with the real sharp: what comes out is WebP we made (upright, no metadata), an
// animation keeps a still for the small sizes, SVG is rasterised without running or fetching
// anything, and the decoder's own guards (pixel limit, blocked loaders) hold even where the sniff
// is bypassed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp, { type Metadata } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeVariant, inspectImage, type DecodedImage } from '../../../src/services/media/encode-image.js';
import { prepareImage, type MediaLimits } from '../../../src/services/media/prepare-image.js';
import { animatedGif, noisyPng, pngDeclaring, rotatedJpegWithExif, solidPng, SVG_WITH_SCRIPT, svgWithExternalRefs } from '../../fixtures/media-images.js';

const LIMITS: MediaLimits = { maxBytes: 16 * 1024 * 1024, maxPixels: 64 * 1024 * 1024, timeoutSeconds: 20 };

const decoded = (m: Metadata) => ({ format: m.format, width: m.width, height: m.pageHeight ?? m.height, pages: m.pages ?? 1, exif: m.exif, icc: m.icc, xmp: m.xmp });

async function encoded(bytes: Buffer, variants: Array<'w64' | 'w256' | 'w1024'>) {
  const prepared = await prepareImage(bytes, variants, LIMITS);
  if (!prepared.ok) throw new Error(`refused: ${prepared.code} ${prepared.message}`);
  return prepared;
}

describe('encoding variants', () => {
  it('resizes to the variant width as WebP, never enlarging', async () => {
    const p = await encoded(await noisyPng(600, 300), ['w64', 'w256', 'w1024']);
    expect(p.image).toEqual({ ok: true, width: 600, height: 300, frames: 1 });
    const sizes = await Promise.all(p.variants.map(async (v) => [v.variant, v.contentType, decoded(await sharp(v.bytes).metadata())]));
    expect(sizes).toEqual([
      ['w64', 'image/webp', expect.objectContaining({ format: 'webp', width: 64, height: 32 })],
      ['w256', 'image/webp', expect.objectContaining({ format: 'webp', width: 256, height: 128 })],
      ['w1024', 'image/webp', expect.objectContaining({ format: 'webp', width: 600, height: 300 })],
    ]);
    for (const v of p.variants) expect(v.etag).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('turns a JPEG upright by its EXIF orientation and keeps none of its metadata', async () => {
    const jpeg = await rotatedJpegWithExif(200, 100, 60_000);
    expect((await sharp(jpeg).metadata()).exif!.length).toBeGreaterThan(60_000);
    const p = await encoded(jpeg, ['w64']);
    // stored 200 wide, shown (orientation 6) 100 wide and 200 tall
    expect(p.image).toMatchObject({ width: 100, height: 200 });
    const out = decoded(await sharp(p.variants[0]!.bytes).metadata());
    expect(out).toMatchObject({ width: 64, height: 128, exif: undefined, icc: undefined, xmp: undefined });
    expect(p.variants[0]!.bytes.includes(Buffer.from('secret-artist-name'))).toBe(false);
  });

  it('keeps a still for the small sizes of an animation and the animation for the large one', async () => {
    const gif = await animatedGif(300, 200, 6);
    const p = await encoded(gif, ['w64', 'w256', 'w1024']);
    expect(p.image.frames).toBe(6);
    const pages = await Promise.all(p.variants.map(async (v) => (await sharp(v.bytes, { animated: true }).metadata()).pages ?? 1));
    expect(pages).toEqual([1, 1, 6]);
  });

  it('keeps a still everywhere for an animation of too many frames', async () => {
    const p = await encoded(await animatedGif(32, 32, 400), ['w1024']);
    expect(p.image.frames).toBe(400);
    expect((await sharp(p.variants[0]!.bytes, { animated: true }).metadata()).pages ?? 1).toBe(1);
  });

  it('rasterises SVG at the variant size: the script is gone, nothing outside is fetched', async () => {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const icon = await encoded(SVG_WITH_SCRIPT, ['w64', 'w1024']);
      // a 24-unit icon drawn at 1024 px, not enlarged from 24
      expect(await Promise.all(icon.variants.map(async (v) => decoded(await sharp(v.bytes).metadata())))).toEqual([
        expect.objectContaining({ format: 'webp', width: 64, height: 64 }),
        expect.objectContaining({ format: 'webp', width: 1024, height: 1024 }),
      ]);
      for (const v of icon.variants) expect(v.bytes.includes(Buffer.from('script'))).toBe(false);
      const refs = await encoded(svgWithExternalRefs(origin), ['w256']);
      expect(refs.variants[0]!.contentType).toBe('image/webp');
      await new Promise((r) => setTimeout(r, 200));
      expect(asked).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('draws an SVG declaring 100,000 x 100,000 at the variant size instead of refusing it', async () => {
    const huge = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="50000" height="50000" fill="#123"/></svg>');
    const p = await encoded(huge, ['w256']);
    expect(decoded(await sharp(p.variants[0]!.bytes).metadata())).toMatchObject({ width: 256, height: 256 });
  });

  it('holds the decoder to the pixel limit when the sniff is not asked (a bomb reaching sharp)', async () => {
    const bomb = pngDeclaring(50_000, 50_000);
    expect(await inspectImage(bomb, 'png', LIMITS)).toMatchObject({ ok: false, code: 'TOO_MANY_PIXELS' });
    const lied: DecodedImage = { ok: true, width: 100, height: 100, frames: 1 };
    expect(await encodeVariant(bomb, 'png', lied, 'w64', LIMITS)).toMatchObject({ ok: false, code: 'TOO_MANY_PIXELS' });
  });

  it('runs only the decoders of the types stored: a TIFF handed to sharp as a PNG is refused', async () => {
    const tiff = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).tiff().toBuffer();
    expect(await inspectImage(tiff, 'png', LIMITS)).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE' });
  });

  it('refuses bytes the decoder reads as another type than the sniff said', async () => {
    expect(await inspectImage(await solidPng(10, 10), 'jpeg', LIMITS)).toMatchObject({ ok: false, code: 'AMBIGUOUS_TYPE' });
  });

  it('refuses truncated images as DECODE_FAILED', async () => {
    const png = await noisyPng(300, 300);
    const cut = await prepareImage(png.subarray(0, png.length >> 1), ['w64'], LIMITS);
    expect(cut).toMatchObject({ ok: false, code: 'DECODE_FAILED' });
  });
});
