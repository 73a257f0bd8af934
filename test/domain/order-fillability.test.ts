// Why an order is not fillable (src/domain/order-fillability.ts): the status precedence of spec 3
// with NOT_STARTED after it, on the edges of the validity window; the WETH a bid lacks.
import { describe, expect, it } from 'vitest';
import { currencyShortfall, reasonOperator, unfillableReason } from '../../src/domain/order-fillability.js';

const NOW = 1_800_000_000n;

describe('unfillable reasons', () => {
  it('is fillable inside its window, edges included', () => {
    expect(unfillableReason('VALID', NOW, NOW, NOW)).toBeNull();
    expect(unfillableReason('VALID', NOW + 1n, NOW + 10n, NOW)).toBe('NOT_STARTED');
    expect(unfillableReason('VALID', NOW - 10n, NOW - 1n, NOW)).toBe('EXPIRED');
  });

  it('keeps chain-final statuses over time, and time over live problems', () => {
    expect(unfillableReason('EXECUTED', NOW - 10n, NOW - 1n, NOW)).toBe('EXECUTED');
    expect(unfillableReason('CANCELLED', NOW + 5n, NOW + 10n, NOW)).toBe('CANCELLED');
    expect(unfillableReason('ERC_APPROVAL', NOW - 10n, NOW - 1n, NOW)).toBe('EXPIRED');
    expect(unfillableReason('ERC20_BALANCE', NOW + 5n, NOW + 10n, NOW)).toBe('ERC20_BALANCE');
    expect(unfillableReason('EXPIRED', NOW - 10n, NOW + 10n, NOW)).toBe('EXPIRED');
  });

  it('names the operator of an approval only', () => {
    expect(reasonOperator('ERC_APPROVAL', '0xtm', '0xex')).toBe('0xtm');
    expect(reasonOperator('ERC20_APPROVAL', '0xtm', '0xex')).toBe('0xex');
    expect(reasonOperator('ERC20_APPROVAL', null, '')).toBeNull();
    expect(reasonOperator('INVALID_OWNER', '0xtm', '0xex')).toBeNull();
    expect(reasonOperator(null, '0xtm', '0xex')).toBeNull();
  });
});

describe('currency shortfall', () => {
  it('is the price less the figure the reason names, never below 0', () => {
    expect(currencyShortfall('ERC20_BALANCE', 100n, 30n, 10n)).toBe(70n);
    expect(currencyShortfall('ERC20_APPROVAL', 100n, 300n, 10n)).toBe(90n);
    expect(currencyShortfall('ERC20_APPROVAL', 100n, 300n, 100n)).toBe(0n);
    expect(currencyShortfall('ERC20_BALANCE', 100n, 2n ** 255n, 0n)).toBe(0n);
  });

  it('is null for reasons other than the currency', () => {
    expect(currencyShortfall('INVALID_OWNER', 100n, 0n, 0n)).toBeNull();
    expect(currencyShortfall(null, 100n, 0n, 0n)).toBeNull();
  });
});
