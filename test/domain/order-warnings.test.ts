// The warnings an order meets (src/domain/order-warnings.ts): each one where it starts, per unit,
// with its figures; none for an ordinary order.
import { describe, expect, it } from 'vitest';
import { orderWarnings, WARNING_LIMITS, type OrderMarket, type WarnedOrder } from '../../src/domain/order-warnings.js';

const ETH = 10n ** 18n;
const NOW = 1_800_000_000n;
const DAY = 86_400n;
const none: OrderMarket = { floor: null, bestAsk: null, bestBid: null, salesMedian: null, salesCount: 0 };
const ask = (price: bigint, o: Partial<WarnedOrder> = {}): WarnedOrder => ({ isOrderAsk: true, price, amount: 1n, startTime: NOW - 60n, endTime: NOW + 7n * DAY, ...o });
const bid = (price: bigint, o: Partial<WarnedOrder> = {}): WarnedOrder => ({ ...ask(price, o), isOrderAsk: false });
const codes = (o: WarnedOrder, m: Partial<OrderMarket>) => orderWarnings(o, { ...none, ...m }, NOW).map((w) => w.code);

describe('order warnings', () => {
  it('warns of nothing for an ordinary order, or with no market at all', () => {
    expect(codes(ask(ETH), { floor: ETH, bestBid: ETH / 2n, salesMedian: ETH, salesCount: 10 })).toEqual([]);
    expect(codes(bid(ETH / 2n), { floor: ETH, bestAsk: ETH, salesMedian: ETH, salesCount: 10 })).toEqual([]);
    expect(codes(ask(1n), {})).toEqual([]);
  });

  it('warns of a listing under 80% of the floor, with the figures', () => {
    expect(codes(ask((ETH * 80n) / 100n), { floor: ETH })).toEqual([]);
    const [w] = orderWarnings(ask((ETH * 80n) / 100n - 1n), { ...none, floor: ETH }, NOW);
    expect(w).toEqual({ code: 'BELOW_FLOOR', message: 'This listing is 79.99% of the collection floor (1 ETH)', reference: ETH.toString(), value: ((ETH * 80n) / 100n - 1n).toString() });
    // per unit: 10 units for 5 ETH is 0.5 ETH each
    expect(codes(ask(5n * ETH, { amount: 10n }), { floor: ETH })).toEqual(['BELOW_FLOOR']);
    expect(codes(ask(10n * ETH, { amount: 10n }), { floor: ETH })).toEqual([]);
  });

  it('warns of an order that crosses the book, either way', () => {
    expect(codes(bid(ETH), { bestAsk: ETH })).toEqual(['CROSSES_BOOK']);
    expect(codes(bid(ETH - 1n), { bestAsk: ETH })).toEqual([]);
    expect(codes(ask(ETH), { bestBid: ETH, floor: ETH })).toEqual(['CROSSES_BOOK']);
    expect(codes(ask(ETH + 1n), { bestBid: ETH, floor: ETH })).toEqual([]);
  });

  it('warns of an expiry very far out or very near', () => {
    expect(codes(ask(ETH, { endTime: NOW + WARNING_LIMITS.expiryFarSeconds }), {})).toEqual([]);
    expect(codes(ask(ETH, { endTime: NOW + WARNING_LIMITS.expiryFarSeconds + 1n }), {})).toEqual(['EXPIRY_FAR']);
    expect(codes(ask(ETH, { endTime: NOW + WARNING_LIMITS.expiryShortSeconds }), {})).toEqual([]);
    expect(codes(ask(ETH, { endTime: NOW + WARNING_LIMITS.expiryShortSeconds - 1n }), {})).toEqual(['EXPIRY_SHORT']);
    // the lifetime counts from a start in the future
    expect(codes(ask(ETH, { startTime: NOW + DAY, endTime: NOW + DAY + 60n }), {})).toEqual(['EXPIRY_SHORT']);
  });

  it('warns of a price more than three times off the recent sales, from five sales on', () => {
    const m = { salesMedian: ETH, salesCount: 5 };
    expect(codes(ask(3n * ETH), m)).toEqual([]);
    expect(codes(ask(3n * ETH + 1n), m)).toEqual(['PRICE_UNLIKE_SALES']);
    expect(codes(bid(ETH / 3n + 1n), m)).toEqual([]);
    expect(codes(bid(ETH / 3n - 1n), m)).toEqual(['PRICE_UNLIKE_SALES']);
    expect(codes(ask(10n * ETH), { ...m, salesCount: 4 })).toEqual([]);
  });
});
