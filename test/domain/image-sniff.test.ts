// The type of an image from its bytes, and the pixel size its header declares: real files made by
// sharp, hand-built headers (bombs), and things that are not images (HTML, JSON, TIFF, SVG with
// entities, polyglots).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { sniffImage, tooManyPixels } from '../../src/domain/image-sniff.js';
import {
  GIF_JS_POLYGLOT,
  gifDeclaring,
  HTML_AS_JPEG,
  jpegDeclaring,
  pngDeclaring,
  pngWithText,
  solidPng,
  SVG_ENTITY_BOMB,
  SVG_WITH_SCRIPT,
  webpDeclaring,
} from '../fixtures/media-images.js';

const made = (format: 'png' | 'jpeg' | 'gif' | 'webp' | 'avif' | 'tiff', width = 40, height = 30, options: Record<string, unknown> = {}) =>
  sharp({ create: { width, height, channels: 3, background: '#f80' } })
    [format](options)
    .toBuffer();

describe('sniffImage', () => {
  it.each([
    ['png', 'image/png', {}],
    ['jpeg', 'image/jpeg', {}],
    ['gif', 'image/gif', {}],
    ['webp', 'image/webp', {}],
    ['webp', 'image/webp', { lossless: true }],
    ['avif', 'image/avif', {}],
  ] as const)('recognises %s (%j) and reads its size where the header has it', async (format, mimeType, options) => {
    const sniffed = sniffImage(await made(format, 40, 30, options));
    expect(sniffed).toMatchObject({ ok: true, type: format, mimeType });
    if (format !== 'avif') expect(sniffed).toMatchObject({ width: 40, height: 30 });
  });

  it('reads the declared size of hand-built headers, however large', () => {
    expect(sniffImage(pngDeclaring(50_000, 50_000))).toMatchObject({ ok: true, type: 'png', width: 50_000, height: 50_000 });
    expect(sniffImage(jpegDeclaring(65_000, 60_000))).toMatchObject({ ok: true, type: 'jpeg', width: 65_000, height: 60_000 });
    expect(sniffImage(gifDeclaring(65_535, 65_535))).toMatchObject({ ok: true, type: 'gif', width: 65_535, height: 65_535 });
    expect(sniffImage(webpDeclaring(16_383, 16_383))).toMatchObject({ ok: true, type: 'webp', width: 16_383, height: 16_383 });
    expect(tooManyPixels(50_000, 50_000, 64 * 1024 * 1024)).toBe(true);
    expect(tooManyPixels(8192, 8192, 64 * 1024 * 1024)).toBe(false);
    expect(tooManyPixels(null, null, 1)).toBe(false);
  });

  it('recognises SVG by its first element, after a prolog, comments and a plain DOCTYPE', () => {
    expect(sniffImage(SVG_WITH_SCRIPT)).toMatchObject({ ok: true, type: 'svg', mimeType: 'image/svg+xml' });
    const withDoctype = '\uFEFF  <!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg"/>';
    expect(sniffImage(Buffer.from(withDoctype))).toMatchObject({ ok: true, type: 'svg' });
  });

  it('refuses an SVG that declares entities (billion laughs)', () => {
    expect(sniffImage(SVG_ENTITY_BOMB)).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE', message: expect.stringMatching(/entities/) });
  });

  it('refuses HTML whatever it is called, and names what it is', () => {
    expect(sniffImage(HTML_AS_JPEG)).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE', message: expect.stringMatching(/HTML/) });
    expect(sniffImage(Buffer.from('<html><body><svg xmlns="http://www.w3.org/2000/svg"/></body></html>'))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE' });
    expect(sniffImage(Buffer.from('{"image":"x.png"}'))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE', message: expect.stringMatching(/JSON/) });
  });

  it('refuses formats that are not stored, even ones the decoder could read', async () => {
    expect(sniffImage(await made('tiff'))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE', message: expect.stringMatching(/TIFF/) });
    expect(sniffImage(Buffer.from('%PDF-1.7\n'))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE', message: expect.stringMatching(/PDF/) });
    expect(sniffImage(Buffer.from([0x1f, 0x8b, 8, 0]))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE', message: expect.stringMatching(/gzip/) });
    expect(sniffImage(Buffer.from([0x00, 0x00, 0x00, 0x18, ...Buffer.from('ftypheic'), 0, 0, 0, 0]))).toMatchObject({ ok: false, code: 'UNSUPPORTED_TYPE' });
  });

  it('refuses polyglots: an image that also carries a page or a script', async () => {
    expect(sniffImage(GIF_JS_POLYGLOT)).toMatchObject({ ok: false, code: 'AMBIGUOUS_TYPE' });
    const png = await solidPng(20, 20);
    expect(sniffImage(pngWithText(png, 'Comment', '<html><body><script>alert(1)</script></body></html>'))).toMatchObject({ ok: false, code: 'AMBIGUOUS_TYPE' });
    // text that merely mentions markup-like words is not markup
    expect(sniffImage(pngWithText(png, 'Comment', 'made with <3 for scripts and html pages'))).toMatchObject({ ok: true, type: 'png' });
  });

  it('refuses nothing at all, and headers that declare no pixels or lose their chunk', () => {
    expect(sniffImage(new Uint8Array())).toMatchObject({ ok: false, code: 'EMPTY' });
    expect(sniffImage(pngDeclaring(0, 10))).toMatchObject({ ok: false, code: 'DECODE_FAILED' });
    expect(sniffImage(pngDeclaring(10, 10).subarray(0, 12))).toMatchObject({ ok: false, code: 'DECODE_FAILED' });
    expect(sniffImage(Buffer.from('GIF89a'))).toMatchObject({ ok: false, code: 'DECODE_FAILED' });
  });

  it('never throws on arbitrary bytes', () => {
    let seed = 7;
    for (let n = 0; n < 2000; n++) {
      const bytes = Buffer.alloc(n % 64);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      // every known signature as a prefix, then random bytes
      const prefix = [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0xff, 0xd8, 0xff], [...Buffer.from('GIF89a')], [...Buffer.from('RIFF\0\0\0\0WEBPVP8 ')], [...Buffer.from('\0\0\0\x20ftypavif')], []][n % 6]!;
      const outcome = sniffImage(Buffer.concat([Buffer.from(prefix), bytes]));
      expect(typeof outcome.ok).toBe('boolean');
    }
  });
});
