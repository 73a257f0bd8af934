// Order.fillability on the resolver path (the read engine renders the same in SQL:
// src/read-engine/fillability-reads.ts): the reason from src/domain/order-fillability.ts, the
// operator a fix names, the block and transaction of the event that made the order what it is, and
// for a bid short of WETH how much it lacks by the indexer's last read (currency_holdings).
import type { StatementBatch } from '../db/statement-batch.js';
import { CURRENCY_REASONS, currencyShortfall, EVENT_REASONS, FINAL_REASONS, reasonOperator, REASON_FIXES, unfillableReason, type UnfillableReason } from '../domain/order-fillability.js';
import { transferManagerFor } from '../domain/networks.js';
import type { OrderStatusName } from '../domain/order-status.js';
import { toUintString } from '../domain/uint256.js';
import type { ServiceDeps } from './deps.js';

export interface StatusEvent {
  blockNumber: string | null;
  txHash: string | null;
}

/** A bid maker's currency as the indexer last read it on chain (src/chain/indexer/currency-holdings-sql.ts). */
export interface CurrencyHolding {
  balance: string;
  allowance: string;
  blockNumber: string;
}

/** How much of its price an ERC20_BALANCE or ERC20_APPROVAL bid lacks, by that read. */
export interface CurrencyShortfall {
  currency: string;
  needed: string;
  balance: string;
  allowance: string;
  shortfall: string;
  blockNumber: string;
}

export interface OrderFillability {
  fillable: boolean;
  reason: UnfillableReason | null;
  canReturn: boolean | null;
  fix: string | null;
  operator: string | null;
  blockNumber: string | null;
  txHash: string | null;
  missing: CurrencyShortfall | null;
}

export interface FillableOrder {
  hash: string;
  signer: string;
  currencyAddress: string;
  price: { toFixed(): string } | bigint | string;
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

/** The last read of each `<signer>|<currency>` key, in one statement (a request's DataLoader batch). */
export const CURRENCY_HOLDINGS_SQL = `
SELECT k.key, h.balance::text AS balance, h.allowance::text AS allowance, h.block_number::text AS block_number
  FROM unnest($1::text[]) AS k(key)
  JOIN currency_holdings h ON h.signer = split_part(k.key, '|', 1) AND h.currency = split_part(k.key, '|', 2)`;

export function createOrderFillabilityService(deps: ServiceDeps) {
  async function latestStatusEvents(keys: readonly string[], sql: StatementBatch): Promise<(StatusEvent | null)[]> {
    const rows = await sql.query<{ key: string; block_number: string | null; tx_hash: string | null }>(STATUS_EVENTS_SQL, [[...keys]]);
    const byKey = new Map(rows.map((r) => [r.key, { blockNumber: r.block_number, txHash: r.tx_hash }]));
    return keys.map((k) => byKey.get(k) ?? null);
  }

  async function currencyHoldings(keys: readonly string[], sql: StatementBatch): Promise<(CurrencyHolding | null)[]> {
    const rows = await sql.query<{ key: string; balance: string; allowance: string; block_number: string }>(CURRENCY_HOLDINGS_SQL, [[...keys]]);
    const byKey = new Map(rows.map((r) => [r.key, { balance: r.balance, allowance: r.allowance, blockNumber: r.block_number }]));
    return keys.map((k) => byKey.get(k) ?? null);
  }

  async function fillabilityOf(
    order: FillableOrder,
    nowSeconds: bigint,
    read: {
      collectionType: (address: string) => Promise<'ERC721' | 'ERC1155' | null>;
      statusEvent: (key: string) => Promise<StatusEvent | null>;
      currencyHolding: (key: string) => Promise<CurrencyHolding | null>;
    },
  ): Promise<OrderFillability> {
    const reason = unfillableReason(order.status, order.startTime, order.endTime, nowSeconds);
    const type = reason === 'ERC_APPROVAL' ? await read.collectionType(order.collectionAddress) : null;
    const event = reason !== null && EVENT_REASONS.includes(reason) ? await read.statusEvent(`${order.hash}|${reason}`) : null;
    const holding = reason !== null && CURRENCY_REASONS.includes(reason) ? await read.currencyHolding(`${order.signer}|${order.currencyAddress}`) : null;
    const needed = toUintString(order.price);
    return {
      fillable: reason === null,
      reason,
      canReturn: reason === null ? null : !FINAL_REASONS.includes(reason),
      fix: reason === null ? null : REASON_FIXES[reason],
      operator: reasonOperator(reason, type ? transferManagerFor(deps.network, type) : null, deps.network.exchange),
      blockNumber: event?.blockNumber ?? null,
      txHash: event?.txHash ?? null,
      missing: holding && {
        currency: order.currencyAddress,
        needed,
        balance: holding.balance,
        allowance: holding.allowance,
        shortfall: String(currencyShortfall(reason, BigInt(needed), BigInt(holding.balance), BigInt(holding.allowance))),
        blockNumber: holding.blockNumber,
      },
    };
  }

  return { latestStatusEvents, currencyHoldings, fillabilityOf };
}

export type OrderFillabilityService = ReturnType<typeof createOrderFillabilityService>;
