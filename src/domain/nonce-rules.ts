// Spec 2.4: the rules an order's nonce must meet to be stored, on facts the caller read from the
// database. The dry run lists every rule an order breaks; submit_orders (src/db/sql/submit_orders.sql)
// checks the same rules in the same order under the per-(signer, nonce) lock and answers the first
// one broken. test/domain/nonce-rule-vectors.ts runs the same cases through both.
import { orderProblem, type OrderProblem } from './order-problems.js';

/** Spec 2.4 rule 3 / spec 8: the most orders one signer may store on one nonce. */
export const MAX_ORDERS_PER_NONCE = 20;

export interface NonceFacts {
  /** the signer's minimum nonce (CancelAllOrders), null when it never raised it */
  minNonce: bigint | null;
  /** the nonce was cancelled (CancelMultipleOrders) or an order on it was filled */
  nonceUsed: boolean;
  /** orders the signer has stored on this nonce, whatever their status */
  ordersOnNonce: number;
  /** an order with this order's hash is stored already */
  duplicate: boolean;
}

export type NonceProblemCode = 'NONCE_USED' | 'NONCE_TOO_LOW' | 'DUPLICATE_ORDER' | 'NONCE_CAP_REACHED';

/**
 * Every nonce rule the order breaks, in the order submit_orders checks them. A duplicate would
 * add no order, so the cap is not reported beside it.
 */
export function nonceProblemCodes(nonce: bigint, facts: NonceFacts): NonceProblemCode[] {
  const codes: NonceProblemCode[] = [];
  if (facts.nonceUsed) codes.push('NONCE_USED');
  if (facts.minNonce !== null && nonce < facts.minNonce) codes.push('NONCE_TOO_LOW');
  if (facts.duplicate) codes.push('DUPLICATE_ORDER');
  else if (facts.ordersOnNonce >= MAX_ORDERS_PER_NONCE) codes.push('NONCE_CAP_REACHED');
  return codes;
}

/** The problem a refusal lists for a broken nonce rule: the nonce is at fault, or the whole order for a duplicate. */
export function nonceProblem(code: NonceProblemCode): OrderProblem {
  return orderProblem(code, code === 'DUPLICATE_ORDER' ? null : 'nonce');
}

/** nonceProblemCodes as the problems a refusal lists. */
export function checkNonceRules(nonce: bigint, facts: NonceFacts): OrderProblem[] {
  return nonceProblemCodes(nonce, facts).map(nonceProblem);
}

/**
 * Spec 2.4: the next nonce an address has not used: above every nonce of its stored orders and
 * not below its minimum nonce (CancelAllOrders).
 */
export function nextNonceFor(facts: { maxStoredNonce: bigint | null; minNonce: bigint | null }): bigint {
  const above = facts.maxStoredNonce === null ? 0n : facts.maxStoredNonce + 1n;
  return facts.minNonce !== null && facts.minNonce > above ? facts.minNonce : above;
}
