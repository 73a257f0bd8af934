// The answer to GET or HEAD /media/<sha256>/<variant>, as a CDN origin gives it, before it is
// written: node:http writes it in the media lane (./media-lane.ts), yoga's plugin makes it a
// Response (./media-plugin.ts), so both give the same bytes and headers.
//
// A variant never changes under its URL, so it is cached for a year everywhere (`immutable`: a
// browser does not even revalidate on reload), with a strong ETag for the caches that ask anyway
// (304) and for ranges (If-Range). Every answer, errors included, is sandboxed: `nosniff` keeps a
// browser to our Content-Type, and the policy forbids any script or subresource should a
// variant ever be opened as a document.
import { isDatabaseUnavailable } from '../db/database-unavailable.js';
import { parseMediaPath } from '../domain/media-variants.js';
import { RETRY_AFTER_SECONDS } from '../schema/errors.js';
import type { MediaService, VariantLookup } from '../services/media/index.js';
import { byteRange } from './byte-range.js';
import { ifRangeHolds, noneMatchHolds } from './entity-tag.js';

export interface MediaAnswer {
  status: number;
  headers: Record<string, string>;
  /** null: no body (HEAD, 304) */
  body: Buffer | string | null;
}

export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const SANDBOX = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  // meant to be embedded by other sites' pages, including those that isolate themselves (COEP)
  'cross-origin-resource-policy': 'cross-origin',
};

function refusal(status: number, message: string, extra: Record<string, string> = {}): MediaAnswer {
  return {
    status,
    // a path that names nothing now may name a stored image later: no cache keeps this answer
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...SANDBOX, ...extra },
    body: `${message}\n`,
  };
}

export async function answerMedia(media: Pick<MediaService, 'serveVariant'>, method: string, path: string, header: (name: string) => string | null): Promise<MediaAnswer> {
  if (method !== 'GET' && method !== 'HEAD') return refusal(405, `${method} is not allowed on media`, { allow: 'GET, HEAD' });
  const parsed = parseMediaPath(path);
  if (!parsed.ok) {
    return parsed.reason === 'malformed'
      ? refusal(400, 'a media path is /media/<sha256: 64 lower-case hex digits>/<variant>')
      : refusal(404, 'no such variant: w64, w256 and w1024 are served');
  }
  let found: VariantLookup;
  try {
    found = await media.serveVariant(parsed.sha256, parsed.variant);
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err;
    return refusal(503, 'the database is not answering: retry in a few seconds', { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }
  if (!found.found) {
    return found.refused
      ? refusal(404, `this variant of the image could not be encoded (${found.refused.code})`)
      : refusal(404, 'no image is stored under this hash');
  }
  const { etag, contentType, bytes } = found.variant;
  const headers: Record<string, string> = { 'content-type': contentType, etag, 'cache-control': MEDIA_CACHE_CONTROL, 'accept-ranges': 'bytes', ...SANDBOX };
  // If-None-Match is evaluated before Range (13.2.2)
  if (noneMatchHolds(header('if-none-match'), etag)) {
    const { 'content-type': _type, 'accept-ranges': _ranges, ...notModified } = headers;
    return { status: 304, headers: notModified, body: null };
  }
  const range = method === 'GET' && ifRangeHolds(header('if-range'), etag) ? byteRange(header('range'), bytes.length) : { kind: 'whole' as const };
  if (range.kind === 'unsatisfiable') {
    return { status: 416, headers: { ...headers, 'content-range': `bytes */${bytes.length}`, 'content-length': '0' }, body: null };
  }
  if (range.kind === 'part') {
    const part = bytes.subarray(range.start, range.end + 1);
    headers['content-range'] = `bytes ${range.start}-${range.end}/${bytes.length}`;
    headers['content-length'] = String(part.length);
    return { status: 206, headers, body: part };
  }
  headers['content-length'] = String(bytes.length);
  return { status: 200, headers, body: method === 'HEAD' ? null : bytes };
}
