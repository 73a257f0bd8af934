// The JSON-RPC provider the indexer expects. cacheTimeout -1: never answer a read from ethers'
// request cache (state moves per block, and a cached eth_blockNumber hides new blocks).
// batchStallTime 0: ethers otherwise holds every request 10 ms hoping to batch it; the indexer's
// reads are mostly one after another, so that wait is pure lag (measured: about 120 ms from block
// to visible status with it, see bench/indexer-bench.ts). Reads issued together (the order facts
// of a batch) still go out as one JSON-RPC batch.
import { JsonRpcProvider } from 'ethers';

export function createIndexerProvider(rpcUrl: string, chainId: number): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true, cacheTimeout: -1, batchStallTime: 0 });
}
