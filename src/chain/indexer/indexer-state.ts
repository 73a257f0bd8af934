// What this process knows about its own indexer, for indexerStatus, /readyz and the Prometheus
// gauges: whether it holds the lease (the advisory lock), the chain head it last
// saw and when its last batch committed. The indexed position itself is read from the database
// (indexer_cursor), so every instance reports it, lease or not.
export interface IndexerRuntime {
  /** this process runs an indexer loop (it may be standing by) */
  running: boolean;
  /** this process holds the indexer lease and is the one writing */
  holdsLease: boolean;
  confirmations: number;
  headBlock: number | null;
  headTimestamp: number | null;
  headSeenAt: Date | null;
  lastBatchAt: Date | null;
  lastError: string | null;
}

export function createIndexerRuntime(confirmations: number): IndexerRuntime {
  return { running: false, holdsLease: false, confirmations, headBlock: null, headTimestamp: null, headSeenAt: null, lastBatchAt: null, lastError: null };
}
