// Addresses are accepted in any letter case and stored/returned EIP-55 checksummed, so one
// account has exactly one spelling in the database and in every response.
import { checksumAddress } from './crypto-backend.js';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** The checksummed address, or null when the input is not 0x + 40 hex digits. */
export function normalizeAddress(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const trimmed = input.trim();
  if (!ADDRESS_RE.test(trimmed)) return null;
  // Lower-casing first accepts any case, including mixed case that is not a valid checksum:
  // a read filter or a signer field is protected by other means (the signature), not by EIP-55.
  const lower = trimmed.toLowerCase();
  let checksummed = recent.get(lower);
  if (checksummed === undefined) {
    // EIP-55 with the active keccak (native when it loads; ethers' getAddress hashes in pure JS);
    // remembered too: a read names the same few collections over and over, each GraphQL request
    // coerces its variables more than once, and every submitted order normalises four addresses.
    checksummed = checksumAddress(lower);
    if (recent.size >= RECENT_MAX) recent.clear();
    recent.set(lower, checksummed);
  }
  return checksummed;
}

/** Lower-case address -> checksummed, for the addresses seen lately (cleared when full). */
const recent = new Map<string, string>();
const RECENT_MAX = 4096;

export function isAddress(input: unknown): boolean {
  return normalizeAddress(input) !== null;
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
