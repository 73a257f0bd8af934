// Spec 3: order statuses. EXPIRED is derived at read time from endTime so that no read ever
// serves an order as VALID after its end (no sweep can be late). EXECUTED, CANCELLED and
// EXPIRED are terminal: nothing brings such an order back.
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

export const TERMINAL_STATUSES: readonly OrderStatusName[] = ['EXECUTED', 'CANCELLED', 'EXPIRED'];

/** Live statuses: stored while the order is not terminal, and hidden behind EXPIRED after endTime. */
export const LIVE_STATUSES: readonly OrderStatusName[] = ORDER_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

export function isTerminal(status: OrderStatusName): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The status a client sees: a live order past its endTime is EXPIRED (spec 3: now > endTime). */
export function effectiveStatus(stored: OrderStatusName, endTime: bigint, nowSeconds: bigint): OrderStatusName {
  if (isTerminal(stored)) return stored;
  return nowSeconds > endTime ? 'EXPIRED' : stored;
}
