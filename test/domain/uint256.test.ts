// uint256 helpers: weiToEther renders wei as ETH exactly (the *Eth GraphQL fields).
import { describe, expect, it } from 'vitest';
import { UINT256_MAX, weiToEther } from '../../src/domain/uint256.js';

describe('weiToEther', () => {
  it.each([
    ['0', '0'],
    ['1', '0.000000000000000001'],
    ['1000000000000000000', '1'],
    ['1500000000000000000', '1.5'],
    ['1250000000000000000000', '1250'],
    ['123456789012345678901', '123.456789012345678901'],
    ['100000000000000000', '0.1'],
  ])('%s wei is %s ETH', (wei, eth) => {
    expect(weiToEther(wei)).toBe(eth);
    expect(weiToEther(BigInt(wei))).toBe(eth);
  });

  it('is exact to the last wei of a full uint256 and takes what Prisma gives (a Decimal: toFixed)', () => {
    const max = weiToEther(UINT256_MAX);
    expect(max.replace('.', '')).toBe(UINT256_MAX.toString());
    expect(weiToEther({ toFixed: () => '2000000000000000000' })).toBe('2');
  });
});
