// The work of a loop turn besides the next batch: settling orders submitted since the last batch
// when there is no block to index, the floor changes time alone made, and one chunk of a queued
// collection backfill. Each runs on the lease's session.
import type { SqlRunner } from '../../db/sql-runner.js';
import { floorCatchUpScript } from '../../db/floor-sql.js';
import { orderStatusChanges } from '../../domain/order-status-changes.js';
import { backfillStep, type BackfillStep } from './collection-backfill.js';
import type { IndexerContext } from './indexer-context.js';
import type { Cursor } from './indexer-cursor.js';
import { currencyHoldingsOf, recordCurrencyHoldingsSql } from './currency-holdings-sql.js';
import { readOrderFacts } from './order-facts.js';
import { buildSettleScript, findUnsettledOrders } from './unsettled-orders.js';

/** No block to index: orders submitted since the last batch are evaluated at the cursor block. */
export async function settleAtCursor(ctx: IndexerContext, s: SqlRunner, cursor: Cursor): Promise<void> {
  const { opts, network } = ctx;
  const unsettled = await findUnsettledOrders(s, cursor.number);
  if (!unsettled.hashes.length) return;
  const facts = await readOrderFacts(ctx.provider, network, unsettled.stale, cursor.number);
  // the stored status never holds time (EXPIRED is read at the market clock, order-status.ts)
  const changes = orderStatusChanges(unsettled.stale, [], facts);
  await opts.beforeWrite?.({ from: cursor.number + 1, to: cursor.number });
  const script = buildSettleScript({
    stream: ctx.stream,
    cursor: cursor.number,
    derived: changes.map((c) => ({ hash: c.order.hash, status: c.status })),
    hashes: unsettled.hashes,
    now: opts.now(),
    standardStrategies: network.strategies.standardSale,
  });
  const holdings = recordCurrencyHoldingsSql(currencyHoldingsOf(unsettled.stale, facts), network.weth, cursor.number);
  if (script) await s.exec(holdings ? `${script}\n${holdings};` : script);
  for (const { order: o, status } of changes) {
    ctx.emit({ type: 'orderStatusChanged', orderHash: o.hash, collection: o.collection, signer: o.signer, isOrderAsk: o.isOrderAsk, oldStatus: o.status, newStatus: status, blockNumber: cursor.number, reorg: false });
  }
}

/** Writes the floor and best-bid changes that time alone made up to the market clock (src/db/floor-sql.ts). */
export async function catchUpFloors(ctx: IndexerContext, s: SqlRunner): Promise<void> {
  await s.exec(floorCatchUpScript(ctx.opts.now(), ctx.network.strategies.standardSale).join(';\n') + ';');
}

/** One chunk of `collection`'s queued backfill, or of the next queued job when none is named. */
export function backfillChunk(ctx: IndexerContext, s: SqlRunner, collection?: string): Promise<BackfillStep> {
  return backfillStep({ session: s, provider: ctx.provider, fetcher: ctx.logFetcher, network: ctx.network, chunkBlocks: ctx.opts.backfillChunkBlocks ?? 2000 }, collection);
}
