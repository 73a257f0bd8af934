// Spec 2.4 nonce rules on read facts: every rule broken, in the order submit_orders checks them.
import { describe, expect, it } from 'vitest';
import { checkNonceRules, nextNonceFor, nonceProblemCodes } from '../../src/domain/nonce-rules.js';
import { NONCE_RULE_VECTORS } from './nonce-rule-vectors.js';

describe('nonce rules', () => {
  it.each(NONCE_RULE_VECTORS.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(nonceProblemCodes(v.nonce, v.facts)).toEqual(v.expected);
  });

  it('names the nonce as the field at fault, and no field for a duplicate', () => {
    const problems = checkNonceRules(1n, { minNonce: 2n, nonceUsed: true, ordersOnNonce: 1, duplicate: true });
    expect(problems.map((p) => [p.code, p.field])).toEqual([
      ['NONCE_USED', 'nonce'],
      ['NONCE_TOO_LOW', 'nonce'],
      ['DUPLICATE_ORDER', null],
    ]);
  });
});

describe('next nonce', () => {
  it('is above every stored nonce and not below the minimum', () => {
    expect(nextNonceFor({ maxStoredNonce: null, minNonce: null })).toBe(0n);
    expect(nextNonceFor({ maxStoredNonce: 4n, minNonce: null })).toBe(5n);
    expect(nextNonceFor({ maxStoredNonce: 4n, minNonce: 9n })).toBe(9n);
    expect(nextNonceFor({ maxStoredNonce: 9n, minNonce: 9n })).toBe(10n);
    expect(nextNonceFor({ maxStoredNonce: null, minNonce: 3n })).toBe(3n);
  });
});
