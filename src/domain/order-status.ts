// Spec 3: order statuses, and the one rule that turns what is stored into what a client sees.
//
// What is stored is a function of chain facts only (src/domain/order-status-rules.ts):
// EXECUTED and CANCELLED once the exchange says so, else the live problem the chain shows (or
// VALID). Time is never stored: EXPIRED is decided when the status is read, from the order's
// endTime and the market clock (the later of the wall clock and the latest block time the indexer
// has seen, src/services/market-clock.ts). Hence one precedence, whatever order facts arrive in:
//   EXECUTED > CANCELLED > EXPIRED > INVALID_OWNER > ERC_APPROVAL > ERC20_BALANCE > ERC20_APPROVAL > VALID
// An order cancelled after it expired reads CANCELLED, exactly as one cancelled before it expired.
// EXECUTED, CANCELLED and EXPIRED are terminal (nothing the chain does later brings the order
// back; only a reorg that removes the fill or cancel does); the live problems are reversible.
export const ORDER_STATUSES = [
  'VALID',
  'CANCELLED',
  'ERC_APPROVAL',
  'ERC20_APPROVAL',
  'ERC20_BALANCE',
  'EXECUTED',
  'EXPIRED',
  'INVALID_OWNER',
] as const;

export type OrderStatusName = (typeof ORDER_STATUSES)[number];

/** Strongest first: when several statuses apply, the first one in this list is shown. */
export const STATUS_PRECEDENCE: readonly OrderStatusName[] = [
  'EXECUTED',
  'CANCELLED',
  'EXPIRED',
  'INVALID_OWNER',
  'ERC_APPROVAL',
  'ERC20_BALANCE',
  'ERC20_APPROVAL',
  'VALID',
];

export const TERMINAL_STATUSES: readonly OrderStatusName[] = ['EXECUTED', 'CANCELLED', 'EXPIRED'];

/** Terminal statuses set by an exchange event (a fill, a nonce cancellation); EXPIRED is time, not a fact. */
export const CHAIN_FINAL_STATUSES: readonly OrderStatusName[] = ['EXECUTED', 'CANCELLED'];

/** Live statuses: stored while the order is not terminal, and hidden behind EXPIRED after endTime. */
export const LIVE_STATUSES: readonly OrderStatusName[] = ORDER_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

export function isTerminal(status: OrderStatusName): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function isChainFinal(status: OrderStatusName): boolean {
  return CHAIN_FINAL_STATUSES.includes(status);
}

/** The stronger of two statuses by STATUS_PRECEDENCE. */
export function strongerStatus(a: OrderStatusName, b: OrderStatusName): OrderStatusName {
  return STATUS_PRECEDENCE.indexOf(a) <= STATUS_PRECEDENCE.indexOf(b) ? a : b;
}

/**
 * The status a client sees (spec 3: expired when now > endTime). `nowSeconds` is the market
 * clock. A stored EXPIRED (written by versions that stored time) still reads EXPIRED.
 */
export function effectiveStatus(stored: OrderStatusName, endTime: bigint, nowSeconds: bigint): OrderStatusName {
  if (isChainFinal(stored)) return stored;
  return stored === 'EXPIRED' || nowSeconds > endTime ? 'EXPIRED' : stored;
}

/** Whether an order is inside its validity window at `nowSeconds` (startTime <= now <= endTime). */
export function isWithinTimeWindow(startTime: bigint, endTime: bigint, nowSeconds: bigint): boolean {
  return startTime <= nowSeconds && nowSeconds <= endTime;
}
