// Where the chain indexer is, for the indexerStatus query, GET /api/v1/indexer/status,
// /readyz and the Prometheus gauges. The indexed position comes from the database (every instance
// reports the same one); the head from this process's indexer when it runs one and saw the head
// recently, else from the RPC node (cached one second, so polling clients cost one call a second).
import type { ServiceDeps } from './deps.js';
import { indexerCursorRowSql } from './indexer-cursor-sql.js';

export interface IndexerStatus {
  chainId: number;
  /** the node's latest block; null when no RPC is configured or it cannot be reached */
  headBlock: number | null;
  headTimestamp: number | null;
  /** the last block whose effects are committed; null before the first batch */
  indexedBlock: number | null;
  indexedBlockTimestamp: number | null;
  confirmations: number;
  /** headBlock - indexedBlock */
  lagBlocks: number | null;
  /** head block time - indexed block time (seconds) */
  lagSeconds: number | null;
  /** the block of the last event the indexer consumed, and that block's time */
  lastEventBlock: number | null;
  lastEventTimestamp: number | null;
  /** when the cursor last moved (unix seconds, database clock) */
  updatedAt: number | null;
  /** this process runs an indexer loop */
  running: boolean;
  /** this process holds the indexer lease (it is the one writing) */
  holdsLease: boolean;
  /** the last batch error of this process's indexer, cleared by the next good batch */
  lastError: string | null;
}

/** This process's part of an IndexerStatus (IndexerStatusService.processView). */
export interface IndexerProcessView {
  chainId: number;
  head: { number: number; timestamp: number } | null;
  confirmations: number;
  running: boolean;
  holdsLease: boolean;
  lastError: string | null;
}

type CursorRow = {
  block_number: string;
  block_timestamp: string | null;
  last_event_block: string | null;
  last_event_timestamp: string | null;
  updated_at: string;
};

const HEAD_CACHE_MS = 1000;
/** The indexer's own view of the head is used while it is this fresh. */
const RUNTIME_HEAD_MAX_AGE_MS = 10_000;

function withTimeout<T>(p: Promise<T | null>, ms: number | undefined): Promise<T | null> {
  if (ms === undefined) return p;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const num = (v: string | null | undefined) => (v == null ? null : Number(v));

export function createIndexerStatusService(deps: ServiceDeps) {
  let head: { at: number; value: Promise<{ number: number; timestamp: number } | null> } | null = null;

  function nodeHead(): Promise<{ number: number; timestamp: number } | null> {
    const chain = deps.chain;
    if (!chain) return Promise.resolve(null);
    if (head && performance.now() - head.at < HEAD_CACHE_MS) return head.value;
    const value = chain.provider
      .getBlock('latest')
      .then((b) => (b ? { number: b.number, timestamp: b.timestamp } : null))
      .catch(() => null);
    head = { at: performance.now(), value };
    return value;
  }

  /**
   * What this process knows beside the cursor row: the chain head (the indexer's own view while
   * fresh, else the node's, cached), the settings and the indexer loop's state. `maxWaitMs`: give
   * up on the node after this long (the head is then null).
   */
  async function processView(opts: { maxWaitMs?: number } = {}): Promise<IndexerProcessView> {
    const rt = deps.indexerRuntime;
    const fresh = rt?.headSeenAt && deps.now().getTime() - rt.headSeenAt.getTime() < RUNTIME_HEAD_MAX_AGE_MS;
    const nodeHeadValue = fresh ? null : await withTimeout(nodeHead(), opts.maxWaitMs);
    return {
      chainId: deps.network.chainId,
      head: nodeHeadValue ?? (rt?.headBlock != null && rt.headTimestamp != null ? { number: rt.headBlock, timestamp: rt.headTimestamp } : null),
      confirmations: deps.config.indexer?.confirmations ?? rt?.confirmations ?? 0,
      running: rt?.running ?? false,
      holdsLease: rt?.holdsLease ?? false,
      lastError: rt?.lastError ?? null,
    };
  }

  /** `maxWaitMs`: give up on the node after this long (the head is then null) */
  async function indexerStatus(opts: { maxWaitMs?: number } = {}): Promise<IndexerStatus> {
    const [rows, view] = await Promise.all([deps.db.sql.query<CursorRow>(indexerCursorRowSql('$1'), [deps.network.chainId]), processView(opts)]);
    const c = rows[0];
    const indexedBlock = num(c?.block_number);
    const indexedTs = num(c?.block_timestamp);
    const head = view.head;
    return {
      chainId: view.chainId,
      headBlock: head?.number ?? null,
      headTimestamp: head?.timestamp ?? null,
      indexedBlock,
      indexedBlockTimestamp: indexedTs,
      confirmations: view.confirmations,
      lagBlocks: head && indexedBlock !== null ? Math.max(0, head.number - indexedBlock) : null,
      lagSeconds: head && indexedTs !== null ? Math.max(0, head.timestamp - indexedTs) : null,
      lastEventBlock: num(c?.last_event_block),
      lastEventTimestamp: num(c?.last_event_timestamp),
      updatedAt: num(c?.updated_at),
      running: view.running,
      holdsLease: view.holdsLease,
      lastError: view.lastError,
    };
  }

  return { indexerStatus, processView };
}

export type IndexerStatusService = ReturnType<typeof createIndexerStatusService>;
