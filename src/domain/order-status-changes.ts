// How one indexer batch changes the stored statuses of the orders it re-reads: the batch's fills
// and cancels (exchange events) plus the chain facts read at its last block, folded through
// storedStatusFromFacts (order-status-rules.ts). A fill ends its order and every order of the
// maker with the same nonce; CancelMultipleOrders ends the listed nonces; CancelAllOrders ends
// every nonce below the new minimum (LooksRareExchange, looksrare-v1-facts.md "Chain events
// behind the statuses").
import type { OrderStatusName } from './order-status.js';
import { storedStatusFromFacts, type OrderFacts } from './order-status-rules.js';

/** The exchange events that end orders, with the fields the fold reads. */
export type OrderEndingEvent =
  | { kind: 'TakerBid' | 'TakerAsk'; orderHash: string; maker: string; orderNonce: bigint }
  | { kind: 'CancelMultipleOrders'; user: string; nonces: readonly bigint[] }
  | { kind: 'CancelAllOrders'; user: string; newMinNonce: bigint };

/** What the chain says about one order's asset or funds (order-facts.ts reads it). */
export type ChainFacts = Pick<OrderFacts, 'ownsAsset' | 'approvedForTransfer' | 'wethBalance' | 'wethAllowance'>;

export interface RederivedOrder {
  hash: string;
  signer: string;
  nonce: bigint;
  isOrderAsk: boolean;
  price: bigint;
  /** the stored status */
  status: OrderStatusName;
}

export interface OrderStatusChange<O> {
  order: O;
  status: OrderStatusName;
}

/**
 * The orders among `orders` whose stored status changes, with the new status, in `orders`' order.
 * `facts` is keyed by order hash; an order missing from it has no asset or funds problem.
 */
export function orderStatusChanges<O extends RederivedOrder>(
  orders: readonly O[],
  events: readonly OrderEndingEvent[],
  facts: ReadonlyMap<string, ChainFacts>,
): OrderStatusChange<O>[] {
  const filled = new Set<string>();
  const deadNonces = new Set<string>();
  const minNonce = new Map<string, bigint>();
  for (const e of events) {
    if (e.kind === 'TakerBid' || e.kind === 'TakerAsk') {
      filled.add(e.orderHash);
      deadNonces.add(`${e.maker}|${e.orderNonce}`);
    } else if (e.kind === 'CancelMultipleOrders') for (const n of e.nonces) deadNonces.add(`${e.user}|${n}`);
    else if (e.kind === 'CancelAllOrders' && e.newMinNonce > (minNonce.get(e.user) ?? 0n)) minNonce.set(e.user, e.newMinNonce);
  }
  const changes: OrderStatusChange<O>[] = [];
  for (const o of orders) {
    const status = storedStatusFromFacts(o, {
      filled: filled.has(o.hash),
      nonceDead: deadNonces.has(`${o.signer}|${o.nonce}`) || o.nonce < (minNonce.get(o.signer) ?? 0n),
      ...facts.get(o.hash),
    });
    if (status !== o.status) changes.push({ order: o, status });
  }
  return changes;
}
