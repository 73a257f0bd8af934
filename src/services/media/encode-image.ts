// Decoding and encoding with sharp (libvips). What comes out is always an image we encoded
// ourselves: WebP, turned upright by its EXIF orientation, with no metadata (sharp writes none
// unless asked: EXIF, XMP, ICC and comments of the source are gone), a still image for the small
// sizes of an animation. SVG is rasterised here (librsvg, which runs no script and, reading from
// memory, loads no external file or URL) and never served as SVG.
//
// The guards: only the decoders of the types we store can run (sharp.block: TIFF, PDF, FITS and
// the rest of libvips' loaders are refused whatever the bytes say); every decode is held to
// MEDIA_MAX_PIXELS (limitInputPixels, so a decompression bomb fails before its pixels are
// allocated; an animation is kept only while all its frames together stay within it); and every
// encode to a time limit.
import { refusal, type MediaRefusal } from '../../domain/media-refusal.js';
import type { ImageType } from '../../domain/image-sniff.js';
import { MEDIA_VARIANTS, variantSize, type MediaVariant } from '../../domain/media-variants.js';

type Sharp = typeof import('sharp').default;

export interface EncodeLimits {
  /** width x height (x frames) any decode may reach */
  maxPixels: number;
  /** one variant's decode and encode */
  timeoutSeconds: number;
}

export interface DecodedImage {
  ok: true;
  /** upright (after the EXIF orientation), one frame's */
  width: number;
  height: number;
  frames: number;
}

export interface EncodedVariant {
  ok: true;
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/** An animation with more frames than this keeps its first frame in every variant. */
const MAX_ANIMATED_FRAMES = 300;
/** librsvg's accepted densities (DPI): sharp refuses others. */
const MIN_DENSITY = 1;
const MAX_DENSITY = 100_000;
/** The format libvips names for each type we store (AVIF is read by its HEIF loader). */
const LIBVIPS_FORMAT: Record<ImageType, string> = { png: 'png', jpeg: 'jpeg', gif: 'gif', webp: 'webp', avif: 'heif', svg: 'svg' };

let loading: Promise<Sharp> | null = null;

/** sharp, loaded with the first image (a process that never sees one does not carry libvips). */
export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then(({ default: sharp }): Sharp => {
    // the variants are cached as bytes by the service; libvips' own cache would only hold memory
    sharp.cache(false);
    sharp.block({ operation: ['VipsForeignLoad'] });
    sharp.unblock({ operation: ['VipsForeignLoadPng', 'VipsForeignLoadJpeg', 'VipsForeignLoadNsgif', 'VipsForeignLoadWebp', 'VipsForeignLoadHeif', 'VipsForeignLoadSvg'] });
    return sharp;
  });
  return loading;
}

/** A decoder's or encoder's error as a refusal (libvips says what it is only in its message). */
export function refusalFromError(err: unknown): MediaRefusal {
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim().slice(0, 300);
  if (/pixel limit/i.test(message)) return refusal('TOO_MANY_PIXELS', message);
  if (/timeout/i.test(message)) return refusal('ENCODE_TIMEOUT', message);
  if (/unsupported image format/i.test(message)) return refusal('UNSUPPORTED_TYPE', message);
  return refusal('DECODE_FAILED', message);
}

/**
 * Reads the header with the real decoder: the size (upright) and the frames. The decoder must
 * agree with the sniff: a file two decoders would read differently is not guessed at.
 */
export async function inspectImage(bytes: Buffer, type: ImageType, limits: EncodeLimits): Promise<DecodedImage | MediaRefusal> {
  const sharp = await loadSharp();
  try {
    // An SVG's declared size only sets the scale it is drawn at (encodeVariant draws it at the
    // variant's size), so its header is not held to the pixel limit; its rendering is.
    const m = await sharp(bytes, { limitInputPixels: type === 'svg' ? false : limits.maxPixels, failOn: 'error' }).metadata();
    if (m.format !== LIBVIPS_FORMAT[type] || (type === 'avif' && m.compression !== 'av1')) {
      return refusal('AMBIGUOUS_TYPE', `sniffed as ${type} but the decoder reads ${m.format}${m.compression ? `/${m.compression}` : ''}`);
    }
    const frames = Math.max(1, m.pages ?? 1);
    const pageHeight = m.pageHeight ?? m.height;
    if (!m.width || !pageHeight) return refusal('DECODE_FAILED', 'the decoder found no size');
    if (type !== 'svg' && m.width * pageHeight > limits.maxPixels) return refusal('TOO_MANY_PIXELS', `${m.width} x ${pageHeight} is over ${limits.maxPixels} pixels`);
    // orientations 5-8 turn the image a quarter
    const turned = (m.orientation ?? 1) >= 5;
    return { ok: true, width: turned ? pageHeight : m.width, height: turned ? m.width : pageHeight, frames };
  } catch (err) {
    return refusalFromError(err);
  }
}

/** One variant of an inspected image: decoded, turned upright, resized, encoded as WebP. */
export async function encodeVariant(bytes: Buffer, type: ImageType, image: DecodedImage, variant: MediaVariant, limits: EncodeLimits): Promise<EncodedVariant | MediaRefusal> {
  // all frames decoded at once count together against the limit: a long or large animation keeps its first frame
  const animated =
    MEDIA_VARIANTS[variant].animated && image.frames > 1 && image.frames <= MAX_ANIMATED_FRAMES && image.width * image.height * image.frames <= limits.maxPixels;
  const encoded = await encode(bytes, type, image, variant, limits, animated);
  // a later frame that does not decode (a truncated GIF) leaves the first one, which did at ingestion
  return !encoded.ok && animated && encoded.code === 'DECODE_FAILED' ? encode(bytes, type, image, variant, limits, false) : encoded;
}

async function encode(bytes: Buffer, type: ImageType, image: DecodedImage, variant: MediaVariant, limits: EncodeLimits, animated: boolean): Promise<EncodedVariant | MediaRefusal> {
  const sharp = await loadSharp();
  const target = variantSize(variant, image.width, image.height, type === 'svg');
  // an SVG is drawn at the size it is wanted at (a 24-unit icon stays sharp at 1024 px; a
  // 100,000-unit one is not drawn at 100,000 px first)
  const density = type === 'svg' ? Math.min(MAX_DENSITY, Math.max(MIN_DENSITY, (72 * target.width) / image.width)) : undefined;
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'error', animated, autoOrient: true, ...(density ? { density } : {}) })
      // an animation's frames are resized one by one, to the width (the height follows)
      .resize(animated ? { width: target.width, withoutEnlargement: true } : { width: target.width, height: target.height, fit: 'fill' })
      .webp({ quality: 80, effort: 4 })
      .timeout({ seconds: limits.timeoutSeconds })
      .toBuffer({ resolveWithObject: true });
    return { ok: true, bytes: data, contentType: 'image/webp', width: info.width, height: info.pageHeight ?? info.height };
  } catch (err) {
    return refusalFromError(err);
  }
}
