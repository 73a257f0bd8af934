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
  // checksumAddress gives ethers' getAddress answer with the native keccak when it loaded: the
  // first pure-JS hashes run unoptimised, and config checksums a dozen addresses before the first log line.
  return checksumAddress(trimmed.toLowerCase());
}

export function isAddress(input: unknown): boolean {
  return normalizeAddress(input) !== null;
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
