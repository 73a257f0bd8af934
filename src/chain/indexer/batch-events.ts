// The events of one batch: the logs of the exchange, of the known collections and of WETH for
// the accounts with live bids (batch-logs.ts), checked to belong to the branch the batch is
// written on, then decoded (events.ts).
import type { SqlRunner } from '../../db/sql-runner.js';
import type { BlockRef } from './batch-script.js';
import { fetchBatchLogs } from './batch-logs.js';
import { decodeLog, type ChainEvent } from './events.js';
import type { IndexerContext } from './indexer-context.js';
import { blockHashAt } from './indexer-cursor.js';
import { ChainMovedError } from './indexer-errors.js';

export interface BatchRange {
  from: number;
  /** the batch's last block */
  to: BlockRef;
  /** the block the batch follows (the cursor) */
  base: BlockRef;
  /** the market clock at the batch, unix seconds */
  nowSeconds: bigint;
}

export interface BatchEvents {
  /** the known collections and their standards */
  collections: Map<string, 'ERC721' | 'ERC1155'>;
  /** logs fetched, before decoding */
  logCount: number;
  events: ChainEvent[];
}

export async function readBatchEvents(ctx: IndexerContext, s: SqlRunner, range: BatchRange): Promise<BatchEvents> {
  const { network } = ctx;
  const { from, to, base } = range;
  const collectionRows = await s.query<{ address: string; type: 'ERC721' | 'ERC1155' }>('SELECT address, type::text AS type FROM collections');
  const collections = new Map(collectionRows.map((r) => [r.address, r.type]));
  // WETH logs only matter for accounts with bids that can still be shown live.
  const bidders = (
    await s.query<{ signer: string }>(
      `SELECT DISTINCT signer FROM orders WHERE NOT is_order_ask AND status NOT IN ('EXECUTED', 'CANCELLED') AND end_time >= $1::bigint`,
      [range.nowSeconds.toString()],
    )
  ).map((r) => r.signer);
  const logs = await fetchBatchLogs(
    ctx.logFetcher,
    { exchange: network.exchange!, weth: network.weth!, collections: [...collections.keys()], bidders },
    from,
    to.number,
    ctx.opts.wethTopicChunk,
  );
  // Logs of a chain other than the one `to` and the base belong to: retry rather than guess.
  if (logs.some((l) => l.removed || (l.blockNumber === to.number && l.blockHash !== to.hash))) {
    throw new ChainMovedError(`the chain changed while blocks ${from}-${to.number} were read`);
  }
  if ((await blockHashAt(ctx.provider, base.number)) !== base.hash) throw new ChainMovedError(`block ${base.number} was replaced while blocks ${from}-${to.number} were read`);

  const sources = { exchange: network.exchange!, weth: network.weth!, collections: new Set(collections.keys()) };
  const events = logs.map((l) => decodeLog(l, sources)).filter((e): e is ChainEvent => e !== null);
  return { collections, logCount: logs.length, events };
}
