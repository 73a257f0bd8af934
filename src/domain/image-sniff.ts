// What a file is, from its bytes alone: a Content-Type header, a file name or a data: URI's media
// type says what someone claims, and a JPEG that is really an HTML page claims to be a JPEG. The
// signatures are those of the WHATWG MIME Sniffing standard's image table
// (https://mimesniff.spec.whatwg.org/#matching-an-image-type-pattern), plus AVIF's ftyp brands
// (ISO/IEC 23008-12) and SVG, recognised as text whose first element is <svg>.
//
// Also reads the pixel size the header declares where the format puts it at a fixed place (PNG,
// GIF, JPEG, WebP), so a decompression bomb (a 50,000 x 50,000 PNG of a few hundred bytes) is
// refused before a decoder allocates anything. The decoder enforces the same limit again
// (src/services/media/encode-image.ts); this is the cheap first look. Pure: no I/O, no decoder.
import { refusal, type MediaRefusal } from './media-refusal.js';

export const IMAGE_TYPES = ['png', 'jpeg', 'gif', 'webp', 'avif', 'svg'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export const IMAGE_MIME_TYPES: Record<ImageType, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
};

export interface SniffedImage {
  ok: true;
  type: ImageType;
  mimeType: string;
  /** as the header declares them; null where the format keeps them elsewhere (AVIF, SVG) */
  width: number | null;
  height: number | null;
}

export type SniffOutcome = SniffedImage | MediaRefusal;

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const be32 = (b: Uint8Array, i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
const le16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const le24 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

/**
 * Markup a browser or an interpreter would act on. A binary image carrying it is a polyglot
 * (GIFAR, a PNG whose text chunk is a page, a JPEG with a <script> comment): nothing we serve
 * contains it (every variant is encoded again), but such a file was made to be something else
 * too, and is refused as AMBIGUOUS_TYPE rather than guessed at. XMP's <x:xmpmeta> and <rdf:...>
 * do not match.
 */
const MARKUP = /<(?:script|html|body|iframe|object|embed|\?php|!doctype\s+html)[\s>/]/i;

function pngSize(b: Uint8Array): [number, number] | null {
  // the IHDR chunk comes first (PNG spec 5.6)
  return b.length >= 24 && ascii(b, 12, 16) === 'IHDR' ? [be32(b, 16), be32(b, 20)] : null;
}

function gifSize(b: Uint8Array): [number, number] | null {
  // the logical screen descriptor (GIF89a section 18)
  return b.length >= 10 ? [le16(b, 6), le16(b, 8)] : null;
}

/** The first start-of-frame segment's size (ITU T.81 B.2.2); null if none comes before the scan. */
function jpegSize(b: Uint8Array): [number, number] | null {
  let i = 2;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // standalone markers have no length
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = be16(b, i + 2);
    if (length < 2) return null;
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) return i + 9 <= b.length ? [be16(b, i + 7), be16(b, i + 5)] : null;
    i += 2 + length;
  }
  return null;
}

/** The canvas size of the three WebP bitstreams (RFC 9649 sections 2.5-2.7). */
function webpSize(b: Uint8Array): [number, number] | null {
  const chunk = ascii(b, 12, 16);
  if (chunk === 'VP8 ' && b.length >= 30 && startsWith(b, [0x9d, 0x01, 0x2a], 23)) return [le16(b, 26) & 0x3fff, le16(b, 28) & 0x3fff];
  if (chunk === 'VP8L' && b.length >= 25 && b[20] === 0x2f) {
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
  }
  if (chunk === 'VP8X' && b.length >= 30) return [le24(b, 24) + 1, le24(b, 27) + 1];
  return null;
}

/** An ISO-BMFF file whose ftyp box names an AVIF brand (major or compatible). */
function isAvif(b: Uint8Array): boolean {
  if (b.length < 16 || ascii(b, 4, 8) !== 'ftyp') return false;
  const size = Math.min(be32(b, 0), b.length, 4096);
  for (let i = 8; i + 4 <= size; i += i === 8 ? 8 : 4) {
    const brand = ascii(b, i, i + 4);
    if (brand === 'avif' || brand === 'avis') return true;
  }
  return false;
}

/** Names of things that are not images we store, for a refusal people can read. */
function knownOther(b: Uint8Array, text: string): string | null {
  if (startsWith(b, [0x1f, 0x8b])) return 'gzip data (a compressed SVG is not stored)';
  if (startsWith(b, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'a PDF document';
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) return 'a ZIP archive';
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'a TIFF image (not stored)';
  if (startsWith(b, [0x42, 0x4d])) return 'a BMP image (not stored)';
  if (startsWith(b, [0x00, 0x00, 0x01, 0x00])) return 'an ICO image (not stored)';
  if (b.length >= 12 && ascii(b, 4, 8) === 'ftyp') return `an ISO media file of brand ${JSON.stringify(ascii(b, 8, 12))} (not AVIF)`;
  if (/^<(?:!doctype\s+html|html|head|body|script|iframe|meta|title)[\s>/]/i.test(text)) return 'an HTML document';
  if (/^\s*[{[]/.test(text)) return 'JSON';
  return null;
}

/** The text before the first element, skipped: an XML declaration, comments, processing instructions, a DOCTYPE. */
const PROLOG = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE\s[^[>]*>)*/i;

function sniffSvg(text: string): SniffOutcome | null {
  const prolog = PROLOG.exec(text)![0];
  const rest = text.slice(prolog.length);
  // a DOCTYPE with an internal subset declares entities (billion laughs, external files): SVG
  // needs none, and no renderer should be asked to expand them
  if (/^<!DOCTYPE\s[^>]*\[/i.test(rest) || /<!ENTITY/i.test(text)) return refusal('UNSUPPORTED_TYPE', 'an SVG (or XML) document declaring entities in a DTD');
  if (!/^<(?:svg:)?svg[\s>/]/.test(rest)) return null;
  return { ok: true, type: 'svg', mimeType: IMAGE_MIME_TYPES.svg, width: null, height: null };
}

/** Reads the first bytes as text if they are text: UTF-8 (a BOM allowed), no NUL or other C0 control but whitespace. */
function leadingText(b: Uint8Array): string | null {
  const head = b.subarray(0, 4096);
  for (const byte of head) if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return null;
  return new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/^\uFEFF/, '');
}

/** The type of `bytes` from their content, with the header's pixel size where it has one. */
export function sniffImage(bytes: Uint8Array): SniffOutcome {
  if (bytes.length === 0) return refusal('EMPTY', 'no bytes');
  let type: Exclude<ImageType, 'svg'> | null = null;
  let size: [number, number] | null = null;
  if (startsWith(bytes, PNG)) {
    type = 'png';
    size = pngSize(bytes);
    if (!size) return refusal('DECODE_FAILED', 'a PNG without its IHDR chunk');
  } else if (startsWith(bytes, JPEG)) {
    type = 'jpeg';
    size = jpegSize(bytes);
  } else if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') {
    type = 'gif';
    size = gifSize(bytes);
    if (!size) return refusal('DECODE_FAILED', 'a GIF cut off in its header');
  } else if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') {
    type = 'webp';
    size = webpSize(bytes);
  } else if (isAvif(bytes)) {
    type = 'avif';
  }
  if (type) {
    if (size && (size[0] === 0 || size[1] === 0)) return refusal('DECODE_FAILED', `a ${type.toUpperCase()} header declaring ${size[0]} x ${size[1]} pixels`);
    // latin1 maps each byte to one character: the regular expression sees the bytes as they are
    if (MARKUP.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'))) {
      return refusal('AMBIGUOUS_TYPE', `a ${type.toUpperCase()} that also carries HTML or script markup (a polyglot)`);
    }
    return { ok: true, type, mimeType: IMAGE_MIME_TYPES[type], width: size?.[0] ?? null, height: size?.[1] ?? null };
  }
  const text = leadingText(bytes);
  if (text !== null) {
    const svg = sniffSvg(text);
    if (svg) return svg;
  }
  const other = knownOther(bytes, text?.replace(PROLOG, '') ?? '');
  return refusal('UNSUPPORTED_TYPE', other ? `${other}, not an image` : 'not a PNG, JPEG, GIF, WebP, AVIF or SVG image');
}

/** Width x height over the limit (either unknown: not yet known to be over). */
export function tooManyPixels(width: number | null, height: number | null, maxPixels: number): boolean {
  return width !== null && height !== null && width * height > maxPixels;
}
