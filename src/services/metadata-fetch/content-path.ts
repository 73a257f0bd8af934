// The path after a content address (ipfs://CID/path, ar://ID/path), as written in the URI:
// percent-encoded. Decoded into names for the UnixFS walk and encoded again, canonically, for the
// gateway URL, so no dot segment or stray character can make a gateway serve other content.

/** '' or '/a/b%20c' -> ['a', 'b c']; null when a segment is unusable. */
export function contentPathSegments(path: string): string[] | null {
  if (path !== '' && !path.startsWith('/')) return null;
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      return null;
    }
    // a '/' inside a name would become a path separator; the exporter reads '\' as an escape
    if (name === '.' || name === '..' || /[/\\\0]/.test(name)) return null;
    segments.push(name);
  }
  return segments;
}

/** ['a', 'b c'] -> '/a/b%20c' */
export const encodePath = (segments: string[]): string => segments.map((s) => `/${encodeURIComponent(s)}`).join('');

/** A gateway's base URL without a trailing slash. */
export const gatewayBase = (gateway: string): string => gateway.replace(/\/+$/, '');
