// The media worker (docs/media.md): drains the media queue (./media-queue.ts) with MEDIA_CONCURRENCY
// sources in flight, each slot claiming one source at a time (an image takes a fetch and an
// encode: a statement per claim costs nothing beside them, and no slot waits for another's slow
// host). A source is read through the metadata pipeline's fetcher (../metadata-fetch/: SSRF
// guard on every hop and resolved address, IPFS verified against its CID, Arweave, data: URIs,
// time and size caps, per-host limits, retries), checked and encoded (./prepare-image.ts), and
// stored with its outcome in one statement (./media-store.ts). Every source ends STORED or
// REFUSED with a code; a transient failure is tried again with backoff. Beside the queue, the
// worker queues collections' logos and banners it has not seen and collects garbage.
import { randomUUID } from 'node:crypto';
import { IMAGE_MIME_TYPES } from '../../domain/image-sniff.js';
import { MEDIA_VARIANT_NAMES, TOKEN_EAGER_VARIANTS } from '../../domain/media-variants.js';
import { retryDelayMs, type RetrySchedule } from '../../domain/retry-schedule.js';
import { parseContentUri } from '../../domain/token-uri.js';
import type { ContentFetcher } from '../metadata-fetch/index.js';
import type { MediaService } from './index.js';
import type { ClaimedSource } from './media-queue.js';
import { encodeVariants, prepareImage, sha256Hex } from './prepare-image.js';

/** Attempts of a transient failure before the source is REFUSED (until fetched again on request): 30 s doubling. */
const MAX_ATTEMPTS = 5;
const RETRIES: RetrySchedule = { firstMs: 30_000, maxMs: 3_600_000, disableAfterFailures: MAX_ATTEMPTS };
const IDLE_POLL_MS = 2000;
const DISCOVER_EVERY_MS = 60_000;
const GC_EVERY_MS = 3_600_000;

export interface MediaWorkerOptions {
  /** sources in flight */
  concurrency: number;
  /** how long a claim is leased: longer than a fetch with all its retries and the encode */
  leaseMs: number;
  instanceId?: string;
  random?: () => number;
  /** told about every source processed: 'STORED' or the error code */
  onProcessed?: (code: string, ms: number) => void;
  log?: { warn(o: object, m: string): void; info(o: object, m: string): void };
}

export interface MediaWorker {
  /** Discovers collection images if due, then processes every claimable source; answers how many. */
  runOnce(): Promise<number>;
  /** Processes one claimed source (tests; runOnce calls it). Answers 'STORED' or the error code. */
  processSource(source: ClaimedSource): Promise<string>;
  start(): void;
  stop(): Promise<void>;
  /** claims at once instead of at the next poll */
  wake(): void;
  owner: string;
}

export function createMediaWorker(media: MediaService, fetcher: ContentFetcher, opts: MediaWorkerOptions): MediaWorker {
  const owner = opts.instanceId ?? `media-${process.pid}-${randomUUID()}`;
  const random = opts.random ?? Math.random;
  const { store, queue, limits, encodeGate } = media;

  async function failed(c: ClaimedSource, code: string, message: string, retryable: boolean, retryAfterMs?: number): Promise<string> {
    const again = retryable && c.attempts + 1 < RETRIES.disableAfterFailures;
    const wait = Math.max(retryDelayMs(c.attempts + 1, RETRIES, random()), Math.min(retryAfterMs ?? 0, RETRIES.maxMs));
    // a stored source whose new variants failed stays STORED: its image is still served
    const status = again ? 'PENDING' : c.status === 'STORED' ? 'STORED' : 'REFUSED';
    await queue.fail(c.urlSha256, owner, { status, errorCode: code, errorMessage: message, retryAt: again ? new Date(Date.now() + wait) : null });
    return code;
  }

  /** A source stored already that now needs more variants (it became a logo or a banner). */
  async function completeVariants(c: ClaimedSource, sha256: string): Promise<string | null> {
    const source = await store.source(sha256);
    if (!source) return null; // collected meanwhile: fetched again
    const have = await store.storedVariants(sha256);
    const missing = MEDIA_VARIANT_NAMES.filter((v) => !have.variants.has(v));
    const image = { ok: true as const, width: source.width, height: source.height, frames: source.frames };
    const encoded = await encodeGate.run(() => encodeVariants(source.source, source.type, image, missing, limits));
    if (!Array.isArray(encoded)) return failed(c, encoded.code, encoded.message, false);
    const done = await store.store(
      { ok: true, sha256, type: source.type, mimeType: IMAGE_MIME_TYPES[source.type], image, source: source.source, variants: encoded },
      { outcome: { urlSha256: c.urlSha256, owner }, sourceStored: true },
    );
    return done.stored ? 'STORED' : null;
  }

  async function fetchAndStore(c: ClaimedSource): Promise<string> {
    const parsed = parseContentUri(c.url);
    if (!parsed.ok) return failed(c, parsed.problem.code, parsed.problem.message, false);
    const got = await fetcher.fetch(parsed.source);
    if (!got.ok) return failed(c, got.code, got.message, got.retryable, got.retryAfterMs);
    const sha256 = sha256Hex(got.bytes);
    const have = await store.storedVariants(sha256);
    const wanted = c.eager ? MEDIA_VARIANT_NAMES : TOKEN_EAGER_VARIANTS;
    const prepared = await encodeGate.run(() => prepareImage(got.bytes, wanted, limits, have.variants));
    // an encode that ran out of time may pass when the machine is less busy
    if (!prepared.ok) return failed(c, prepared.code, prepared.message, prepared.code === 'ENCODE_TIMEOUT');
    const done = await store.store(prepared, { outcome: { urlSha256: c.urlSha256, owner }, sourceStored: have.known });
    if (!done.stored) await store.store(prepared, { outcome: { urlSha256: c.urlSha256, owner } });
    return 'STORED';
  }

  async function processSource(c: ClaimedSource): Promise<string> {
    const started = performance.now();
    let code: string;
    try {
      const completed = c.status === 'STORED' && c.sha256 ? await completeVariants(c, c.sha256) : null;
      code = completed ?? (await fetchAndStore(c));
    } catch (err) {
      // the database, or a bug: tried again later (the lease runs out if even this write fails)
      opts.log?.warn({ err, url: c.url.slice(0, 200) }, 'media source failed');
      code = await failed(c, 'INTERNAL', `storing failed: ${(err as Error).message}`, true).catch(() => 'INTERNAL');
    }
    opts.onProcessed?.(code, performance.now() - started);
    return code;
  }

  let halting = false;
  let lastDiscoverAt = -Infinity;
  let lastGcAt = performance.now();
  let wakeUp: (() => void) | null = null;
  const wake = () => {
    const w = wakeUp;
    wakeUp = null;
    w?.();
  };
  const sleepUntilWoken = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        if (wakeUp === done) wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  async function runOnce(): Promise<number> {
    if (performance.now() - lastDiscoverAt >= DISCOVER_EVERY_MS) {
      lastDiscoverAt = performance.now();
      await queue.discoverCollectionImages(media.baseUrl);
    }
    let processed = 0;
    const slot = async () => {
      while (!halting) {
        const [claimed] = await queue.claim(owner, 1, opts.leaseMs);
        if (!claimed) return;
        processed++;
        await processSource(claimed);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, slot));
    if (!halting && performance.now() - lastGcAt >= GC_EVERY_MS) {
      lastGcAt = performance.now();
      const gc = await media.collectGarbage();
      if (gc.mediaDeleted + gc.sourcesDeleted > 0) opts.log?.info({ ...gc }, 'media garbage collected');
    }
    return processed;
  }

  let running: Promise<void> | null = null;
  const loop = async () => {
    while (!halting) {
      let processed = 0;
      try {
        processed = await runOnce();
      } catch (err) {
        opts.log?.warn({ err }, 'media pass failed; retrying');
      }
      if (processed === 0 && !halting) await sleepUntilWoken(IDLE_POLL_MS);
    }
  };

  return {
    runOnce,
    processSource,
    owner,
    wake,
    start() {
      if (running) return;
      halting = false;
      running = loop();
    },
    async stop() {
      halting = true;
      wake();
      // fetches in flight end now (NETWORK: written as a retry, the lease given back) rather than
      // holding a shutdown for up to MEDIA_FETCH_TIMEOUT_MS
      fetcher.close();
      await running;
      running = null;
    },
  };
}
