// sdkGetAddress is ethers' getAddress without ethers: the same answer (or the same refusal) for
// every kind of string the v1 SDK's params could carry, generated here and read by both.
import { describe, expect, it } from 'vitest';
import { getAddress, getIcapAddress, hexlify, randomBytes } from 'ethers';
import { sdkGetAddress } from '../../src/domain/sdk-address.js';

const ethersOrNull = (s: unknown): string | null => {
  try {
    return getAddress(s as string);
  } catch {
    return null;
  }
};

function flipCase(s: string, p: number): string {
  return s.replace(/[a-fA-F]/g, (c) => (Math.random() < p ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c));
}

const B36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomB36 = (n: number) => Array.from({ length: n }, () => B36[Math.floor(Math.random() * B36.length)]).join('');

describe('sdkGetAddress', () => {
  it('agrees with ethers on hex addresses in every case, with and without 0x', () => {
    const inputs: string[] = [];
    for (let i = 0; i < 200; i++) {
      const lower = hexlify(randomBytes(20));
      const checksummed = getAddress(lower);
      inputs.push(lower, lower.toUpperCase().replace('0X', '0x'), checksummed, checksummed.slice(2), lower.slice(2), flipCase(checksummed, 0.1), flipCase(lower, 0.5));
    }
    inputs.push('0x' + '0'.repeat(40), '0x' + 'f'.repeat(40), '0x' + 'F'.repeat(40), '0X' + 'a'.repeat(40));
    for (const s of inputs) expect(sdkGetAddress(s), s).toBe(ethersOrNull(s));
  });

  it('agrees on ICAP addresses, valid and broken, of 30 and 31 base-36 digits (above 160 bits too)', () => {
    const inputs: string[] = [];
    for (let i = 0; i < 100; i++) {
      const icap = getIcapAddress(hexlify(randomBytes(20)));
      inputs.push(icap, icap.toLowerCase().replace(/^xe/, 'XE'), icap.slice(0, 2) + '00' + icap.slice(4));
      // 31 digits, every check value: exactly one passes, and may read above 2^160
      const body = randomB36(31);
      for (let c = 0; c < 100; c++) inputs.push(`XE${String(c).padStart(2, '0')}${body}`);
    }
    let valid = 0;
    for (const s of inputs) {
      const ours = sdkGetAddress(s);
      expect(ours, s).toBe(ethersOrNull(s));
      if (ours) valid++;
    }
    expect(valid).toBeGreaterThan(200);
  });

  it('agrees on what is not an address', () => {
    const inputs: unknown[] = ['', '0x', '0x' + 'a'.repeat(39), '0x' + 'a'.repeat(41), 'xe00' + 'a'.repeat(30), 'XE1', ' 0x' + 'a'.repeat(40), 'g'.repeat(40), 12, null, undefined, true, {}, ['0x' + 'a'.repeat(40)]];
    for (const s of inputs) expect(sdkGetAddress(s), String(s)).toBe(ethersOrNull(s));
  });
});
