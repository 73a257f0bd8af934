// The metadata worker in the server process: started at boot when there is a chain to read token
// URIs from (RPC_URL) and METADATA is not off. The queue is reported on /readyz as a component
// that is not required (a stuck queue is not fixed by taking this instance out of the load
// balancer): stuck when a token has been due for longer than a read could take.
import type { Logger } from '../logger.js';
import type { Services } from './index.js';
import { createContentFetcher } from './metadata-fetch/index.js';
import { createMetadataWorker, type MetadataWorker } from './metadata-worker.js';
import { createTokenRarity } from './token-rarity.js';
import { createContractMetadata } from './contract-metadata.js';

/** How often due collections' contract documents are looked for. */
const CONTRACT_PASS_MS = 5000;

export function startMetadataWorker(services: Services, log: Pick<Logger, 'warn'>): MetadataWorker | null {
  const deps = services.deps;
  const cfg = deps.config.metadata;
  const queue = services.tokenMetadata.queue;
  // due for longer than a read with all its retries could take: nobody is reading
  const stuckAfterSeconds = Math.ceil((cfg.timeoutMs * (cfg.retries + 2) * Math.max(1, cfg.ipfsGateways.length)) / 1000) + 60;
  services.health.register(
    'metadata',
    async () => {
      const d = await queue.depth();
      const stuck = d.oldestDueSeconds !== null && d.oldestDueSeconds > stuckAfterSeconds;
      return { status: stuck ? 'stuck' : 'up', due: d.due, leased: d.leased, oldestDueSeconds: Math.round(d.oldestDueSeconds ?? 0) };
    },
    { required: false },
  );
  if (!cfg.enabled || !deps.chain) return null;
  const fetcher = createContentFetcher({
    ipfsGateways: cfg.ipfsGateways,
    arweaveGateway: cfg.arweaveGateway,
    allowPrivateTargets: cfg.allowPrivateTargets,
    timeoutMs: cfg.timeoutMs,
    maxBytes: cfg.maxBytes,
    maxRedirects: 5,
    perHostConcurrency: cfg.perHostConcurrency,
    perHostIntervalMs: 0,
    retries: cfg.retries,
  });
  const worker = createMetadataWorker(deps, queue, createTokenRarity(deps), deps.chain, fetcher, { log, onRead: services.tokenMetadata.noteRead });
  worker.start();
  // collections' own documents (contractURI), few and rarely due: a pass every few seconds
  const contracts = createContractMetadata(deps, deps.chain, fetcher);
  let reading: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    reading ??= contracts
      .runOnce()
      .catch((err) => log.warn({ err }, 'reading collection metadata (contractURI) failed; retrying at the next pass'))
      .finally(() => (reading = null));
  }, CONTRACT_PASS_MS).unref();
  return {
    ...worker,
    stop: async () => {
      clearInterval(timer);
      await reading;
      await worker.stop();
    },
  };
}
