// The nonce rules as cases both implementations must answer alike: nonceProblemCodes
// (src/domain/nonce-rules.ts, the dry run) and submit_orders (src/db/sql/submit_orders.sql, the
// write). test/domain/nonce-rules.test.ts runs them through the first, test/db/submit-orders-sql.test.ts
// builds each case's database state and runs them through the second, which answers the first
// code listed (or OK).
import { MAX_ORDERS_PER_NONCE, type NonceFacts, type NonceProblemCode } from '../../src/domain/nonce-rules.js';

export interface NonceRuleVector {
  name: string;
  nonce: bigint;
  facts: NonceFacts;
  /** how the database holds nonceUsed: a cancellation (dead_nonces), or a filled order on the nonce (one of ordersOnNonce) */
  usedBy?: 'cancel' | 'fill';
  expected: NonceProblemCode[];
}

const none: NonceFacts = { minNonce: null, nonceUsed: false, ordersOnNonce: 0, duplicate: false };
const CAP = MAX_ORDERS_PER_NONCE;
const U256_MAX = (1n << 256n) - 1n;

export const NONCE_RULE_VECTORS: NonceRuleVector[] = [
  { name: 'a fresh signer', nonce: 0n, facts: none, expected: [] },
  { name: 'a nonce equal to the minimum', nonce: 5n, facts: { ...none, minNonce: 5n }, expected: [] },
  { name: 'a nonce below the minimum', nonce: 4n, facts: { ...none, minNonce: 5n }, expected: ['NONCE_TOO_LOW'] },
  { name: 'the largest nonce against a large minimum', nonce: U256_MAX, facts: { ...none, minNonce: 1n << 255n }, expected: [] },
  { name: 'one below a large minimum', nonce: (1n << 255n) - 1n, facts: { ...none, minNonce: 1n << 255n }, expected: ['NONCE_TOO_LOW'] },
  { name: 'a cancelled nonce', nonce: 3n, facts: { ...none, nonceUsed: true }, usedBy: 'cancel', expected: ['NONCE_USED'] },
  { name: 'a nonce whose order was filled', nonce: 3n, facts: { ...none, nonceUsed: true, ordersOnNonce: 1 }, usedBy: 'fill', expected: ['NONCE_USED'] },
  { name: 'a cancelled nonce below the minimum', nonce: 2n, facts: { ...none, minNonce: 3n, nonceUsed: true }, usedBy: 'cancel', expected: ['NONCE_USED', 'NONCE_TOO_LOW'] },
  { name: 'one below the cap', nonce: 7n, facts: { ...none, ordersOnNonce: CAP - 1 }, expected: [] },
  { name: 'at the cap', nonce: 7n, facts: { ...none, ordersOnNonce: CAP }, expected: ['NONCE_CAP_REACHED'] },
  { name: 'a duplicate', nonce: 7n, facts: { ...none, ordersOnNonce: 1, duplicate: true }, expected: ['DUPLICATE_ORDER'] },
  { name: 'a duplicate at the cap', nonce: 7n, facts: { ...none, ordersOnNonce: CAP, duplicate: true }, expected: ['DUPLICATE_ORDER'] },
  { name: 'below the minimum and at the cap', nonce: 1n, facts: { ...none, minNonce: 2n, ordersOnNonce: CAP }, expected: ['NONCE_TOO_LOW', 'NONCE_CAP_REACHED'] },
  { name: 'a duplicate of a filled order', nonce: 9n, facts: { ...none, nonceUsed: true, ordersOnNonce: 1, duplicate: true }, usedBy: 'fill', expected: ['NONCE_USED', 'DUPLICATE_ORDER'] },
];
