// Prometheus gauges for the chain indexer, read from indexerStatus at scrape time.
// A metric whose value is unknown (no RPC, nothing indexed yet) is left out of the scrape rather
// than reported as 0, which would look like "fully caught up at block 0" (hence the chain_id label:
// prom-client always reports an unlabelled gauge).
import { Gauge, type Registry } from 'prom-client';
import type { IndexerStatus } from '../services/indexer-status.js';

export function registerIndexerGauges(registry: Registry, read: () => Promise<IndexerStatus>): void {
  // One scrape reads the status once for all gauges.
  let pending: Promise<IndexerStatus | null> | null = null;
  const status = () => {
    pending ??= read()
      .catch(() => null)
      .finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  const gauge = (name: string, help: string, pick: (s: IndexerStatus) => number | boolean | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain_id'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const s = await status();
        const v = s ? pick(s) : null;
        if (s && v !== null) this.set({ chain_id: String(s.chainId) }, typeof v === 'boolean' ? Number(v) : v);
      },
    });
  gauge('indexer_head_block', "The chain node's latest block", (s) => s.headBlock);
  gauge('indexer_indexed_block', 'The last block whose effects are committed', (s) => s.indexedBlock);
  gauge('indexer_confirmations', 'Blocks below the head the indexer leaves alone', (s) => s.confirmations);
  gauge('indexer_lag_blocks', 'Head block minus indexed block', (s) => s.lagBlocks);
  gauge('indexer_lag_seconds', 'Head block time minus indexed block time', (s) => s.lagSeconds);
  gauge('indexer_last_event_timestamp_seconds', 'Block time of the last chain event applied', (s) => s.lastEventTimestamp);
  gauge('indexer_holds_lease', '1 when this instance holds the indexer lease', (s) => s.holdsLease);
}
