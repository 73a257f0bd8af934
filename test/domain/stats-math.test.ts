// Statistics maths (spec 2.7): the one rounding rule (half away from zero) for averages and
// percentages, exact at uint256 sizes, and a change that is never NaN or Infinity.
import { describe, expect, it } from 'vitest';
import { averageWei, divRound, percentChange, STATS_WINDOWS } from '../../src/domain/stats-math.js';

const M = (1n << 256n) - 1n;

describe('divRound', () => {
  it('rounds half away from zero, both signs', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(-5n, 2n)).toBe(-3n);
    expect(divRound(7n, 2n)).toBe(4n);
    expect(divRound(4n, 3n)).toBe(1n);
    expect(divRound(5n, 3n)).toBe(2n);
    expect(divRound(-4n, 3n)).toBe(-1n);
    expect(divRound(-5n, 3n)).toBe(-2n);
    expect(divRound(0n, 7n)).toBe(0n);
    expect(divRound(1n, 3n)).toBe(0n);
    expect(divRound(-1n, 2n)).toBe(-1n);
  });

  it('is exact beyond 2^256 and refuses a denominator that is not positive', () => {
    expect(divRound(3n * M, 3n)).toBe(M);
    expect(divRound(3n * M - 1n, 3n)).toBe(M);
    expect(divRound(3n * M + 1n, 2n)).toBe((3n * M + 1n) / 2n);
    expect(() => divRound(1n, 0n)).toThrow(RangeError);
    expect(() => divRound(1n, -1n)).toThrow(RangeError);
  });
});

describe('averageWei', () => {
  it('is "0" without sales and rounds to whole wei', () => {
    expect(averageWei(0n, 0n)).toBe('0');
    expect(averageWei(3n, 2n)).toBe('2');
    expect(averageWei(5800n, 9n)).toBe('644');
    expect(averageWei(33800n, 12n)).toBe('2817');
    expect(averageWei(2n * M, 2n)).toBe(M.toString());
  });
});

describe('percentChange', () => {
  it('gives two decimals, rounding half away from zero', () => {
    expect(percentChange(1900n, 200n)).toBe('850.00');
    expect(percentChange(100n, 300n)).toBe('-66.67');
    expect(percentChange(200n, 300n)).toBe('-33.33');
    expect(percentChange(20001n, 20000n)).toBe('0.01'); // 0.005 % rounds up
    expect(percentChange(19999n, 20000n)).toBe('-0.01'); // -0.005 % rounds away from zero
    expect(percentChange(1n, 8n)).toBe('-87.50');
    expect(percentChange(0n, 5n)).toBe('-100.00');
    expect(percentChange(5n, 5n)).toBe('0.00');
    expect(percentChange(1n, 3n)).toBe('-66.67');
    expect(percentChange(2n, 300n)).toBe('-99.33');
  });

  it('is "0.00" for two empty windows and null without a baseline, never NaN or Infinity', () => {
    expect(percentChange(0n, 0n)).toBe('0.00');
    expect(percentChange(1n, 0n)).toBeNull();
    expect(percentChange(M, 0n)).toBeNull();
  });

  it('stays exact for uint256-sized volumes', () => {
    expect(percentChange(2n * M, M)).toBe('100.00');
    expect(percentChange(3n * M, 2n * M)).toBe('50.00');
    expect(percentChange(1n, M)).toBe('-100.00');
    expect(percentChange(M * 1000n, 1n)).toBe(`${(M * 1000n - 1n) * 100n}.00`);
  });
});

describe('windows', () => {
  it('are fixed lengths: 1m/3m/6m/1y = 30/90/180/365 days', () => {
    expect(STATS_WINDOWS.map((w) => [w.label, w.seconds / 86_400])).toEqual([
      ['24h', 1],
      ['7d', 7],
      ['1m', 30],
      ['3m', 90],
      ['6m', 180],
      ['1y', 365],
    ]);
  });
});
