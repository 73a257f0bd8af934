// The media worker in the server process: started at boot unless MEDIA is off (it needs no chain:
// logos and banners come from collections, token images from metadata already read). The queue
// is reported on /readyz as a component that is not required: stuck when a source has been due for
// longer than a fetch with all its retries could take.
import type { Logger } from '../../logger.js';
import type { Services } from '../index.js';
import { createContentFetcher } from '../metadata-fetch/index.js';
import { createMediaWorker, type MediaWorker } from './media-worker.js';

/** What an image request asks for: the types we store first, anything else (we sniff it) last. */
const IMAGE_ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif,image/svg+xml;q=0.9,*/*;q=0.5';

export function startMediaWorker(services: Services, log: Pick<Logger, 'warn' | 'info'>): MediaWorker | null {
  const cfg = services.deps.config.media;
  const metadata = services.deps.config.metadata;
  // every attempt of a read timing out one after another, on each gateway in turn, then the encode
  const fetchMs = cfg.fetchTimeoutMs * (metadata.retries + 2) * Math.max(1, metadata.ipfsGateways.length);
  const leaseMs = fetchMs + 120_000;
  services.health.register(
    'media',
    async () => {
      const d = await services.media.queue.depth();
      const stuck = d.oldestDueSeconds !== null && d.oldestDueSeconds > leaseMs / 1000 + 60;
      return { status: stuck ? 'stuck' : cfg.enabled ? 'up' : 'off', due: d.due, leased: d.leased, oldestDueSeconds: Math.round(d.oldestDueSeconds ?? 0) };
    },
    { required: false },
  );
  if (!cfg.enabled) return null;
  const fetcher = createContentFetcher({
    ipfsGateways: metadata.ipfsGateways,
    arweaveGateway: metadata.arweaveGateway,
    allowPrivateTargets: metadata.allowPrivateTargets,
    timeoutMs: cfg.fetchTimeoutMs,
    maxBytes: cfg.maxBytes,
    maxRedirects: 5,
    perHostConcurrency: metadata.perHostConcurrency,
    perHostIntervalMs: 0,
    retries: metadata.retries,
    accept: IMAGE_ACCEPT,
  });
  const worker = createMediaWorker(services.media, fetcher, { concurrency: cfg.concurrency, leaseMs, log });
  services.media.onEnqueue(worker.wake);
  worker.start();
  return worker;
}
