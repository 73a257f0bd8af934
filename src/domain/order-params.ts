// Maker order params as the v1 SDK signs them: each element's Solidity type is inferred
// (an address string -> address, a JS boolean -> bool, an integer -> uint256) and the list is
// ABI-encoded; [] encodes to 0x. The response shows the encoding as a string, "" when empty.
import { AbiCoder } from 'ethers';
import { normalizeAddress } from './address.js';
import { parseUint256 } from './uint256.js';

export type ParamValue = { type: 'address'; value: string } | { type: 'bool'; value: boolean } | { type: 'uint256'; value: bigint };

export type ParamsParse = { ok: true; values: ParamValue[] } | { ok: false; index: number; message: string };

export function parseParams(input: unknown): ParamsParse {
  if (!Array.isArray(input)) return { ok: false, index: -1, message: 'params must be an array' };
  const values: ParamValue[] = [];
  for (const [index, el] of input.entries()) {
    if (typeof el === 'boolean') {
      values.push({ type: 'bool', value: el });
      continue;
    }
    const address = typeof el === 'string' && el.trim().length === 42 ? normalizeAddress(el) : null;
    if (address) {
      values.push({ type: 'address', value: address });
      continue;
    }
    const n = parseUint256(el);
    if (n !== null) {
      values.push({ type: 'uint256', value: n });
      continue;
    }
    return { ok: false, index, message: `params[${index}] is not an address, a boolean or a uint256` };
  }
  return { ok: true, values };
}

const abi = AbiCoder.defaultAbiCoder();

/** ABI encoding of the params as signed: '0x' when empty. */
export function encodeParams(values: ParamValue[]): string {
  if (values.length === 0) return '0x';
  return abi.encode(
    values.map((v) => v.type),
    values.map((v) => v.value),
  );
}

/** The response form of encoded params (spec 2.2): "" for none. */
export function paramsForResponse(encoded: string): string {
  return encoded === '0x' ? '' : encoded;
}

/** The stored JSON form of params (bigints as decimal strings). */
export function paramsToJson(values: ParamValue[]): (string | boolean)[] {
  return values.map((v) => (v.type === 'uint256' ? v.value.toString() : v.value));
}
