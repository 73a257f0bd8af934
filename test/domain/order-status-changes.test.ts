import { describe, expect, it } from 'vitest';
import { orderStatusChanges, type ChainFacts, type OrderEndingEvent, type RederivedOrder } from '../../src/domain/order-status-changes.js';

const ALICE = '0x' + 'a'.repeat(40);
const BOB = '0x' + 'b'.repeat(40);
const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');

const ask = (n: number, signer: string, nonce: bigint, status: RederivedOrder['status'] = 'VALID'): RederivedOrder => ({
  hash: hash(n),
  signer,
  nonce,
  isOrderAsk: true,
  price: 100n,
  status,
});
const bid = (n: number, signer: string, nonce: bigint, status: RederivedOrder['status'] = 'VALID'): RederivedOrder => ({
  ...ask(n, signer, nonce, status),
  isOrderAsk: false,
});
const none = new Map<string, ChainFacts>();
const changed = (orders: RederivedOrder[], events: OrderEndingEvent[], facts: ReadonlyMap<string, ChainFacts> = none) =>
  orderStatusChanges(orders, events, facts).map((c) => [c.order.hash, c.status]);

describe('orderStatusChanges', () => {
  it('executes the filled order and cancels the maker’s other orders on its nonce only', () => {
    const orders = [ask(1, ALICE, 5n), bid(2, ALICE, 5n), ask(3, ALICE, 6n), ask(4, BOB, 5n)];
    const fill: OrderEndingEvent = { kind: 'TakerBid', orderHash: hash(1), maker: ALICE, orderNonce: 5n };
    expect(changed(orders, [fill])).toEqual([
      [hash(1), 'EXECUTED'],
      [hash(2), 'CANCELLED'],
    ]);
  });

  it('cancels the listed nonces of the cancelling user', () => {
    const orders = [ask(1, ALICE, 1n), ask(2, ALICE, 2n), ask(3, ALICE, 3n), ask(4, BOB, 2n)];
    expect(changed(orders, [{ kind: 'CancelMultipleOrders', user: ALICE, nonces: [2n, 3n] }])).toEqual([
      [hash(2), 'CANCELLED'],
      [hash(3), 'CANCELLED'],
    ]);
  });

  it('cancels the nonces below the highest new minimum of the batch, not the minimum itself', () => {
    const orders = [ask(1, ALICE, 4n), ask(2, ALICE, 9n), ask(3, ALICE, 10n), ask(4, BOB, 1n)];
    const events: OrderEndingEvent[] = [
      { kind: 'CancelAllOrders', user: ALICE, newMinNonce: 10n },
      { kind: 'CancelAllOrders', user: ALICE, newMinNonce: 5n },
    ];
    expect(changed(orders, events)).toEqual([
      [hash(1), 'CANCELLED'],
      [hash(2), 'CANCELLED'],
    ]);
  });

  it('moves live statuses both ways with the chain facts; no facts means no asset or funds problem', () => {
    const orders = [ask(1, ALICE, 1n), ask(2, ALICE, 2n, 'ERC_APPROVAL'), bid(3, BOB, 1n, 'ERC20_BALANCE'), bid(4, BOB, 2n), ask(5, BOB, 3n, 'INVALID_OWNER')];
    const facts = new Map<string, ChainFacts>([
      [hash(1), { ownsAsset: false, approvedForTransfer: true }],
      [hash(2), { ownsAsset: true, approvedForTransfer: true }],
      [hash(3), { wethBalance: 100n, wethAllowance: 100n }],
      [hash(4), { wethBalance: 100n, wethAllowance: 99n }],
    ]);
    expect(changed(orders, [], facts)).toEqual([
      [hash(1), 'INVALID_OWNER'],
      [hash(2), 'VALID'],
      [hash(3), 'VALID'],
      [hash(4), 'ERC20_APPROVAL'],
      [hash(5), 'VALID'],
    ]);
  });

  it('never reopens an ended order and lets a fill outrank a stored cancel', () => {
    const orders = [ask(1, ALICE, 1n, 'EXECUTED'), ask(2, ALICE, 2n, 'CANCELLED'), ask(3, ALICE, 3n, 'EXPIRED'), ask(4, BOB, 1n, 'CANCELLED')];
    const healthy: ChainFacts = { ownsAsset: true, approvedForTransfer: true };
    const facts = new Map(orders.map((o) => [o.hash, healthy]));
    const fill: OrderEndingEvent = { kind: 'TakerAsk', orderHash: hash(4), maker: BOB, orderNonce: 1n };
    expect(changed(orders, [fill], facts)).toEqual([[hash(4), 'EXECUTED']]);
  });

  it('returns the caller’s order objects', () => {
    const order = { ...ask(1, ALICE, 1n), collection: 'kept' };
    const [change] = orderStatusChanges([order], [], new Map([[order.hash, { ownsAsset: false }]]));
    expect(change?.order).toBe(order);
  });
});
