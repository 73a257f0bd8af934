// uint256 values travel as decimal strings (spec 2.2) and are handled as bigint: never a float.
export const UINT256_MAX = (1n << 256n) - 1n;

const DECIMAL_RE = /^(0|[1-9]\d*)$/;

/** Parses a canonical decimal string (no sign, no leading zeros, no exponent) within 0..2^256-1. */
export function parseUint256(input: unknown): bigint | null {
  let s: string;
  if (typeof input === 'string') s = input.trim();
  else if (typeof input === 'number' && Number.isSafeInteger(input) && input >= 0) s = String(input);
  else if (typeof input === 'bigint') s = input.toString();
  else return null;
  if (!DECIMAL_RE.test(s) || s.length > 78) return null;
  const v = BigInt(s);
  return v <= UINT256_MAX ? v : null;
}

/** Prisma Decimal / string / bigint to the canonical decimal string (Decimal#toString may print exponents). */
export function toUintString(v: { toFixed(): string } | bigint | string | number): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return BigInt(v).toString();
  return v.toFixed();
}

/**
 * A wei amount as ETH (18 decimals), exact, for people to read: "1.5", "0.000000000000000001",
 * "2". No rounding and no exponent; trailing zeros dropped. The wei string stays the value to
 * compute with (WETH, the only currency, has 18 decimals too).
 */
export function weiToEther(wei: { toFixed(): string } | bigint | string | number): string {
  const v = BigInt(toUintString(wei));
  const whole = v / 10n ** 18n;
  const fraction = (v % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}
