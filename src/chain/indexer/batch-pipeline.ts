// One batch: check the cursor block is still on the chain (else roll back to the fork, reorg.ts),
// fetch and decode the batch's logs (batch-events.ts), find the live orders they may have changed
// plus the unsettled submissions, read those orders' chain facts at the batch's last block, fold
// events and facts into status changes (src/domain/order-status-changes.ts), and write everything
// plus the cursor as one transaction (batch-script.ts). Listeners hear of it after the commit.
import type { SqlRunner } from '../../db/sql-runner.js';
import { orderStatusChanges, type OrderEndingEvent } from '../../domain/order-status-changes.js';
import { affectedKeys, findAffectedOrders } from './affected-orders.js';
import { readBatchEvents } from './batch-events.js';
import { publishBatch } from './batch-publish.js';
import { buildBatchScript, type BlockRef } from './batch-script.js';
import type { ChainEvent, FillEvent } from './events.js';
import type { IndexerContext } from './indexer-context.js';
import { blockHashAt, readCursor } from './indexer-cursor.js';
import { ChainMovedError } from './indexer-errors.js';
import { currencyHoldingsOf, recordCurrencyHoldingsSql } from './currency-holdings-sql.js';
import { readOrderFacts } from './order-facts.js';
import { undoReorg } from './reorg.js';
import { settleAtCursor } from './turns.js';
import { findUnsettledOrders, ORDER_WRITE_LOCK_SQL, settleOrdersSql, withUnsettled } from './unsettled-orders.js';

export interface BatchResult {
  from: number;
  to: number;
  /** consumed events in the batch */
  events: number;
  /** set when the batch began by rolling back a reorg to this block */
  rolledBackTo?: number;
}

const endsOrders = (e: ChainEvent): e is ChainEvent & OrderEndingEvent =>
  e.kind === 'TakerBid' || e.kind === 'TakerAsk' || e.kind === 'CancelMultipleOrders' || e.kind === 'CancelAllOrders';

/** Indexes the next batch (at most up to `limitTo`); null when there is nothing to index yet. */
export async function indexNextBatch(ctx: IndexerContext, s: SqlRunner, startBlock: number, limitTo?: number): Promise<BatchResult | null> {
  const { opts, provider, network, runtime } = ctx;
  let cursor = await readCursor(ctx, s);
  let rolledBackTo: number | undefined;
  if (cursor) {
    const fork = await undoReorg(ctx, s, cursor);
    if (fork) {
      rolledBackTo = fork.number;
      cursor = fork;
    }
  }
  const t0 = performance.now();
  // 'latest' rather than eth_blockNumber: the head's timestamp comes with it (lag in seconds)
  const headBlock = await provider.getBlock('latest');
  if (!headBlock) throw new ChainMovedError('the node has no latest block');
  const head = headBlock.number;
  if (runtime) {
    runtime.headBlock = head;
    runtime.headTimestamp = headBlock.timestamp;
    runtime.headSeenAt = opts.now();
  }
  const from = cursor ? cursor.number + 1 : startBlock;
  let to = Math.min(from + opts.batchSize - 1, head - opts.confirmations);
  if (limitTo !== undefined) to = Math.min(to, limitTo);
  if (to < from) {
    if (cursor) await settleAtCursor(ctx, s, cursor);
    return rolledBackTo === undefined ? null : { from, to: from - 1, events: 0, rolledBackTo };
  }

  let base: BlockRef;
  if (cursor) base = { number: cursor.number, hash: cursor.hash };
  else {
    const hash = await blockHashAt(provider, from - 1);
    if (!hash) throw new ChainMovedError(`block ${from - 1} is not on the chain`);
    base = { number: from - 1, hash };
  }
  const toBlock = to === head ? headBlock : await provider.getBlock(to);
  if (!toBlock?.hash) throw new ChainMovedError(`block ${to} is not on the chain any more`);
  // The market clock at this batch: never before the block being committed (src/services/market-clock.ts).
  const now = new Date(Math.max(opts.now().getTime(), toBlock.timestamp * 1000));
  const nowSec = BigInt(Math.floor(now.getTime() / 1000));

  const { collections, logCount, events } = await readBatchEvents(ctx, s, { from, to: { number: to, hash: toBlock.hash }, base, nowSeconds: nowSec });

  // Re-derive the stored statuses of the orders these events may have changed, from chain state
  // at the batch's last block. Fills and cancels of the batch count as facts too; the script
  // applies them first, and a status never overrides a stronger one (src/domain/order-status.ts).
  const t1 = performance.now();
  const unsettled = await findUnsettledOrders(s, to);
  const orders = withUnsettled(await findAffectedOrders(s, affectedKeys(events, network, collections), nowSec), unsettled);
  const facts = await readOrderFacts(provider, network, orders, to);
  const t2 = performance.now();
  const derived = orderStatusChanges(orders, events.filter(endsOrders), facts).map((c) => ({ hash: c.order.hash, status: c.status }));

  const fills = events.filter((e): e is FillEvent => (e.kind === 'TakerBid' || e.kind === 'TakerAsk') && collections.has(e.collection));
  const lastEvent = events.at(-1);
  const blockTimes = new Map<number, Date>([[to, new Date(toBlock.timestamp * 1000)]]);
  const timed = new Set(fills.map((f) => f.blockNumber));
  if (lastEvent) timed.add(lastEvent.blockNumber);
  await Promise.all(
    [...timed].filter((n) => !blockTimes.has(n)).map(async (n) => {
      const b = await provider.getBlock(n);
      if (!b) throw new ChainMovedError(`block ${n} is not on the chain any more`);
      blockTimes.set(n, new Date(b.timestamp * 1000));
    }),
  );

  await opts.beforeWrite?.({ from, to });
  const t3 = performance.now();
  const settle = settleOrdersSql(unsettled.hashes);
  // the WETH reads behind the derived statuses, kept beside them (Order.fillability's missing amount)
  const holdings = recordCurrencyHoldingsSql(currencyHoldingsOf(orders, facts), network.weth, to);
  await s.exec(
    // the lock first: no order insert interleaves with the batch's writes (unsettled-orders.ts)
    `${ORDER_WRITE_LOCK_SQL};\n` +
    buildBatchScript({
      stream: ctx.stream,
      chainId: network.chainId,
      expectedCursor: cursor ? cursor.number : null,
      base,
      from,
      to: { number: to, hash: toBlock.hash },
      toTimestamp: toBlock.timestamp,
      lastEvent: lastEvent ? { block: lastEvent.blockNumber, timestamp: Math.floor(blockTimes.get(lastEvent.blockNumber)!.getTime() / 1000) } : undefined,
      events,
      knownCollections: collections,
      blockTimes,
      derived,
      now,
      standardStrategies: network.strategies.standardSale,
      keepBlocks: ctx.keepBlocks,
    }) +
    (holdings ? `\n${holdings};` : '') +
    (settle ? `\n${settle};` : ''),
  );
  opts.onBlockTime?.(toBlock.timestamp);
  opts.onCursor?.(to);
  if (runtime) runtime.lastBatchAt = opts.now();
  const ms = (a: number, b: number) => Math.round(b - a);
  ctx.logger.debug(
    { from, to, logs: logCount, events: events.length, rederived: orders.length, changed: derived.length, ms: { logs: ms(t0, t1), facts: ms(t1, t2), write: ms(t3, performance.now()) } },
    'indexed blocks',
  );

  await publishBatch(ctx, s, { from, to, fills, blockTimes });
  return { from, to, events: events.length, ...(rolledBackTo === undefined ? {} : { rolledBackTo }) };
}
