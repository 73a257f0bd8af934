// ethers' getAddress (v6, same strings as the v5 the v1 SDK ran), for the one place that must
// read an address exactly as the SDK did: order params (src/domain/order-params.ts). It accepts
// 0x + 40 hex, 40 hex without 0x, mixed case only with a valid EIP-55 checksum, and ICAP
// ("XE" + 2 check digits + 30-31 base-36 digits). Mirrors ethers/lib.esm/address/address.js line
// for line (test/domain/sdk-address.test.ts compares the two on generated inputs), so the start of
// the service does not need to load ethers for it.
import { checksumAddress } from './crypto-backend.js';

const HEX_RE = /^(0x)?[0-9a-fA-F]{40}$/;
const MIXED_CASE_RE = /([A-F].*[a-f])|([a-f].*[A-F])/;
const ICAP_RE = /^XE[0-9]{2}[0-9A-Za-z]{30,31}$/;

/** The EIP-55 address ethers' getAddress returns for input, or null where it throws. */
export function sdkGetAddress(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  if (HEX_RE.test(input)) {
    const address = input.startsWith('0x') ? input : `0x${input}`;
    const result = checksumAddress(address.toLowerCase());
    return MIXED_CASE_RE.test(address) && result !== address ? null : result;
  }
  if (ICAP_RE.test(input)) {
    if (input.substring(2, 4) !== ibanChecksum(input)) return null;
    // ethers pads to 40 digits but does not cut: 31 base-36 digits can exceed 160 bits, and then
    // only the first 40 hex digits are checksummed, and the rest is kept as it is
    const hex = fromBase36(input.substring(4)).toString(16).padStart(40, '0');
    return checksumAddress(`0x${hex.slice(0, 40)}`) + hex.slice(40);
  }
  return null;
}

const ibanLookup: Record<string, string> = {};
for (let i = 0; i < 10; i++) ibanLookup[String(i)] = String(i);
for (let i = 0; i < 26; i++) ibanLookup[String.fromCharCode(65 + i)] = String(10 + i);

function ibanChecksum(address: string): string {
  const upper = address.toUpperCase();
  const moved = upper.substring(4) + upper.substring(0, 2) + '00';
  let expanded = moved
    .split('')
    .map((c) => ibanLookup[c])
    .join('');
  while (expanded.length >= 15) {
    const block = expanded.substring(0, 15);
    expanded = (parseInt(block, 10) % 97) + expanded.substring(block.length);
  }
  return String(98 - (parseInt(expanded, 10) % 97)).padStart(2, '0');
}

function fromBase36(value: string): bigint {
  let result = 0n;
  for (const c of value.toLowerCase()) result = result * 36n + BigInt(parseInt(c, 36));
  return result;
}
