// The metadata worker (docs/metadata.md): claims due tokens from the queue (./metadata-queue.ts),
// reads their URIs from the chain in one batch per collection, fetches each document through the
// guarded fetcher (./metadata-fetch/: SSRF guard, CID verification, size and time caps, per-host
// limits, retries), normalises it (src/domain/token-metadata.ts) and writes the outcomes together
// (src/db/token-metadata-sql.ts: document, traits and trait counts in one transaction). Every
// token ends OK or ERROR with a code; a transient failure is tried again later with backoff, and
// a mutable (http) document is read again after METADATA_RECHECK_HOURS. Between claims it
// follows the market event log for tokens it has not seen (discover) and ranks the collections
// whose traits changed (./token-rarity.ts).
import { createHash, randomUUID } from 'node:crypto';
import type { ChainReader, TokenUriAnswer } from '../chain/chain-reader.js';
import { expandTokenIdTemplate, gatewayUrl, parseContentUri } from '../domain/token-uri.js';
import { normaliseMetadata } from '../domain/token-metadata.js';
import type { MetadataWrite } from '../db/token-metadata-sql.js';
import type { ServiceDeps } from './deps.js';
import type { ClaimedToken, MetadataQueue } from './metadata-queue.js';
import type { FetchOutcome } from './metadata-fetch/fetch-outcome.js';
import type { TokenRarity } from './token-rarity.js';

/** What the worker fetches through (./metadata-fetch/index.ts createContentFetcher). */
export interface ContentFetcher {
  fetch(source: import('../domain/token-uri.js').ContentSource): Promise<FetchOutcome>;
  close?(): void;
}

/** Job attempts (each with the fetcher's own retries inside) before a failure is final until the next recheck. */
export const MAX_JOB_ATTEMPTS = 5;
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 3_600_000;
/** Outcomes written per script. */
const WRITE_BATCH = 64;
const IDLE_POLL_MS = 1000;

export interface MetadataWorkerOptions {
  instanceId?: string;
  random?: () => number;
  /** told about every token read (metrics): its outcome code ('OK' or the error) and the host read */
  onRead?: (code: string, host: string, ms: number) => void;
  log?: { warn(o: object, m: string): void };
}

export interface MetadataWorker {
  /** One pass: discover, claim up to the concurrency, read, write, rank what is due. Returns tokens read. */
  runOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hostOf = (uri: string) => {
  try {
    return new URL(uri).host || uri.slice(0, uri.indexOf(':'));
  } catch {
    return uri.slice(0, Math.max(0, uri.indexOf(':'))) || 'unknown';
  }
};

export function createMetadataWorker(
  deps: ServiceDeps,
  queue: MetadataQueue,
  rarity: TokenRarity,
  chain: Pick<ChainReader, 'tokenUris'>,
  fetcher: ContentFetcher,
  opts: MetadataWorkerOptions = {},
): MetadataWorker {
  const cfg = deps.config.metadata;
  const owner = opts.instanceId ?? `metadata-${process.pid}-${randomUUID()}`;
  const random = opts.random ?? Math.random;
  // long enough for every attempt of a read to time out one after another, and the write
  const leaseMs = cfg.timeoutMs * (cfg.retries + 2) + 60_000;

  const retryDelay = (attempts: number) => Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempts) * (0.5 + random() / 2);

  /** The write for a failure: retried with backoff while attempts last, then again at the next recheck. */
  function failed(t: ClaimedToken, tokenUri: string | null, code: string, message: string, retryable: boolean): MetadataWrite {
    const now = Date.now();
    const again = retryable && t.attempts + 1 < MAX_JOB_ATTEMPTS;
    return {
      collectionAddress: t.collectionAddress,
      tokenId: t.tokenId,
      status: 'ERROR',
      errorCode: code,
      errorMessage: message.slice(0, 500),
      tokenUri,
      nextFetchAt: again ? null : new Date(now + cfg.recheckMs),
      retryAt: again ? new Date(now + retryDelay(t.attempts)) : null,
    };
  }

  async function readOne(t: ClaimedToken, answer: TokenUriAnswer): Promise<MetadataWrite> {
    if (!answer.ok) return failed(t, null, 'TOKEN_URI_REVERTED', answer.message, false);
    const raw = answer.uri.trim();
    // before a reveal many contracts answer "": read again at the next recheck
    if (raw === '') return failed(t, '', 'NO_URI', 'the contract answered an empty URI', false);
    const tokenUri = t.type === 'ERC1155' ? expandTokenIdTemplate(raw, BigInt(t.tokenId)) : raw;
    const parsed = parseContentUri(tokenUri);
    if (!parsed.ok) return failed(t, tokenUri.slice(0, 2048), parsed.problem.code, parsed.problem.message, false);
    const started = performance.now();
    const host = parsed.source.kind === 'http' ? hostOf(parsed.source.url) : parsed.source.kind;
    const outcome = await fetcher.fetch(parsed.source);
    opts.onRead?.(outcome.ok ? 'OK' : outcome.code, host, performance.now() - started);
    if (!outcome.ok) return failed(t, tokenUri, outcome.code, outcome.message, outcome.retryable);
    const doc = normaliseMetadata(outcome.bytes);
    if (!doc.ok) return failed(t, tokenUri, doc.code, doc.message, false);
    const m = doc.metadata;
    const media = (uri: string | null) => (uri === null ? null : publicMediaUrl(uri, cfg.ipfsPublicGateway, cfg.arweaveGateway));
    return {
      collectionAddress: t.collectionAddress,
      tokenId: t.tokenId,
      status: 'OK',
      errorCode: null,
      errorMessage: null,
      tokenUri,
      document: {
        text: new TextDecoder().decode(outcome.bytes).replace(/^\uFEFF/, ''),
        sha256: sha256(outcome.bytes),
        name: m.name,
        description: m.description,
        image: media(m.image),
        animationUrl: media(m.animationUrl),
        externalUrl: m.externalUrl,
        attributes: m.attributes,
      },
      // an http document can change under the same URI; ipfs, ar and data cannot
      nextFetchAt: parsed.source.kind === 'http' ? new Date(Date.now() + cfg.recheckMs) : null,
      retryAt: null,
    };
  }

  /** Token URIs of the claimed tokens, one chain batch per collection; a node that cannot be reached fails them all, retryably. */
  async function uris(claimed: readonly ClaimedToken[]): Promise<Map<ClaimedToken, TokenUriAnswer | Error>> {
    const out = new Map<ClaimedToken, TokenUriAnswer | Error>();
    const groups = new Map<string, ClaimedToken[]>();
    for (const t of claimed) {
      const k = `${t.collectionAddress}:${t.type}`;
      groups.set(k, [...(groups.get(k) ?? []), t]);
    }
    await Promise.all(
      [...groups.values()].map(async (group) => {
        try {
          const answers = await chain.tokenUris(group[0]!.collectionAddress, group[0]!.type, group.map((t) => BigInt(t.tokenId)));
          group.forEach((t, i) => out.set(t, answers[i]!));
        } catch (err) {
          for (const t of group) out.set(t, err as Error);
        }
      }),
    );
    return out;
  }

  async function runOnce(): Promise<number> {
    await queue.discover();
    const claimed = await queue.claim(owner, cfg.concurrency, leaseMs);
    if (claimed.length > 0) {
      const answers = await uris(claimed);
      const pending: MetadataWrite[] = [];
      const flush = async (all: boolean) => {
        while (pending.length >= (all ? 1 : WRITE_BATCH)) await queue.store(pending.splice(0, WRITE_BATCH), owner);
      };
      await Promise.all(
        claimed.map(async (t) => {
          const a = answers.get(t)!;
          const write =
            a instanceof Error
              ? failed(t, null, 'RPC_UNAVAILABLE', `the chain could not be read: ${a.message}`, true)
              : await readOne(t, a).catch((err: Error) => failed(t, null, 'INTERNAL', `reading failed: ${err.message}`, true));
          pending.push(write);
          await flush(false);
        }),
      );
      await flush(true);
    }
    await rarity.rankDue();
    return claimed.length;
  }

  let stopped = true;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    while (!stopped) {
      let read = 0;
      try {
        read = await runOnce();
      } catch (err) {
        opts.log?.warn({ err }, 'metadata pass failed; retrying');
      }
      if (read === 0 && !stopped) await new Promise<void>((resolve) => (timer = setTimeout(resolve, IDLE_POLL_MS)));
    }
  };

  return {
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      running = loop();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      fetcher.close?.();
    },
  };
}

/**
 * The URL a client is given for an image or animation: ipfs and ar through the configured public
 * gateways, http(s) and data: as they are; anything else (javascript:, a relative path) is dropped.
 */
export function publicMediaUrl(uri: string, ipfsGateway: string, arweaveGateway: string): string | null {
  const parsed = parseContentUri(uri);
  if (!parsed.ok) return null;
  if (parsed.source.kind === 'inline') return uri.trim();
  return gatewayUrl(parsed.source, ipfsGateway, arweaveGateway);
}

export { sha256 as documentSha256 };
