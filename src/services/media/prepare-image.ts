// From bytes someone gave us to what is stored: the type sniffed from the content, the size
// checked against the limits before any decoder runs, the header read by the real decoder, then
// the asked-for variants encoded. Nothing here touches the database; a refusal is a value.
import { createHash } from 'node:crypto';
import { sniffImage, tooManyPixels, type ImageType } from '../../domain/image-sniff.js';
import { refusal, type MediaRefusal } from '../../domain/media-refusal.js';
import type { MediaVariant } from '../../domain/media-variants.js';
import { encodeVariant, inspectImage, type DecodedImage, type EncodeLimits, type EncodedVariant } from './encode-image.js';

export interface MediaLimits extends EncodeLimits {
  /** most source bytes stored */
  maxBytes: number;
}

export interface PreparedVariant extends EncodedVariant {
  variant: MediaVariant;
  /** the strong entity tag, quoted as sent */
  etag: string;
}

export interface PreparedImage {
  ok: true;
  sha256: string;
  type: ImageType;
  mimeType: string;
  image: DecodedImage;
  source: Buffer;
  variants: PreparedVariant[];
}

export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** 128 bits of the bytes' SHA-256: a strong validator (RFC 9110 8.8.3) that changes with any byte. */
export const etagOf = (bytes: Uint8Array) => `"${sha256Hex(bytes).slice(0, 32)}"`;

export const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** Checked and inspected, before any variant is encoded. */
export async function checkImage(bytes: Uint8Array, limits: MediaLimits): Promise<{ ok: true; type: ImageType; mimeType: string; image: DecodedImage } | MediaRefusal> {
  if (bytes.length > limits.maxBytes) return refusal('TOO_LARGE', `${bytes.length} bytes is over ${limits.maxBytes}`);
  const sniffed = sniffImage(bytes);
  if (!sniffed.ok) return sniffed;
  if (tooManyPixels(sniffed.width, sniffed.height, limits.maxPixels)) {
    return refusal('TOO_MANY_PIXELS', `the header declares ${sniffed.width} x ${sniffed.height} pixels, over ${limits.maxPixels}`);
  }
  const image = await inspectImage(asBuffer(bytes), sniffed.type, limits);
  if (!image.ok) return image;
  return { ok: true, type: sniffed.type, mimeType: sniffed.mimeType, image };
}

/** Encodes the variants, one at a time (each already uses libvips' threads). */
export async function encodeVariants(source: Buffer, type: ImageType, image: DecodedImage, variants: readonly MediaVariant[], limits: EncodeLimits): Promise<PreparedVariant[] | MediaRefusal> {
  const out: PreparedVariant[] = [];
  for (const variant of variants) {
    const encoded = await encodeVariant(source, type, image, variant, limits);
    if (!encoded.ok) return encoded;
    out.push({ ...encoded, variant, etag: etagOf(encoded.bytes) });
  }
  return out;
}

/** The whole way from bytes: checked, inspected, and `variants` encoded (those in `skip` are not: already stored). */
export async function prepareImage(bytes: Uint8Array, variants: readonly MediaVariant[], limits: MediaLimits, skip: ReadonlySet<string> = new Set()): Promise<PreparedImage | MediaRefusal> {
  const checked = await checkImage(bytes, limits);
  if (!checked.ok) return checked;
  const source = asBuffer(bytes);
  const encoded = await encodeVariants(source, checked.type, checked.image, variants.filter((v) => !skip.has(v)), limits);
  if (!Array.isArray(encoded)) return encoded;
  return { ok: true, sha256: sha256Hex(source), type: checked.type, mimeType: checked.mimeType, image: checked.image, source, variants: encoded };
}
