// One precedence whatever order the facts arrive in. Every ordering of the facts
// that can hold for an ask (and for a bid) is replayed the way the indexer applies them: each
// fact updates what the chain says, the stored status is re-derived from it (time plays no
// part), and the status shown is read at the market clock. The shown status must always be the
// strongest fact present, and undoing a reversible fact must bring the order back.
import { describe, expect, it } from 'vitest';
import { storedStatusFromFacts, type OrderFacts } from '../../src/domain/order-status-rules.js';
import { effectiveStatus, STATUS_PRECEDENCE, strongerStatus, type OrderStatusName } from '../../src/domain/order-status.js';

type Fact = 'fill' | 'cancel' | 'expire' | 'owner' | 'approval' | 'balance' | 'allowance';
const STATUS_OF: Record<Fact, OrderStatusName> = {
  fill: 'EXECUTED',
  cancel: 'CANCELLED',
  expire: 'EXPIRED',
  owner: 'INVALID_OWNER',
  approval: 'ERC_APPROVAL',
  balance: 'ERC20_BALANCE',
  allowance: 'ERC20_APPROVAL',
};
const END = 1_000n;

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

/** Replays `facts` in order, then undoes `undone` (reversible facts), as the indexer would. */
function replay(isOrderAsk: boolean, facts: readonly Fact[], undone: readonly Fact[] = []) {
  const price = 100n;
  const chain: OrderFacts = isOrderAsk
    ? { filled: false, nonceDead: false, ownsAsset: true, approvedForTransfer: true }
    : { filled: false, nonceDead: false, wethBalance: price, wethAllowance: price };
  let stored: OrderStatusName = 'VALID';
  let now = END - 10n;
  const shown = () => effectiveStatus(stored, END, now);
  const apply = (f: Fact, on: boolean) => {
    if (f === 'fill') chain.filled = on;
    else if (f === 'cancel') chain.nonceDead = on;
    else if (f === 'expire') now = on ? END + 1n : now; // time only moves forward
    else if (f === 'owner') chain.ownsAsset = !on;
    else if (f === 'approval') chain.approvedForTransfer = !on;
    else if (f === 'balance') chain.wethBalance = on ? price - 1n : price;
    else chain.wethAllowance = on ? price - 1n : price;
    // an event that touches the order re-derives it (expiry is no event: nothing is re-derived)
    if (f !== 'expire') stored = storedStatusFromFacts({ isOrderAsk, price, status: stored }, chain);
  };
  const seen: OrderStatusName[] = [];
  for (const f of facts) {
    apply(f, true);
    seen.push(shown());
  }
  for (const f of undone) apply(f, false);
  return { final: shown(), seen };
}

const strongest = (facts: readonly Fact[]) => facts.map((f) => STATUS_OF[f]).reduce(strongerStatus, 'VALID' as OrderStatusName);

describe('status precedence', () => {
  it('orders the statuses EXECUTED > CANCELLED > EXPIRED > INVALID_OWNER > ERC_APPROVAL > ERC20_BALANCE > ERC20_APPROVAL > VALID', () => {
    expect(STATUS_PRECEDENCE).toEqual(['EXECUTED', 'CANCELLED', 'EXPIRED', 'INVALID_OWNER', 'ERC_APPROVAL', 'ERC20_BALANCE', 'ERC20_APPROVAL', 'VALID']);
  });

  for (const [side, isOrderAsk, all] of [
    ['ask', true, ['fill', 'cancel', 'expire', 'owner', 'approval']],
    ['bid', false, ['fill', 'cancel', 'expire', 'balance', 'allowance']],
  ] as const) {
    it(`${side}: every ordering of every subset of facts shows the strongest fact present`, () => {
      let cases = 0;
      for (let mask = 1; mask < 1 << all.length; mask++) {
        const subset = all.filter((_, i) => mask & (1 << i));
        for (const order of permutations(subset)) {
          const { final, seen } = replay(isOrderAsk, order);
          expect(final, order.join(' > ')).toBe(strongest(order));
          // and after each fact, the strongest so far
          seen.forEach((s, i) => expect(s, order.slice(0, i + 1).join(' > ')).toBe(strongest(order.slice(0, i + 1))));
          cases++;
        }
      }
      expect(cases).toBe(325); // sum over k of C(5,k) k!
    });

    it(`${side}: undoing the reversible facts recovers, unless a terminal fact holds`, () => {
      const reversible = all.filter((f) => !['fill', 'cancel', 'expire'].includes(f));
      for (let mask = 1; mask < 1 << all.length; mask++) {
        const subset = all.filter((_, i) => mask & (1 << i));
        for (const order of permutations(subset)) {
          const undone = order.filter((f) => reversible.includes(f));
          const { final } = replay(isOrderAsk, order, undone);
          expect(final, `${order.join(' > ')} then undo ${undone.join(', ')}`).toBe(strongest(order.filter((f) => !undone.includes(f))));
        }
      }
    });
  }

  it('a stored EXPIRED (written by older versions) reads EXPIRED, and only a fill or cancel outranks it', () => {
    expect(effectiveStatus('EXPIRED', END, END - 10n)).toBe('EXPIRED');
    const healthy: OrderFacts = { filled: false, nonceDead: false, ownsAsset: true, approvedForTransfer: true };
    expect(storedStatusFromFacts({ isOrderAsk: true, price: 1n, status: 'EXPIRED' }, healthy)).toBe('EXPIRED');
    expect(storedStatusFromFacts({ isOrderAsk: true, price: 1n, status: 'EXPIRED' }, { ...healthy, nonceDead: true })).toBe('CANCELLED');
    expect(storedStatusFromFacts({ isOrderAsk: true, price: 1n, status: 'CANCELLED' }, { ...healthy, filled: true })).toBe('EXECUTED');
    expect(storedStatusFromFacts({ isOrderAsk: true, price: 1n, status: 'EXECUTED' }, { ...healthy, nonceDead: true })).toBe('EXECUTED');
  });
});
