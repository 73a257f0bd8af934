// Maker order params exactly as the v1 SDK signs them (looksrare-v1-facts.md, "Signing and
// hashing"). @looksrare/sdk@0.12.1 encodeOrderParams, per element, in this order:
//   ethers5.utils.isAddress(p) -> 'address'; typeof p === 'boolean' -> 'bool';
//   ethers5.BigNumber.from(p) succeeds -> 'uint256'; else it throws.
// then defaultAbiCoder.encode(types, params), which throws for a uint256 outside 0..2^256-1.
// A client signed those bytes, so any other reading of the same JSON breaks its signature.
import { sdkGetAddress } from './sdk-address.js';
import { UINT256_MAX } from './uint256.js';

export type ParamValue = { type: 'address'; value: string } | { type: 'bool'; value: boolean } | { type: 'uint256'; value: bigint };

export interface ParamRefusal {
  index: number;
  message: string;
}

/** `index`/`message` name the first refusal (kept for older callers); `refusals` lists them all. */
export type ParamsParse = { ok: true; values: ParamValue[] } | { ok: false; index: number; message: string; refusals: ParamRefusal[] };

/**
 * The typed value the v1 SDK would sign for one JSON element, or null where the SDK (or its ABI
 * encoder) throws. ethers 6 getAddress accepts the same strings as ethers 5 (0x + 40 hex in one
 * case or a valid EIP-55 checksum, 40 hex without 0x, ICAP "XE.."), so it stands in for it.
 */
export function inferParam(el: unknown): ParamValue | null {
  const address = sdkGetAddress(el);
  if (address !== null) return { type: 'address', value: address };
  if (typeof el === 'boolean') return { type: 'bool', value: el };
  const n = ethers5BigNumberFrom(el);
  // negative or > 2^256-1: typed uint256 by the SDK, then refused by the encoder
  if (n === null || n < 0n || n > UINT256_MAX) return null;
  return { type: 'uint256', value: n };
}

/** Every element is inferred; all refusals are reported, not only the first. */
export function parseParams(input: unknown): ParamsParse {
  if (!Array.isArray(input)) return { ok: false, index: -1, message: 'params must be an array', refusals: [{ index: -1, message: 'params must be an array' }] };
  const values: ParamValue[] = [];
  const refusals: ParamRefusal[] = [];
  input.forEach((el, index) => {
    const v = inferParam(el);
    if (v) values.push(v);
    else refusals.push({ index, message: `params[${index}] is not an address, a boolean or an integer in 0..2^256-1 that the v1 SDK can encode` });
  });
  const first = refusals[0];
  return first ? { ok: false, index: first.index, message: first.message, refusals } : { ok: true, values };
}

const HEX_BIGNUMBER_RE = /^-?0x[0-9a-f]+$/i;
const DEC_BIGNUMBER_RE = /^-?[0-9]+$/;
const IS_HEX_STRING_RE = /^0x[0-9A-Fa-f]*$/;

/**
 * ethers 5 BigNumber.from(value) for the values JSON can carry (@ethersproject/bignumber 5.8):
 * hex or decimal strings with an optional "-" ("-0" is 0), numbers below 2^53-1 in magnitude with
 * no fraction, byte arrays (and {length, 0.., n} objects) read big-endian, and legacy JSON forms
 * {_hex} / {type: "BigNumber", hex}. Null where ethers 5 throws.
 */
function ethers5BigNumberFrom(value: unknown): bigint | null {
  if (typeof value === 'string') {
    if (HEX_BIGNUMBER_RE.test(value)) {
      const negative = value.startsWith('-');
      const digits = value.slice(negative ? 3 : 2);
      // "0X1F" matches the case-insensitive regex, but ethers 5 keeps the "X" and bn.js throws
      // on it when the value is used ("Invalid character"): refused.
      if (value.slice(negative ? 1 : 0).startsWith('0X')) return null;
      const n = BigInt(`0x${digits}`);
      return negative ? -n : n;
    }
    if (DEC_BIGNUMBER_RE.test(value)) return BigInt(value);
    return null;
  }
  if (typeof value === 'number') {
    if (value % 1) return null; // "underflow": a fraction
    if (value >= Number.MAX_SAFE_INTEGER || value <= -Number.MAX_SAFE_INTEGER) return null; // "overflow"
    return ethers5BigNumberFrom(String(value)); // NaN -> "NaN" -> refused; -0 -> "0"
  }
  if (typeof value === 'bigint') return value;
  if (isBytes(value)) {
    if (value.length === 0) return null; // hexlify -> "0x", which BigNumber.from refuses
    let hex = '0x';
    for (let i = 0; i < value.length; i++) hex += (value[i]! & 0xff).toString(16).padStart(2, '0');
    return BigInt(hex);
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    // A truthy toHexString is called as a function: from JSON it is never one, so ethers throws.
    if (o.toHexString) return null;
    let hex = o._hex;
    if (hex == null && o.type === 'BigNumber') hex = o.hex;
    if (typeof hex === 'string' && (IS_HEX_STRING_RE.test(hex) || (hex[0] === '-' && IS_HEX_STRING_RE.test(hex.slice(1))))) {
      return ethers5BigNumberFrom(hex);
    }
  }
  return null;
}

const isInteger = (v: unknown): v is number => typeof v === 'number' && v === v && v % 1 === 0;

/** @ethersproject/bytes isBytes: anything with an integer length whose items are integers 0..255. */
function isBytes(value: unknown): value is ArrayLike<number> {
  if (value == null || typeof value === 'string' || typeof value !== 'object') return false;
  const { length } = value as { length?: unknown };
  if (!isInteger(length) || length < 0) return false;
  for (let i = 0; i < length; i++) {
    const b = (value as Record<number, unknown>)[i];
    if (!isInteger(b) || b < 0 || b >= 256) return false;
  }
  return true;
}

/**
 * ABI encoding of the params as signed: '0x' when empty. Every type is static (one 32-byte word
 * each), so abi.encode is their words in order, as ethers' AbiCoder writes them (compared in
 * test/domain/order-params.test.ts); it throws where that encoder throws.
 */
export function encodeParams(values: ParamValue[]): string {
  if (values.length === 0) return '0x';
  let out = '0x';
  for (const v of values) {
    if (v.type === 'bool') out += v.value ? WORD_ONE : WORD_ZERO;
    else if (v.type === 'address') {
      // ethers' AddressCoder runs getAddress again and writes the result as a number: an ICAP
      // reading above 160 bits (see sdk-address.ts) is written whole, as it does
      const address = sdkGetAddress(v.value);
      if (address === null) throw new TypeError(`invalid address: ${v.value}`);
      out += address.slice(2).toLowerCase().padStart(64, '0');
    } else {
      if (v.value < 0n || v.value > UINT256_MAX) throw new RangeError(`value out-of-bounds: ${v.value}`);
      out += v.value.toString(16).padStart(64, '0');
    }
  }
  return out;
}

const WORD_ZERO = '0'.repeat(64);
const WORD_ONE = '0'.repeat(63) + '1';

/** The response form of encoded params (spec 2.2): "" for none. */
export function paramsForResponse(encoded: string): string {
  return encoded === '0x' ? '' : encoded;
}

/**
 * The stored JSON form of params (Order.paramsList): addresses checksummed, bigints as decimal
 * strings. Display only: re-inferring it is not always the same bytes (a 40-digit decimal
 * string would be read as an address), so the signed truth is the encoded `params` column.
 */
export function paramsToJson(values: ParamValue[]): (string | boolean)[] {
  return values.map((v) => (v.type === 'uint256' ? v.value.toString() : v.value));
}
