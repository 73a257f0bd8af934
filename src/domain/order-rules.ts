// The business rules of spec 2.3 on a well-formed order: every rule is checked and
// every violation returned. Chain state, nonces and the signature are checked elsewhere.
// Strategy rules mirror the v1 contracts (LooksRare/contracts-exchange-v1, contracts/executionStrategies/):
// a rule that the contract would make unfillable is refused here instead of stored.
import { ZERO_ADDRESS } from './address.js';
import { checksumAddress } from './crypto-backend.js';
import type { ParsedMakerOrderInput } from './maker-order-input.js';
import { strategyKind, type Network } from './networks.js';
import type { ParamValue } from './order-params.js';
import { orderProblem, type OrderProblem } from './order-problems.js';

export interface OrderRuleContext {
  network: Network;
  nowSeconds: bigint;
  /** null = the collection is unknown: the ERC-721 "amount is 1" rule is skipped */
  collectionType: 'ERC721' | 'ERC1155' | null;
}

/** Spec 2.3 / 8: minPercentageToAsk cannot be higher than 9800. */
export const MAX_MIN_PERCENTAGE_TO_ASK = 9800n;

/**
 * StrategyDutchAuction requires endTime >= startTime + minimumAuctionLengthInSeconds, a value the
 * owner can raise but never set below 15 minutes (its constructor and updateMinimumAuctionLength).
 */
export const DUTCH_AUCTION_MIN_LENGTH_SECONDS = 15n * 60n;

export function checkOrderRules(order: ParsedMakerOrderInput, ctx: OrderRuleContext): OrderProblem[] {
  const problems: OrderProblem[] = [];
  const add = (...args: Parameters<typeof orderProblem>) => problems.push(orderProblem(...args));
  const kind = strategyKind(ctx.network, order.strategy);

  if (kind === null) add('STRATEGY_NOT_WHITELISTED', 'strategy');
  if (kind === 'collectionOffer') {
    // Spec 4.7: a collection offer carries tokenId null. StrategyAnyItemFromCollectionForFixedPrice
    // can only execute a maker bid (its canExecuteTakerBid returns false).
    if (order.tokenId !== null) add('COLLECTION_OFFER_TOKEN_ID', 'tokenId');
    if (order.isOrderAsk) add('COLLECTION_OFFER_ASK', 'isOrderAsk');
  } else if (kind !== null && order.tokenId === null) {
    add('TOKEN_ID_REQUIRED', 'tokenId');
  }

  if (!ctx.network.weth || order.currency.toLowerCase() !== ctx.network.weth.toLowerCase()) add('CURRENCY_NOT_WHITELISTED', 'currency');

  // The exchange itself refuses amount 0 for any collection ("Order: Amount cannot be 0").
  if (order.amount === 0n) add('INVALID_AMOUNT', 'amount', 'Amount must be at least 1');
  else if (ctx.collectionType === 'ERC721' && order.amount !== 1n) add('INVALID_AMOUNT', 'amount', 'Amount must be 1 for an ERC-721 collection');

  if (order.minPercentageToAsk > MAX_MIN_PERCENTAGE_TO_ASK) add('MIN_PERCENTAGE_TOO_HIGH', 'minPercentageToAsk');
  if (order.price === 0n) add('PRICE_ZERO', 'price');

  // "endTime in the future": an order ending now is already unusable, so endTime > now.
  if (order.endTime <= ctx.nowSeconds) add('EXPIRED', 'endTime');
  if (order.endTime <= order.startTime) add('END_BEFORE_START', 'endTime');

  if (kind === 'privateSale') checkPrivateSale(order, add);
  if (kind === 'dutchAuction') checkDutchAuction(order, add);
  return problems;
}

type Add = (...args: Parameters<typeof orderProblem>) => void;

// StrategyPrivateSale: abi.decode(makerAsk.params, (address)) == taker; it never executes a bid.
function checkPrivateSale(order: ParsedMakerOrderInput, add: Add): void {
  if (!order.isOrderAsk) add('PRIVATE_SALE_BID', 'isOrderAsk');
  const buyer = privateSaleBuyer(order.params);
  if (buyer === null) add('PRIVATE_SALE_PARAMS', 'params', 'Private sale params must be exactly one address: the buyer');
  else if (buyer === ZERO_ADDRESS) add('PRIVATE_SALE_PARAMS', 'params', 'Private sale buyer cannot be the zero address');
  else if (buyer === order.signer) add('PRIVATE_SALE_PARAMS', 'params', 'Private sale buyer cannot be the signer');
}

// StrategyDutchAuction: startPrice = abi.decode(params, (uint256)) must exceed price (the end
// price), the auction must be long enough, and it never executes a bid.
function checkDutchAuction(order: ParsedMakerOrderInput, add: Add): void {
  if (!order.isOrderAsk) add('DUTCH_AUCTION_BID', 'isOrderAsk');
  const startPrice = dutchAuctionStartPrice(order.params);
  if (startPrice === null) add('DUTCH_AUCTION_PARAMS', 'params', 'Dutch auction params must be exactly one integer: the start price');
  else if (startPrice <= order.price) add('DUTCH_AUCTION_PARAMS', 'params', 'Dutch auction start price (params[0]) must be above price, the end price');
  if (order.endTime > order.startTime && order.endTime - order.startTime < DUTCH_AUCTION_MIN_LENGTH_SECONDS) add('DUTCH_AUCTION_TOO_SHORT', 'endTime');
}

/**
 * The buyer a private sale's params encode, or null unless they are one address. A uint256 below
 * 2^160 counts: a mixed-case address with a wrong checksum is typed uint256 by the v1 SDK, yet
 * encodes to the same 32 bytes the contract decodes as that address.
 */
export function privateSaleBuyer(params: ParamValue[]): string | null {
  const [p, ...rest] = params;
  if (!p || rest.length > 0) return null;
  if (p.type === 'address') return p.value;
  if (p.type === 'uint256' && p.value < 1n << 160n) return checksumAddress(`0x${p.value.toString(16).padStart(40, '0')}`);
  return null;
}

/** The Dutch auction start price: exactly one uint256-typed param, else null. */
export function dutchAuctionStartPrice(params: ParamValue[]): bigint | null {
  const [p, ...rest] = params;
  return p && rest.length === 0 && p.type === 'uint256' ? p.value : null;
}
