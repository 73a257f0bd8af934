// Media: images stored once under the SHA-256 of their bytes and served from /media/ as variants we
// encoded (docs/media.md). The entry points other code calls:
// - mediaUrlFor(sha256, variant): the URL a client is given (MEDIA_BASE_URL's, or root-relative);
// - enqueueMediaSource(url, purpose) / enqueueMediaSources: a logo's, banner's or token image's
//   URL to fetch (the worker, ./media-worker.ts, drains the queue);
// - mediaStatusForUrl(url) / mediaStatusForUrls: where a URL stands (PENDING, STORED with its
//   variant URLs, REFUSED with a code; UNKNOWN if never queued);
// - upload(bytes): an admin's image, stored with every variant at once;
// - serveVariant(sha256, variant): the bytes of a variant, encoded now if this is its first request
//   (once per instance however many requests arrive together), cached in memory after;
// - collectGarbage(): ./media-gc.ts with the configured grace.
import { availableParallelism } from 'node:os';
import { refusal, type MediaRefusal } from '../../domain/media-refusal.js';
import { MEDIA_VARIANT_NAMES, mediaUrlFor, type MediaVariant } from '../../domain/media-variants.js';
import type { ServiceDeps } from '../deps.js';
import { createConcurrencyGate } from './concurrency-gate.js';
import { collectMediaGarbage } from './media-gc.js';
import { createMediaQueue, type MediaSourceStatus } from './media-queue.js';
import { createMediaStore, type StoredVariant } from './media-store.js';
import { encodeVariants, prepareImage, sha256Hex, type MediaLimits } from './prepare-image.js';
import { createVariantCache } from './variant-cache.js';

export type MediaPurpose = 'logo' | 'banner' | 'token';

export interface MediaStatus {
  url: string;
  /** UNKNOWN: never queued (or collected) */
  status: MediaSourceStatus | 'UNKNOWN';
  /** the stored media (kept while the URL is fetched again) */
  sha256: string | null;
  /** the URL of each variant, when stored */
  urls: Record<MediaVariant, string> | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface UploadAnswer {
  sha256: string;
  /** false: these bytes were stored already */
  created: boolean;
  mimeType: string;
  width: number;
  height: number;
  frames: number;
  urls: Record<MediaVariant, string>;
}

export type VariantLookup = { found: true; variant: StoredVariant } | { found: false; refused?: MediaRefusal };

/** One variant's decode and encode, at most. */
const ENCODE_TIMEOUT_SECONDS = 20;
/** A variant that could not be encoded is not tried again by this process for this long. */
const REFUSED_TTL_MS = 10 * 60_000;
const MAX_REMEMBERED_REFUSALS = 1000;

export function createMediaService(deps: Pick<ServiceDeps, 'db' | 'config'>) {
  const cfg = deps.config.media;
  const limits: MediaLimits = { maxBytes: cfg.maxBytes, maxPixels: cfg.maxPixels, timeoutSeconds: ENCODE_TIMEOUT_SECONDS };
  const store = createMediaStore(deps.db.sql);
  const queue = createMediaQueue(deps.db.sql);
  const cache = createVariantCache(cfg.cacheBytes);
  const encodeGate = createConcurrencyGate(availableParallelism());
  const encoding = new Map<string, Promise<VariantLookup>>();
  const refused = new Map<string, { refusal: MediaRefusal; until: number }>();
  const enqueueListeners = new Set<() => void>();

  const urlFor = (sha256: string, variant: MediaVariant) => mediaUrlFor(cfg.baseUrl, sha256, variant);
  const variantUrls = (sha256: string) => Object.fromEntries(MEDIA_VARIANT_NAMES.map((v) => [v, urlFor(sha256, v)])) as Record<MediaVariant, string>;

  async function enqueueMediaSources(urls: readonly string[], purpose: MediaPurpose, opts: { refresh?: boolean } = {}): Promise<void> {
    await queue.enqueue(urls, { eager: purpose !== 'token', refresh: opts.refresh });
    for (const wake of enqueueListeners) wake();
  }

  async function mediaStatusForUrls(urls: readonly string[]): Promise<Map<string, MediaStatus>> {
    const states = await queue.states(urls);
    return new Map(
      urls.map((url) => {
        const s = states.get(url);
        const status: MediaStatus = s
          ? { url, status: s.status, sha256: s.sha256, urls: s.sha256 ? variantUrls(s.sha256) : null, errorCode: s.errorCode, errorMessage: s.errorMessage }
          : { url, status: 'UNKNOWN', sha256: null, urls: null, errorCode: null, errorMessage: null };
        return [url, status];
      }),
    );
  }

  async function encodeOnRequest(sha256: string, variant: MediaVariant, key: string): Promise<VariantLookup> {
    const source = await store.source(sha256);
    if (!source) return { found: false };
    const image = { ok: true as const, width: source.width, height: source.height, frames: source.frames };
    const encoded = await encodeGate.run(() => encodeVariants(source.source, source.type, image, [variant], limits));
    if (!Array.isArray(encoded)) {
      if (refused.size >= MAX_REMEMBERED_REFUSALS) refused.delete(refused.keys().next().value!);
      refused.set(key, { refusal: encoded, until: Date.now() + REFUSED_TTL_MS });
      return { found: false, refused: encoded };
    }
    const stored = await store.addVariant(sha256, encoded[0]!);
    if (!stored) return { found: false };
    cache.set(key, stored);
    return { found: true, variant: stored };
  }

  /** A variant to serve: from memory, else the database, else encoded now from the stored source. */
  async function serveVariant(sha256: string, variant: MediaVariant): Promise<VariantLookup> {
    const key = `${sha256}/${variant}`;
    const cached = cache.get(key);
    if (cached) return { found: true, variant: cached };
    const inFlight = encoding.get(key);
    if (inFlight) return inFlight;
    const known = refused.get(key);
    if (known && known.until > Date.now()) return { found: false, refused: known.refusal };
    const row = await store.variant(sha256, variant);
    if (row.variant) {
      cache.set(key, row.variant);
      return { found: true, variant: row.variant };
    }
    if (!row.known) return { found: false };
    // the first request of this variant: one encode per process however many ask at once (one
    // that finished while this request read the database left its bytes in the cache)
    const encodedMeanwhile = cache.get(key);
    if (encodedMeanwhile) return { found: true, variant: encodedMeanwhile };
    let pending = encoding.get(key);
    if (!pending) {
      pending = encodeOnRequest(sha256, variant, key).finally(() => encoding.delete(key));
      encoding.set(key, pending);
    }
    return pending;
  }

  async function upload(bytes: Uint8Array): Promise<UploadAnswer | MediaRefusal> {
    if (bytes.length > limits.maxBytes) return refusal('TOO_LARGE', `${bytes.length} bytes is over ${limits.maxBytes}`);
    const sha256 = sha256Hex(bytes);
    const stored = await store.storedVariants(sha256);
    const prepared = await encodeGate.run(() => prepareImage(bytes, MEDIA_VARIANT_NAMES, limits, stored.variants));
    if (!prepared.ok) return prepared;
    // collected between the two statements (an upload of bytes unnamed for the grace period): stored anew
    if (!(await store.store(prepared, { sourceStored: stored.known })).stored) await store.store(prepared);
    const { image, mimeType } = prepared;
    return { sha256, created: !stored.known, mimeType, width: image.width, height: image.height, frames: image.frames, urls: variantUrls(sha256) };
  }

  return {
    /** MEDIA_BASE_URL (no trailing slash), or undefined: root-relative URLs */
    baseUrl: cfg.baseUrl,
    limits,
    store,
    queue,
    encodeGate,
    mediaUrlFor: urlFor,
    variantUrls,
    enqueueMediaSources,
    enqueueMediaSource: (url: string, purpose: MediaPurpose, opts?: { refresh?: boolean }) => enqueueMediaSources([url], purpose, opts),
    mediaStatusForUrls,
    mediaStatusForUrl: async (url: string) => (await mediaStatusForUrls([url])).get(url)!,
    serveVariant,
    upload,
    collectGarbage: () => collectMediaGarbage(deps.db.sql, cfg.gcGraceMs),
    /** called after every enqueue (the worker wakes up) */
    onEnqueue(listener: () => void): () => void {
      enqueueListeners.add(listener);
      return () => enqueueListeners.delete(listener);
    },
    cacheStats: () => cache.stats(),
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
