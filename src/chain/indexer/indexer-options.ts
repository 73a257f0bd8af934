// What createIndexer takes (indexer.ts) and what it tells its listeners.
import type { JsonRpcProvider } from 'ethers';
import type { Database } from '../../db/database.js';
import type { Network } from '../../domain/networks.js';
import type { OrderStatusName } from '../../domain/order-status.js';
import type { SaleRow } from './batch-script.js';
import type { IndexerRuntime } from './indexer-state.js';
import type { LogFetcherOptions } from './log-fetcher.js';

export interface IndexerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export type IndexerEvent =
  | {
      type: 'orderStatusChanged';
      orderHash: string;
      collection: string;
      signer: string;
      isOrderAsk: boolean;
      oldStatus: OrderStatusName;
      newStatus: OrderStatusName;
      blockNumber: number;
      /** true when the change undoes blocks replaced by a reorg */
      reorg: boolean;
    }
  | { type: 'sale'; sale: SaleRow }
  | { type: 'reorg'; forkBlock: number; replacedUpTo: number };

export interface IndexerOptions {
  db: Database;
  /** createIndexerProvider(): a JsonRpcProvider with cacheTimeout -1 and batchStallTime 0 */
  provider: JsonRpcProvider;
  network: Network;
  /** first block to index when the database has no cursor yet */
  startBlock: number;
  /** blocks below the head that are left alone (0 = index the head) */
  confirmations: number;
  /** most blocks per batch (one eth_getLogs, one transaction) */
  batchSize: number;
  now: () => Date;
  logger?: IndexerLogger;
  /** told about each committed change (subscriptions); errors thrown here are logged, not fatal */
  onEvent?: (event: IndexerEvent) => void;
  /** cursor row name; one database follows one chain */
  stream?: string;
  /** batch ends kept for reorg detection: those within this many blocks of the cursor (and at least 8) */
  keepBlocks?: number;
  /** test seam (submission race tests): after a batch's reads, before its write; unset in production */
  beforeWrite?: (batch: { from: number; to: number }) => Promise<void>;
  /** told the timestamp of each committed batch's last block (the market clock) */
  onBlockTime?: (unixSeconds: number) => void;
  /** told the cursor's block after each commit that moved it: a batch, or a rollback to the fork */
  onCursor?: (block: number) => void;
  /** updated with lease, head and batch times (indexerStatus, /readyz, metrics) */
  runtime?: IndexerRuntime;
  /** eth_getLogs retries, backoff and initial span (log-fetcher.ts) */
  logs?: LogFetcherOptions;
  /** accounts per WETH topic list (batch-logs.ts) */
  wethTopicChunk?: number;
  /** blocks per collection backfill chunk (collection-backfill.ts), run between live batches */
  backfillChunkBlocks?: number;
}
