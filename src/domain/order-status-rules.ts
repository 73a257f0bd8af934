// Spec 3 status transitions as pure functions of what the chain says about an order.
// storedStatusFromFacts gives what the indexer stores (time plays no part); deriveStatus adds the
// time rule of effectiveStatus, which gives the one precedence of src/domain/order-status.ts:
//   EXECUTED > CANCELLED > EXPIRED > INVALID_OWNER > ERC_APPROVAL > ERC20_BALANCE > ERC20_APPROVAL > VALID
// Ownership comes before approval (an approval moves nothing without the asset) and balance
// before allowance (no funds is the more basic problem, and topping up is what the user must do
// first). Mapping from looksrare-v1-facts.md "Chain events behind the statuses".
import { effectiveStatus, type OrderStatusName } from './order-status.js';

export interface OrderFacts {
  /** a TakerBid/TakerAsk carried this order's hash */
  filled: boolean;
  /** the nonce was cancelled, is below the signer's minimum, or a same-nonce sibling was filled */
  nonceDead: boolean;
  /** asks: the signer holds the token (ERC-721 owner, ERC-1155 balance >= amount) */
  ownsAsset?: boolean;
  /** asks: isApprovedForAll(signer, transfer manager of the collection's standard) */
  approvedForTransfer?: boolean;
  /** bids: WETH balanceOf(signer) */
  wethBalance?: bigint;
  /** bids: WETH allowance(signer, exchange) */
  wethAllowance?: bigint;
}

export interface StatusSubject {
  isOrderAsk: boolean;
  price: bigint;
  endTime: bigint;
  status: OrderStatusName;
}

/**
 * What to store for an order, from its stored status and the chain facts. A fill beats a cancel
 * (EXECUTED is kept over a stored CANCELLED); neither is ever replaced by a live status, nor is a
 * stored EXPIRED (older versions stored time; this one never writes it).
 */
export function storedStatusFromFacts(order: Pick<StatusSubject, 'isOrderAsk' | 'price' | 'status'>, facts: OrderFacts): OrderStatusName {
  if (order.status === 'EXECUTED' || facts.filled) return 'EXECUTED';
  if (order.status === 'CANCELLED' || facts.nonceDead) return 'CANCELLED';
  // older versions stored EXPIRED; it stays (only a fill or cancel outranks it)
  if (order.status === 'EXPIRED') return 'EXPIRED';
  if (order.isOrderAsk) {
    if (facts.ownsAsset === false) return 'INVALID_OWNER';
    if (facts.approvedForTransfer === false) return 'ERC_APPROVAL';
    return 'VALID';
  }
  if (facts.wethBalance !== undefined && facts.wethBalance < order.price) return 'ERC20_BALANCE';
  if (facts.wethAllowance !== undefined && facts.wethAllowance < order.price) return 'ERC20_APPROVAL';
  return 'VALID';
}

/** The status a client sees for these facts at `nowSeconds` (the market clock). */
export function deriveStatus(order: StatusSubject, facts: OrderFacts, nowSeconds: bigint): OrderStatusName {
  return effectiveStatus(storedStatusFromFacts(order, facts), order.endTime, nowSeconds);
}
