// The eth_getLogs calls of one batch. The exchange and the known collections are
// read whole. WETH is busy on a real chain (every swap and transfer moves it) and only matters for
// accounts with live bids, so its logs are filtered by topic to those accounts in the node:
// Approval/Deposit/Withdrawal/Transfer with the account as topic1 (owner, dst, src, src), plus
// Transfer with it as topic2 (dst). Accounts go in topic lists of at most `chunk` per call.
import { zeroPadValue } from 'ethers';
import type { LogFetcher } from './log-fetcher.js';
import { TOPICS, parseRawLog, type RawLog } from './events.js';

/** topic0 of the exchange and collection events (WETH is queried apart). */
export const NON_WETH_TOPICS: string[] = [
  ...new Set([TOPICS.TakerAsk, TOPICS.TakerBid, TOPICS.CancelAllOrders, TOPICS.CancelMultipleOrders, TOPICS.Transfer, TOPICS.TransferSingle, TOPICS.TransferBatch, TOPICS.ApprovalForAll,
    TOPICS.MetadataUpdate, TOPICS.BatchMetadataUpdate, TOPICS.URI, TOPICS.ContractURIUpdated]),
];
const WETH_TOPIC1 = [TOPICS.Transfer, TOPICS.Approval, TOPICS.Deposit, TOPICS.Withdrawal];

export const DEFAULT_WETH_TOPIC_CHUNK = 500;

export interface BatchLogSources {
  exchange: string;
  weth: string;
  collections: readonly string[];
  /** accounts with live bids: the only ones whose WETH logs matter */
  bidders: readonly string[];
}

const topicOf = (address: string) => zeroPadValue(address, 32).toLowerCase();

export async function fetchBatchLogs(fetcher: LogFetcher, src: BatchLogSources, from: number, to: number, chunk = DEFAULT_WETH_TOPIC_CHUNK): Promise<RawLog[]> {
  const calls: Promise<Record<string, unknown>[]>[] = [
    fetcher.getLogs({ address: [src.exchange, ...src.collections], topics: [NON_WETH_TOPICS] }, from, to),
  ];
  for (let i = 0; i < src.bidders.length; i += chunk) {
    const accounts = src.bidders.slice(i, i + chunk).map(topicOf);
    calls.push(fetcher.getLogs({ address: src.weth, topics: [WETH_TOPIC1, accounts] }, from, to));
    calls.push(fetcher.getLogs({ address: src.weth, topics: [TOPICS.Transfer, null, accounts] }, from, to));
  }
  const seen = new Set<string>();
  const out: RawLog[] = [];
  for (const json of (await Promise.all(calls)).flat()) {
    const log = parseRawLog(json);
    // a transfer between two bidders (or a bidder to itself) comes back from both WETH queries
    const key = `${log.blockHash}|${log.logIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(log);
  }
  return out.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}
