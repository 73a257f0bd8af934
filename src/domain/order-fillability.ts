// Why an order cannot be filled now, and what would change that: the status a client sees
// (./order-status.ts), plus an order that has not started yet. Chain-final and expired orders
// never come back; the live problems do when their cause is undone, and say what would undo it.
import { effectiveStatus, type OrderStatusName } from './order-status.js';

export const UNFILLABLE_REASONS = ['NOT_STARTED', 'EXPIRED', 'EXECUTED', 'CANCELLED', 'INVALID_OWNER', 'ERC_APPROVAL', 'ERC20_BALANCE', 'ERC20_APPROVAL'] as const;
export type UnfillableReason = (typeof UNFILLABLE_REASONS)[number];

/** Reasons that end the order for good. */
export const FINAL_REASONS: readonly UnfillableReason[] = ['EXPIRED', 'EXECUTED', 'CANCELLED'];

/** Reasons a chain event caused (the event log holds its block and transaction). */
export const CHAIN_REASONS: readonly UnfillableReason[] = ['EXECUTED', 'CANCELLED', 'INVALID_OWNER', 'ERC_APPROVAL', 'ERC20_BALANCE', 'ERC20_APPROVAL'];

/**
 * Reasons the event log names the event of: the chain events, and the expiry the indexer writes at
 * the block whose time passed the end time (src/chain/indexer/expiry-sql.ts).
 */
export const EVENT_REASONS: readonly UnfillableReason[] = [...CHAIN_REASONS, 'EXPIRED'];

/** Reasons about the bid maker's currency (WETH): fillability says how much is missing. */
export const CURRENCY_REASONS: readonly UnfillableReason[] = ['ERC20_BALANCE', 'ERC20_APPROVAL'];

/** What would make the order fillable; null where nothing can. */
export const REASON_FIXES: Record<UnfillableReason, string | null> = {
  NOT_STARTED: 'Nothing: it becomes fillable at its startTime.',
  EXPIRED: null,
  EXECUTED: null,
  CANCELLED: null,
  INVALID_OWNER: 'The signer holds the token again (at least the order amount).',
  ERC_APPROVAL: "The signer approves the collection's transfer manager (operator) for all its tokens: setApprovalForAll(operator, true).",
  ERC20_BALANCE: 'The signer holds at least the price in the order currency (WETH).',
  ERC20_APPROVAL: 'The signer approves the exchange (operator) to spend at least the price in the order currency: approve(operator, amount).',
};

/** Why the order is not fillable at `nowSeconds` (the market clock), or null when it is. */
export function unfillableReason(stored: OrderStatusName, startTime: bigint, endTime: bigint, nowSeconds: bigint): UnfillableReason | null {
  const status = effectiveStatus(stored, endTime, nowSeconds);
  if (status !== 'VALID') return status;
  return startTime > nowSeconds ? 'NOT_STARTED' : null;
}

/** The address the fix names: the transfer manager to approve, or the exchange to allow; else null. */
export function reasonOperator(reason: UnfillableReason | null, transferManager: string | null, exchange: string): string | null {
  if (reason === 'ERC_APPROVAL') return transferManager || null;
  if (reason === 'ERC20_APPROVAL') return exchange || null;
  return null;
}

/**
 * How much of the price a bid maker lacks for `reason`: the price less the balance
 * (ERC20_BALANCE) or less the allowance to the exchange (ERC20_APPROVAL), never below 0; null
 * for any other reason. The exchange moves the whole price from the maker in one transferFrom, so
 * both must reach it (looksrare-v1-facts.md).
 */
export function currencyShortfall(reason: UnfillableReason | null, needed: bigint, balance: bigint, allowance: bigint): bigint | null {
  const held = reason === 'ERC20_BALANCE' ? balance : reason === 'ERC20_APPROVAL' ? allowance : null;
  if (held === null) return null;
  return held >= needed ? 0n : needed - held;
}
