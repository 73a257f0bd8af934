// Warnings about an order that never refuse it: the mistakes people make when they list or bid by
// hand, which marketplaces learned to flag after their users sold by accident (a listing at a
// tenth of the floor, a bid above the cheapest listing, an expiry typed in the wrong unit). Each
// warning carries its code and the figures behind it, so a client can show or act on it.
// Prices are compared per unit (price / amount): an ERC-1155 order's price is for all its units.
import { weiToEther } from './uint256.js';

export const ORDER_WARNING_CODES = ['BELOW_FLOOR', 'CROSSES_BOOK', 'EXPIRY_FAR', 'EXPIRY_SHORT', 'PRICE_UNLIKE_SALES'] as const;
export type OrderWarningCode = (typeof ORDER_WARNING_CODES)[number];

export interface OrderWarning {
  code: OrderWarningCode;
  message: string;
  /** what the order is compared with: wei per unit for a price, seconds for an expiry */
  reference: string;
  /** the order's figure in the same unit */
  value: string;
}

/** The market an order meets, per unit (wei); null where there is none. */
export interface OrderMarket {
  /** the collection's floor: its cheapest live fixed-price listing */
  floor: bigint | null;
  /** the cheapest live listing the bid could take (the token's; the floor for a collection offer) */
  bestAsk: bigint | null;
  /** the highest live bid that could fill the listing (token and collection offers) */
  bestBid: bigint | null;
  /** the median price of the collection's recent sales, and how many there were */
  salesMedian: bigint | null;
  salesCount: number;
}

/** Where a warning starts. Documented in docs/api.md "Warnings". */
export const WARNING_LIMITS = {
  /** a listing under this share of the floor (percent) */
  belowFloorPercent: 80n,
  /** an expiry further out than this (seconds): 180 days */
  expiryFarSeconds: 180n * 86_400n,
  /** a lifetime shorter than this (seconds): 15 minutes */
  expiryShortSeconds: 15n * 60n,
  /** a price more than this factor above or below the recent sales' median */
  salesFactor: 3n,
  /** the fewest recent sales a median is trusted from */
  minSales: 5,
} as const;

export interface WarnedOrder {
  isOrderAsk: boolean;
  price: bigint;
  amount: bigint;
  startTime: bigint;
  endTime: bigint;
}

const eth = (wei: bigint) => `${weiToEther(wei)} ETH`;
/** a / b as a percentage with two decimals, rounded down (b > 0) */
const percent = (a: bigint, b: bigint) => {
  const h = (a * 10_000n) / b;
  return `${h / 100n}.${(h % 100n).toString().padStart(2, '0')}%`;
};

export function orderWarnings(order: WarnedOrder, market: OrderMarket, nowSeconds: bigint): OrderWarning[] {
  const warnings: OrderWarning[] = [];
  const unit = order.amount > 0n ? order.price / order.amount : order.price;
  const warn = (code: OrderWarningCode, message: string, reference: bigint, value: bigint) =>
    warnings.push({ code, message, reference: reference.toString(), value: value.toString() });

  if (order.isOrderAsk && market.floor !== null && market.floor > 0n && unit * 100n < market.floor * WARNING_LIMITS.belowFloorPercent) {
    warn('BELOW_FLOOR', `This listing is ${percent(unit, market.floor)} of the collection floor (${eth(market.floor)})`, market.floor, unit);
  }
  if (!order.isOrderAsk && market.bestAsk !== null && unit >= market.bestAsk) {
    warn('CROSSES_BOOK', `This bid is at or above a live listing it could buy now (${eth(market.bestAsk)})`, market.bestAsk, unit);
  }
  if (order.isOrderAsk && market.bestBid !== null && unit <= market.bestBid) {
    warn('CROSSES_BOOK', `This listing is at or below a live offer that would pay more now (${eth(market.bestBid)})`, market.bestBid, unit);
  }
  const start = order.startTime > nowSeconds ? order.startTime : nowSeconds;
  const lifetime = order.endTime - start;
  if (order.endTime - nowSeconds > WARNING_LIMITS.expiryFarSeconds) {
    warn('EXPIRY_FAR', `The order stays valid for ${(order.endTime - nowSeconds) / 86_400n} days`, WARNING_LIMITS.expiryFarSeconds, order.endTime - nowSeconds);
  } else if (lifetime >= 0n && lifetime < WARNING_LIMITS.expiryShortSeconds) {
    warn('EXPIRY_SHORT', `The order is valid for only ${lifetime} seconds`, WARNING_LIMITS.expiryShortSeconds, lifetime);
  }
  const median = market.salesMedian;
  if (median !== null && median > 0n && market.salesCount >= WARNING_LIMITS.minSales) {
    const f = WARNING_LIMITS.salesFactor;
    if (unit > median * f || unit * f < median) {
      warn('PRICE_UNLIKE_SALES', `The price is ${percent(unit, median)} of the median of the last ${market.salesCount} sales (${eth(median)})`, median, unit);
    }
  }
  return warnings;
}
