// PostgreSQL refuses the NUL character (U+0000) in text, so a string holding one would reach the
// database and fail there as a server fault. Every string input is checked for it at the edge
// instead: the first place holding one is named, and the request is refused as the client's.

/** The path of the first string under `value` that holds U+0000 (`name`, `name.a[2]`), or null. */
export function findNulCharacter(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findNulCharacter(v, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return path ? `${path}.${k.replaceAll('\u0000', '\\u0000')}` : k.replaceAll('\u0000', '\\u0000');
      const found = findNulCharacter(v, path ? `${path}.${k}` : k);
      if (found) return found;
    }
  }
  return null;
}

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
