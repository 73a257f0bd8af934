// Entity-tag comparison for conditional requests (RFC 9110 8.8.3.2, 13.1). Pure.

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/** If-None-Match (13.1.2): `*`, or any listed tag equal to ours by the weak comparison. */
export function noneMatchHolds(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const ours = opaque(etag);
  return header.split(',').some((t) => opaque(t) === ours);
}

/**
 * If-Range (13.1.5): the Range applies only when the validator is our strong tag. A date (we send
 * no Last-Modified) or a weak tag never matches, and the whole representation is sent.
 */
export function ifRangeHolds(header: string | null, etag: string): boolean {
  return header === null || header.trim() === etag;
}
