// The sizes we encode every stored image into, and the URLs they are served at. A variant name
// is a fixed recipe: its URL is cached for a year (`immutable`) by browsers and CDNs, so a
// changed recipe (another size, format or quality) must get a new name, never reuse an old one.

export const MEDIA_VARIANTS = {
  /** avatars, list rows: a still even for an animation */
  w64: { width: 64, animated: false },
  /** grid cards: a still even for an animation */
  w256: { width: 256, animated: false },
  /** a token's or a banner's page: animations stay animated */
  w1024: { width: 1024, animated: true },
} as const;

export type MediaVariant = keyof typeof MEDIA_VARIANTS;

export const MEDIA_VARIANT_NAMES = Object.keys(MEDIA_VARIANTS) as MediaVariant[];

/**
 * Encoded as soon as a token image is stored: decoding the whole source once at ingestion is what
 * proves it decodes (a truncated or corrupt file is refused then, not on a visitor's request), and
 * the smallest size is the cheapest proof. Logos and banners get every variant at once.
 */
export const TOKEN_EAGER_VARIANTS: readonly MediaVariant[] = ['w64'];

/** A variant is never taller than this many times its width (a 1 x 10,000 strip stays small). */
export const MAX_ASPECT = 4;

export const isMediaVariant = (name: string): name is MediaVariant => Object.hasOwn(MEDIA_VARIANTS, name);

const SHA256_HEX = /^[0-9a-f]{64}$/;
export const isSha256Hex = (s: string) => SHA256_HEX.test(s);

export const MEDIA_PATH_PREFIX = '/media/';

export const mediaPath = (sha256: string, variant: MediaVariant) => `${MEDIA_PATH_PREFIX}${sha256}/${variant}`;

/**
 * The URL a client is given for a variant: under MEDIA_BASE_URL (a CDN serving the same paths)
 * when set, else root-relative (resolved against the API's own origin).
 */
export const mediaUrlFor = (baseUrl: string | undefined, sha256: string, variant: MediaVariant) => `${baseUrl ?? ''}${mediaPath(sha256, variant)}`;

export type MediaPathParse =
  | { ok: true; sha256: string; variant: MediaVariant }
  /** malformed: not /media/<64 lower-case hex digits>/<name> */
  | { ok: false; reason: 'malformed' }
  /** well formed, but no such variant is ever encoded */
  | { ok: false; reason: 'unknown-variant' };

/** A request path under /media/ (the caller checked the prefix). */
export function parseMediaPath(path: string): MediaPathParse {
  const rest = path.slice(MEDIA_PATH_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash !== 64) return { ok: false, reason: 'malformed' };
  const sha256 = rest.slice(0, 64);
  const variant = rest.slice(65);
  if (!isSha256Hex(sha256) || !/^[a-z0-9]{1,16}$/.test(variant)) return { ok: false, reason: 'malformed' };
  if (!isMediaVariant(variant)) return { ok: false, reason: 'unknown-variant' };
  return { ok: true, sha256, variant };
}

/**
 * The width and height a variant of a width x height image gets: the variant's width at most, at
 * most MAX_ASPECT times as tall, and never enlarged unless `enlarge` (a vector image, drawn at the
 * size it is shown).
 */
export function variantSize(variant: MediaVariant, width: number, height: number, enlarge = false): { width: number; height: number } {
  const w = MEDIA_VARIANTS[variant].width;
  const scale = Math.min(enlarge ? Infinity : 1, w / width, (MAX_ASPECT * w) / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The media a URL of ours names (MEDIA_BASE_URL's or root-relative), or null for anyone else's URL. */
export function ownMediaSha256(url: string, baseUrl: string | undefined): string | null {
  const path = baseUrl && url.startsWith(`${baseUrl}${MEDIA_PATH_PREFIX}`) ? url.slice(baseUrl.length) : url;
  if (!path.startsWith(MEDIA_PATH_PREFIX)) return null;
  const parsed = parseMediaPath(path);
  return parsed.ok ? parsed.sha256 : null;
}
