// The content fetcher the metadata worker reads through: one entry point for every kind of token
// URI source, with the guards of safeGet on every request, IPFS verified block by block, politeness
// per host (the host limiter sits in front of every request, gateway requests included) and
// retries of what may pass on a second try. Retry waits happen outside the limiter, so a waiting
// fetch holds no host slot. Redirect hops are not limited separately: they are part of one request.
import type { ContentSource } from '../../domain/token-uri.js';
import { fetchArweave } from './arweave.js';
import { failure, type FetchOutcome } from './fetch-outcome.js';
import { withRetries } from './fetch-with-retry.js';
import { createGuardedAgents } from './guarded-agents.js';
import { HostLimiter, HostPausedError } from './host-limiter.js';
import { fetchIpfsVerified } from './ipfs-verified.js';
import { safeGet, type Getter, type SafeGetOptions } from './safe-get.js';

export type { ContentSource } from '../../domain/token-uri.js';
export type { FetchErrorCode, FetchOutcome } from './fetch-outcome.js';

export interface ContentFetcherOptions {
  /** tried in order; the first giving verified content wins */
  ipfsGateways: string[];
  arweaveGateway: string;
  allowPrivateTargets: boolean;
  /** per request (each gateway tried, each retry), covering redirects, connect and body */
  timeoutMs: number;
  /** most bytes of a document, after decompression */
  maxBytes: number;
  maxRedirects: number;
  perHostConcurrency: number;
  perHostIntervalMs: number;
  /** tries after the first */
  retries: number;
  /** the Accept header of http(s) and Arweave requests (IPFS gateways are asked for blocks); default any type */
  accept?: string;
  /** first retry wait's ceiling, doubling; default 500 ms */
  retryBaseDelayMs?: number;
  /** longest retry wait; a longer Retry-After is returned instead; default 10 s */
  retryMaxDelayMs?: number;
  /** longest pause a host's Retry-After imposes; default 5 minutes */
  maxHostPauseMs?: number;
  random?: () => number;
}

export interface ContentFetcher {
  fetch(source: ContentSource): Promise<FetchOutcome>;
  /** closes pooled connections; requests in flight fail as NETWORK */
  close(): void;
}

export function createContentFetcher(options: ContentFetcherOptions): ContentFetcher {
  const agents = createGuardedAgents(options.allowPrivateTargets, options.perHostConcurrency);
  const limiter = new HostLimiter({ concurrency: options.perHostConcurrency, intervalMs: options.perHostIntervalMs, maxPauseMs: options.maxHostPauseMs });
  const base: SafeGetOptions = {
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: options.maxRedirects,
    allowPrivateTargets: options.allowPrivateTargets,
    agents,
    ...(options.accept ? { accept: options.accept } : {}),
  };

  /** safeGet behind the host's limiter; a 429/503 with Retry-After pauses the host for everyone. */
  const get: Getter = async (url, opts) => {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return safeGet(url, opts); // answers UNSUPPORTED_URI without a request
    }
    try {
      return await limiter.run(host, async () => {
        const outcome = await safeGet(url, opts);
        if (!outcome.ok && (outcome.status === 429 || outcome.status === 503) && outcome.retryAfterMs !== undefined) {
          limiter.pause(host, outcome.retryAfterMs, outcome.status);
        }
        return outcome;
      });
    } catch (err) {
      if (!(err instanceof HostPausedError)) throw err;
      return failure('HTTP_STATUS', err.message, { status: err.status ?? 429, retryAfterMs: err.remainingMs });
    }
  };

  const retried = (attempt: () => Promise<FetchOutcome>) =>
    withRetries(attempt, {
      attempts: options.retries + 1,
      baseDelayMs: options.retryBaseDelayMs ?? 500,
      maxDelayMs: options.retryMaxDelayMs ?? 10_000,
      random: options.random,
    });

  return {
    fetch(source) {
      switch (source.kind) {
        case 'inline':
          return Promise.resolve({ ok: true, bytes: source.bytes, contentType: source.mediaType, finalUrl: `data:${source.mediaType}` });
        case 'ipfs':
          return retried(() => fetchIpfsVerified(source.cid, source.path, options.ipfsGateways, { ...base, get }));
        case 'arweave':
          return retried(() => fetchArweave(source.id, source.path, options.arweaveGateway, { ...base, get }));
        case 'http':
          return retried(() => get(source.url, base));
      }
    },
    close() {
      agents.destroy();
    },
  };
}
