import { describe, expect, it } from 'vitest';
import { deriveStatus, type OrderFacts, type StatusSubject } from '../../src/domain/order-status-rules.js';
import { effectiveStatus } from '../../src/domain/order-status.js';

const NOW = 1_000n;
const ask: StatusSubject = { isOrderAsk: true, price: 100n, endTime: 2_000n, status: 'VALID' };
const bid: StatusSubject = { ...ask, isOrderAsk: false };
const healthyAsk: OrderFacts = { filled: false, nonceDead: false, ownsAsset: true, approvedForTransfer: true };
const healthyBid: OrderFacts = { filled: false, nonceDead: false, wethBalance: 100n, wethAllowance: 100n };

describe('deriveStatus (spec 3)', () => {
  it('is VALID when nothing is wrong, with price exactly covered', () => {
    expect(deriveStatus(ask, healthyAsk, NOW)).toBe('VALID');
    expect(deriveStatus(bid, healthyBid, NOW)).toBe('VALID');
  });

  it('maps each single cause to its status', () => {
    expect(deriveStatus(ask, { ...healthyAsk, filled: true }, NOW)).toBe('EXECUTED');
    expect(deriveStatus(ask, { ...healthyAsk, nonceDead: true }, NOW)).toBe('CANCELLED');
    expect(deriveStatus({ ...ask, endTime: NOW - 1n }, healthyAsk, NOW)).toBe('EXPIRED');
    expect(deriveStatus(ask, { ...healthyAsk, ownsAsset: false }, NOW)).toBe('INVALID_OWNER');
    expect(deriveStatus(ask, { ...healthyAsk, approvedForTransfer: false }, NOW)).toBe('ERC_APPROVAL');
    expect(deriveStatus(bid, { ...healthyBid, wethBalance: 99n }, NOW)).toBe('ERC20_BALANCE');
    expect(deriveStatus(bid, { ...healthyBid, wethAllowance: 99n }, NOW)).toBe('ERC20_APPROVAL');
  });

  it('applies one precedence when several causes hold', () => {
    expect(deriveStatus(ask, { filled: true, nonceDead: true, ownsAsset: false, approvedForTransfer: false }, NOW)).toBe('EXECUTED');
    expect(deriveStatus({ ...ask, endTime: 0n }, { filled: false, nonceDead: true, ownsAsset: false }, NOW)).toBe('CANCELLED');
    expect(deriveStatus({ ...ask, endTime: 0n }, { filled: false, nonceDead: false, ownsAsset: false }, NOW)).toBe('EXPIRED');
    expect(deriveStatus(ask, { ...healthyAsk, ownsAsset: false, approvedForTransfer: false }, NOW)).toBe('INVALID_OWNER');
    expect(deriveStatus(bid, { ...healthyBid, wethBalance: 0n, wethAllowance: 0n }, NOW)).toBe('ERC20_BALANCE');
  });

  it('recovers from a repaired cause while the order is alive', () => {
    const broken = { ...ask, status: 'ERC_APPROVAL' as const };
    expect(deriveStatus(broken, healthyAsk, NOW)).toBe('VALID');
    const poor = { ...bid, status: 'ERC20_BALANCE' as const };
    expect(deriveStatus(poor, healthyBid, NOW)).toBe('VALID');
  });

  it('never brings a terminal state back', () => {
    for (const status of ['EXECUTED', 'CANCELLED', 'EXPIRED'] as const) {
      expect(deriveStatus({ ...ask, status }, healthyAsk, NOW)).toBe(status);
    }
  });

  it('agrees with the read-time EXPIRED rule at the endTime boundary', () => {
    expect(deriveStatus({ ...ask, endTime: NOW }, healthyAsk, NOW)).toBe('VALID');
    expect(effectiveStatus('VALID', NOW, NOW)).toBe('VALID');
    expect(deriveStatus({ ...ask, endTime: NOW - 1n }, healthyAsk, NOW)).toBe('EXPIRED');
    expect(effectiveStatus('VALID', NOW - 1n, NOW)).toBe('EXPIRED');
  });
});
