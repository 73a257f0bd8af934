// The Range header of a GET (RFC 9110 14.2), for one representation of a known size. Only a single
// range in bytes is served as 206; other units, several ranges and malformed values are ignored and
// the whole representation is sent, which the RFC allows a server to do (14.2: "A server MAY
// ignore the Range header field"). Pure.

export type ByteRange = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes\s*=\s*(\d*)\s*-\s*(\d*)$/i;

export function byteRange(header: string | null, size: number): ByteRange {
  if (header === null) return { kind: 'whole' };
  const m = SINGLE_RANGE.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  if (m[1] === '') {
    // a suffix: the last n bytes (14.1.2)
    const n = Number(m[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  // last < first is invalid, so the header is ignored (14.1.1)
  if (m[2] !== '' && Number(m[2]) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1) };
}
