// Order.fillability on the resolver path (the read engine renders the same in SQL:
// src/read-engine/fillability-reads.ts): the reason from src/domain/order-fillability.ts, the
// operator a fix names, and the block and transaction of the event that made the order what it is.
import type { StatementBatch } from '../db/statement-batch.js';
import { CHAIN_REASONS, FINAL_REASONS, reasonOperator, REASON_FIXES, unfillableReason, type UnfillableReason } from '../domain/order-fillability.js';
import { transferManagerFor } from '../domain/networks.js';
import type { OrderStatusName } from '../domain/order-status.js';
import type { ServiceDeps } from './deps.js';

export interface StatusEvent {
  blockNumber: string | null;
  txHash: string | null;
}

export interface OrderFillability {
  fillable: boolean;
  reason: UnfillableReason | null;
  canReturn: boolean | null;
  fix: string | null;
  operator: string | null;
  blockNumber: string | null;
  txHash: string | null;
}

export interface FillableOrder {
  hash: string;
  status: OrderStatusName;
  startTime: bigint;
  endTime: bigint;
  collectionAddress: string;
}

/**
 * The latest event of each order that set the status named (`<hash>|<status>`), what a reorg
 * undid left out (a RETRACTED row repeats its event's status: not an event that set it): one statement for every key (a request's DataLoader batch).
 */
export const STATUS_EVENTS_SQL = `
SELECT DISTINCT ON (k.key) k.key, m.block_number::text AS block_number, m.tx_hash
  FROM unnest($1::text[]) AS k(key)
  JOIN market_events m ON m.order_hash = split_part(k.key, '|', 1) AND m.new_status::text = split_part(k.key, '|', 2)
 WHERE m.type <> 'RETRACTED' AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = m.id)
 ORDER BY k.key, m.id DESC`;

export function createOrderFillabilityService(deps: ServiceDeps) {
  async function latestStatusEvents(keys: readonly string[], sql: StatementBatch): Promise<(StatusEvent | null)[]> {
    const rows = await sql.query<{ key: string; block_number: string | null; tx_hash: string | null }>(STATUS_EVENTS_SQL, [[...keys]]);
    const byKey = new Map(rows.map((r) => [r.key, { blockNumber: r.block_number, txHash: r.tx_hash }]));
    return keys.map((k) => byKey.get(k) ?? null);
  }

  async function fillabilityOf(
    order: FillableOrder,
    nowSeconds: bigint,
    read: { collectionType: (address: string) => Promise<'ERC721' | 'ERC1155' | null>; statusEvent: (key: string) => Promise<StatusEvent | null> },
  ): Promise<OrderFillability> {
    const reason = unfillableReason(order.status, order.startTime, order.endTime, nowSeconds);
    const type = reason === 'ERC_APPROVAL' ? await read.collectionType(order.collectionAddress) : null;
    const event = reason !== null && CHAIN_REASONS.includes(reason) ? await read.statusEvent(`${order.hash}|${reason}`) : null;
    return {
      fillable: reason === null,
      reason,
      canReturn: reason === null ? null : !FINAL_REASONS.includes(reason),
      fix: reason === null ? null : REASON_FIXES[reason],
      operator: reasonOperator(reason, type ? transferManagerFor(deps.network, type) : null, deps.network.exchange),
      blockNumber: event?.blockNumber ?? null,
      txHash: event?.txHash ?? null,
    };
  }

  return { latestStatusEvents, fillabilityOf };
}

export type OrderFillabilityService = ReturnType<typeof createOrderFillabilityService>;
