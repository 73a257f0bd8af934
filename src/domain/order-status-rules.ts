// Spec 3 status transitions as one pure function of what the chain says about an order.
// Terminal states (EXECUTED, CANCELLED, EXPIRED) never come back. Among the live problems one
// deterministic precedence applies when several hold at once:
//   EXECUTED > CANCELLED > EXPIRED > INVALID_OWNER > ERC_APPROVAL > ERC20_BALANCE > ERC20_APPROVAL > VALID
// Ownership comes before approval (an approval moves nothing without the asset) and balance
// before allowance (no funds is the more basic problem, and topping up is what the user must do
// first). Mapping from looksrare-v1-facts.md "Chain events behind the statuses".
import { isTerminal, type OrderStatusName } from './order-status.js';

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

export function deriveStatus(order: StatusSubject, facts: OrderFacts, nowSeconds: bigint): OrderStatusName {
  if (isTerminal(order.status)) return order.status;
  if (facts.filled) return 'EXECUTED';
  if (facts.nonceDead) return 'CANCELLED';
  if (nowSeconds > order.endTime) return 'EXPIRED';
  if (order.isOrderAsk) {
    if (facts.ownsAsset === false) return 'INVALID_OWNER';
    if (facts.approvedForTransfer === false) return 'ERC_APPROVAL';
    return 'VALID';
  }
  if (facts.wethBalance !== undefined && facts.wethBalance < order.price) return 'ERC20_BALANCE';
  if (facts.wethAllowance !== undefined && facts.wethAllowance < order.price) return 'ERC20_APPROVAL';
  return 'VALID';
}
