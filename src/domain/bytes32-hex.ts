// A 32-byte value written as 0x and 64 hex digits: order hashes, transaction hashes, and the hash
// inside node ids and cursors. Inputs are taken in either letter case; what the API hands out is
// lowercase, so a key or cursor it issued is recognised only in that form.
export const BYTES32_HEX = /^0x[0-9a-fA-F]{64}$/;
export const LOWERCASE_BYTES32_HEX = /^0x[0-9a-f]{64}$/;

/** Whether `value` is 0x and 64 hex digits (only lowercase ones with `lowercase`). */
export function isBytes32Hex(value: string, opts: { lowercase?: boolean } = {}): boolean {
  return (opts.lowercase ? LOWERCASE_BYTES32_HEX : BYTES32_HEX).test(value);
}
