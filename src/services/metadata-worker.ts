// The metadata worker (docs/metadata.md): claims due tokens from the queue (./metadata-queue.ts),
// keeping METADATA_CONCURRENCY of them in flight (a finished token's slot is claimed again at
// once), reads their URIs from the chain in one batch per claim and collection, fetches each
// document through the guarded fetcher (./metadata-fetch/: SSRF guard, CID verification, size and
// time caps, per-host limits, retries), normalises it (src/domain/token-metadata.ts) and writes
// the outcomes in small batches (src/db/token-metadata-sql.ts: document, traits and trait counts
// in one transaction). Every token ends OK or ERROR with a code; a transient failure is tried
// again later with backoff, and a mutable (http) document is read again after
// METADATA_RECHECK_HOURS. Beside the reads it follows the market event log for tokens it has not
// seen (discover) and ranks the collections whose traits changed (./token-rarity.ts).
import { createHash, randomUUID } from 'node:crypto';
import type { ChainReader, TokenUriAnswer } from '../chain/chain-reader.js';
import { expandTokenIdTemplate, gatewayUrl, parseContentUri } from '../domain/token-uri.js';
import { normaliseMetadata } from '../domain/token-metadata.js';
import type { MetadataWrite } from '../db/token-metadata-sql.js';
import type { ServiceDeps } from './deps.js';
import type { ClaimedToken, MetadataQueue } from './metadata-queue.js';
import type { ContentFetcher } from './metadata-fetch/index.js';
import { retryDelayMs, type RetrySchedule } from '../domain/retry-schedule.js';
import type { TokenRarity } from './token-rarity.js';

/** Job attempts (each with the fetcher's own retries inside) before a failure is final until the next recheck: 30 s doubling, up to an hour. */
const MAX_JOB_ATTEMPTS = 5;
const RETRIES: RetrySchedule = { firstMs: 30_000, maxMs: 3_600_000, disableAfterFailures: MAX_JOB_ATTEMPTS };
/** Outcomes written per script, at most. */
const WRITE_BATCH = 64;
/** A write starts once this many outcomes wait (or the oldest has waited WRITE_DELAY_MS). */
const WRITE_AT = 32;
const WRITE_DELAY_MS = 200;
/** Discovery, and a claim after one came back short, at most this often. */
const IDLE_POLL_MS = 1000;
/**
 * Ranking while a pass is still reading, at most this often (and once when it ends). Ranking a
 * collection reads and ranks all of it (10,000 tokens: about 0.4 s, a third of it on the event
 * loop): once a couple of seconds through an ingestion it would hold up the requests served beside it.
 */
const RANK_BUSY_EVERY_MS = 30_000;

export interface MetadataWorkerOptions {
  instanceId?: string;
  random?: () => number;
  /** told about every token read (metrics): its outcome code ('OK' or the error) and the host read */
  onRead?: (code: string, host: string, ms: number) => void;
  log?: { warn(o: object, m: string): void };
}

export interface MetadataWorker {
  /** One pass: discover, read every claimable token (concurrency in flight), write, rank what is due. Returns tokens read. */
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
  // (an IPFS read asks each gateway in turn, each attempt bounded by the timeout)
  const leaseMs = cfg.timeoutMs * (cfg.retries + 2) * Math.max(1, cfg.ipfsGateways.length) + 60_000;


  /** The write for a failure: retried with backoff while attempts last, then again at the next recheck. */
  function failed(t: ClaimedToken, tokenUri: string | null, code: string, message: string, retryable: boolean, retryAfterMs?: number): MetadataWrite {
    const now = Date.now();
    const again = retryable && t.attempts + 1 < RETRIES.disableAfterFailures;
    // a host's Retry-After is honoured (up to the longest wait between attempts)
    const wait = Math.max(retryDelayMs(t.attempts + 1, RETRIES, random()), Math.min(retryAfterMs ?? 0, RETRIES.maxMs));
    return {
      collectionAddress: t.collectionAddress,
      tokenId: t.tokenId,
      status: 'ERROR',
      errorCode: code,
      errorMessage: message.slice(0, 500),
      // a failed data: URI can be megabytes: the stored URI is for people to read
      tokenUri: tokenUri === null ? null : tokenUri.slice(0, 2048),
      nextFetchAt: again ? null : new Date(now + cfg.recheckMs),
      retryAt: again ? new Date(now + wait) : null,
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
    if (!outcome.ok) return failed(t, tokenUri, outcome.code, outcome.message, outcome.retryable, outcome.retryAfterMs);
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

  let halting = false;
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

  /**
   * Reads every claimable token with up to cfg.concurrency in flight: a token that finishes frees
   * its slot for the next claim at once, so no batch waits for its slowest token (a host's
   * Retry-After, a retry's backoff). A claim takes the free slots (a few at least, so claims are
   * not a statement per token) and is leased as before; one writer at a time stores outcomes in
   * batches of up to WRITE_BATCH, started once WRITE_AT wait, the oldest has waited
   * WRITE_DELAY_MS, or nothing else is being read. Claims pause while the writer is two batches
   * behind. Discovery runs beside the reads once per IDLE_POLL_MS, ranking once per
   * RANK_BUSY_EVERY_MS and when the pass ends. Ends when a claim with nothing in flight finds
   * nothing and every outcome is written (or on stop(): what is being read is still written).
   */
  async function runOnce(): Promise<number> {
    let reading = 0;
    let read = 0;
    const pending: MetadataWrite[] = [];
    let pendingSince = 0;
    let writing: Promise<void> | null = null;
    let ranking: Promise<void> | null = null;
    let failure: unknown = null;
    const fail = (err: unknown) => {
      failure ??= err;
    };
    // after a claim came back short: claim again when the reads drain or a poll later
    let mayClaim = true;
    let drained = false;
    let lastShortAt = -Infinity;
    let lastDiscoverAt = -Infinity;
    let lastRankAt = performance.now();
    // a claim reads the queue's due rows: one per quarter of the slots, not per token
    const claimAtLeast = Math.max(1, Math.ceil(cfg.concurrency / 4));

    const readClaimed = async (claimed: readonly ClaimedToken[]) => {
      const answers = await uris(claimed);
      await Promise.all(
        claimed.map(async (t) => {
          const a = answers.get(t)!;
          const write =
            a instanceof Error
              ? failed(t, null, 'RPC_UNAVAILABLE', `the chain could not be read: ${a.message}`, true)
              : await readOne(t, a).catch((err: Error) => failed(t, null, 'INTERNAL', `reading failed: ${err.message}`, true));
          if (pending.length === 0) pendingSince = performance.now();
          pending.push(write);
          reading--;
          wake();
        }),
      );
    };

    for (;;) {
      if (!halting && !drained) {
        try {
          if (performance.now() - lastDiscoverAt >= IDLE_POLL_MS) {
            lastDiscoverAt = performance.now();
            if ((await queue.discover()) > 0) mayClaim = true;
          }
          if (!mayClaim && (reading === 0 || performance.now() - lastShortAt >= IDLE_POLL_MS)) mayClaim = true;
          const free = cfg.concurrency - reading;
          if (mayClaim && pending.length < 2 * WRITE_BATCH && free >= (reading === 0 ? 1 : claimAtLeast)) {
            const idleBefore = reading === 0;
            const claimed = await queue.claim(owner, free, leaseMs);
            if (claimed.length < free) {
              mayClaim = false;
              lastShortAt = performance.now();
              if (claimed.length === 0 && idleBefore) drained = true;
            }
            if (claimed.length > 0) {
              reading += claimed.length;
              read += claimed.length;
              void readClaimed(claimed);
              continue;
            }
          }
        } catch (err) {
          // the database: claim no more, write what was read (leases of the rest run out)
          fail(err);
          drained = true;
        }
      }
      if (!writing && pending.length > 0 && (pending.length >= WRITE_AT || performance.now() - pendingSince >= WRITE_DELAY_MS || reading === 0)) {
        const batch = pending.splice(0, WRITE_BATCH);
        pendingSince = performance.now();
        writing = queue
          .store(batch, owner)
          .catch(fail)
          .finally(() => {
            writing = null;
            wake();
          });
      }
      // a collection's ranking is due a couple of seconds after its traits changed
      if (!ranking && !halting && !drained && performance.now() - lastRankAt >= RANK_BUSY_EVERY_MS) {
        lastRankAt = performance.now();
        ranking = rarity
          .rankDue()
          .then(() => undefined, fail)
          .finally(() => {
            ranking = null;
            wake();
          });
      }
      if ((drained || halting) && reading === 0 && pending.length === 0 && writing === null) break;
      await sleepUntilWoken(pending.length > 0 && !writing ? Math.max(1, WRITE_DELAY_MS - (performance.now() - pendingSince)) : IDLE_POLL_MS);
    }
    await ranking;
    if (failure) throw failure;
    if (!halting) await rarity.rankDue();
    return read;
  }

  let running: Promise<void> | null = null;
  const loop = async () => {
    while (!halting) {
      let read = 0;
      try {
        read = await runOnce();
      } catch (err) {
        opts.log?.warn({ err }, 'metadata pass failed; retrying');
      }
      if (read === 0 && !halting) await sleepUntilWoken(IDLE_POLL_MS);
    }
  };

  return {
    runOnce,
    start() {
      if (running) return;
      halting = false;
      running = loop();
    },
    async stop() {
      halting = true;
      wake();
      await running;
      running = null;
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

