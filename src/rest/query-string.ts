// Query strings as v1 clients sent them: bracket style (status[]=VALID&pagination[first]=50),
// parsed by qs, and nested objects sent as URL-encoded JSON (pagination={"first":10}), which
// the original server accepted too (looksrare-v1-facts.md "Encoding").
import qs from 'qs';

export type Query = Record<string, unknown>;

function decodeJsonValues(value: unknown): unknown {
  if (typeof value === 'string') {
    const t = value.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return JSON.parse(t);
      } catch {
        return value;
      }
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(decodeJsonValues);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeJsonValues(v)]));
  }
  return value;
}

export function parseQueryString(search: string): Query {
  const raw = qs.parse(search.startsWith('?') ? search.slice(1) : search, {
    depth: 2,
    arrayLimit: 50,
    parameterLimit: 100,
    allowPrototypes: false,
  });
  return decodeJsonValues(raw) as Query;
}

/** A nested object parameter (pagination, price), whichever way it was encoded. */
export function objectParam(q: Query, name: string): Record<string, unknown> {
  const v = q[name];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** status[]=A&status[]=B, status=A, status=["A","B"] all give a list. */
export function listParam(q: Query, name: string): unknown {
  const v = q[name] ?? q[`${name}[]`];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object') return Object.values(v);
  return [v];
}
