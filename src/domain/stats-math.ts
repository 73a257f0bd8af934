// Statistics maths (spec 2.7). Money is exact wei as bigint; no floating point touches it.
// Rounding rule, everywhere: round half away from zero at the last shown digit
// (averages to whole wei, percentages to two decimals).

/** Rolling windows: 1m/3m/6m/1y are fixed lengths of 30/90/180/365 days, not calendar months. */
export const STATS_WINDOWS = [
  { label: '24h', seconds: 86_400 },
  { label: '7d', seconds: 7 * 86_400 },
  { label: '1m', seconds: 30 * 86_400 },
  { label: '3m', seconds: 90 * 86_400 },
  { label: '6m', seconds: 180 * 86_400 },
  { label: '1y', seconds: 365 * 86_400 },
] as const;

export type WindowLabel = (typeof STATS_WINDOWS)[number]['label'];

export const FLOOR_CHANGE_WINDOWS = [
  { label: '24h', seconds: 86_400 },
  { label: '7d', seconds: 7 * 86_400 },
  { label: '30d', seconds: 30 * 86_400 },
] as const;

/** numerator / denominator rounded half away from zero (denominator > 0). */
export function divRound(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const neg = numerator < 0n;
  const n = neg ? -numerator : numerator;
  const q = (n * 2n + denominator) / (denominator * 2n);
  return neg ? -q : q;
}

/** Average sale price in whole wei; "0" when there were no sales. */
export function averageWei(volume: bigint, count: bigint): string {
  return count === 0n ? '0' : divRound(volume, count).toString();
}

/** 12345n (hundredths) -> "123.45"; -5n -> "-0.05". */
function formatHundredths(h: bigint): string {
  const neg = h < 0n;
  const a = neg ? -h : h;
  const s = `${a / 100n}.${(a % 100n).toString().padStart(2, '0')}`;
  return neg ? `-${s}` : s;
}

/**
 * Relative change from `previous` to `current` in percent, two decimals ("12.50", "-100.00").
 * With no previous value (0) there is no baseline to compare with: the change is "0.00" when
 * current is also 0 and null otherwise, so a client never sees NaN or Infinity.
 */
export function percentChange(current: bigint, previous: bigint): string | null {
  if (previous === 0n) return current === 0n ? '0.00' : null;
  return formatHundredths(divRound((current - previous) * 10_000n, previous));
}
