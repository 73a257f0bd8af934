import { describe, expect, it } from 'vitest';
import { isBytes32Hex } from '../../src/domain/bytes32-hex.js';

const LOWER = `0x${'ab'.repeat(32)}`;

describe('isBytes32Hex', () => {
  it('takes 0x and 64 hex digits in either case', () => {
    expect(isBytes32Hex(LOWER)).toBe(true);
    expect(isBytes32Hex(LOWER.toUpperCase().replace('0X', '0x'))).toBe(true);
  });

  it('refuses another length, a missing or upper-case prefix, and non-hex digits', () => {
    for (const bad of [LOWER.slice(0, -1), `${LOWER}0`, LOWER.slice(2), `0X${LOWER.slice(2)}`, `0x${'g'.repeat(64)}`, '', ` ${LOWER}`]) expect(isBytes32Hex(bad)).toBe(false);
  });

  it('with lowercase, takes only the form the API hands out', () => {
    expect(isBytes32Hex(LOWER, { lowercase: true })).toBe(true);
    expect(isBytes32Hex(`0x${'AB'.repeat(32)}`, { lowercase: true })).toBe(false);
  });
});
