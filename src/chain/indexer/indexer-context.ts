// What every part of one indexer shares: its options with the defaults filled in, the log
// fetcher, and the listener call that never lets a listener's error reach a batch.
import type { JsonRpcProvider } from 'ethers';
import type { Network } from '../../domain/networks.js';
import { IndexerError } from './indexer-errors.js';
import type { IndexerEvent, IndexerLogger, IndexerOptions } from './indexer-options.js';
import type { IndexerRuntime } from './indexer-state.js';
import { createLogFetcher, type LogFetcher } from './log-fetcher.js';

export interface IndexerContext {
  opts: IndexerOptions;
  provider: JsonRpcProvider;
  network: Network;
  logger: IndexerLogger;
  stream: string;
  keepBlocks: number;
  runtime: IndexerRuntime | undefined;
  logFetcher: LogFetcher;
  /** tells opts.onEvent; a listener's error is logged, not thrown */
  emit(event: IndexerEvent): void;
}

const noopLogger: IndexerLogger = { info() {}, warn() {}, error() {}, debug() {} };

export function createIndexerContext(opts: IndexerOptions): IndexerContext {
  const { provider, network } = opts;
  const logger = opts.logger ?? noopLogger;
  const logFetcher = createLogFetcher(provider, { ...opts.logs, onRetry: (r) => logger.warn({ from: r.from, to: r.to, attempt: r.attempt, err: r.err }, 'eth_getLogs failed; retrying') });
  if (!network.exchange || !network.weth) throw new IndexerError('the network needs the exchange and WETH addresses');
  if (opts.batchSize < 1) throw new IndexerError('batchSize must be at least 1');
  return {
    opts,
    provider,
    network,
    logger,
    stream: opts.stream ?? 'main',
    keepBlocks: opts.keepBlocks ?? 128,
    runtime: opts.runtime,
    logFetcher,
    emit(e) {
      if (!opts.onEvent) return;
      try {
        opts.onEvent(e);
      } catch (err) {
        logger.error({ err }, 'indexer onEvent listener failed');
      }
    },
  };
}
