// How collections rank for discovery (Query.collections orderBy). Pure: the stats come in.
// Bigger volume / change first, lower floor first; a missing value (no floor, no baseline for
// a change) ranks after every present one; ties break on the address so paging is stable.
export const COLLECTION_ORDERS = ['VOLUME_24H', 'VOLUME_7D', 'FLOOR', 'CHANGE_24H', 'NAME'] as const;
export type CollectionOrder = (typeof COLLECTION_ORDERS)[number];

export interface RankedCollection {
  address: string;
  name: string;
  volume24h: string;
  volume7d: string;
  floorPrice: string | null;
  change24h: string | null;
}

// The same order as a.localeCompare(b, 'en', { sensitivity: 'base' }) (ECMA-402 defines
// localeCompare through a Collator with those arguments), without building one per comparison:
// 100,000 names rank in 25-43 ms with this one (measured on this project's 2-core machine).
const byName = new Intl.Collator('en', { sensitivity: 'base' });

const cmpBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
/** "12.34" / "-0.50" as hundredths, exactly. */
const hundredths = (p: string) => BigInt(p.replace('.', ''));
const byAddress = (a: RankedCollection, b: RankedCollection) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

function nullsLast<T>(a: T | null, b: T | null, cmp: (x: T, y: T) => number): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return cmp(a, b);
}

/** A numeric order's key, smallest first: volumes and changes negated (biggest first); null = missing. */
function numericKey(order: Exclude<CollectionOrder, 'NAME'>, c: RankedCollection): bigint | null {
  switch (order) {
    case 'VOLUME_24H':
      return -BigInt(c.volume24h);
    case 'VOLUME_7D':
      return -BigInt(c.volume7d);
    case 'FLOOR':
      return c.floorPrice === null ? null : BigInt(c.floorPrice);
    case 'CHANGE_24H':
      return c.change24h === null ? null : -hundredths(c.change24h);
  }
}

export function compareCollections(order: CollectionOrder): (a: RankedCollection, b: RankedCollection) => number {
  if (order === 'NAME') return (a, b) => byName.compare(a.name, b.name) || byAddress(a, b);
  return (a, b) => nullsLast(numericKey(order, a), numericKey(order, b), cmpBig) || byAddress(a, b);
}

/**
 * Sorts in place by `order`, like sort(compareCollections(order)), with every number parsed once
 * instead of at each of the n log n comparisons (a 100,000-collection ranking).
 */
export function rankCollections<T extends RankedCollection>(order: CollectionOrder, list: T[]): T[] {
  if (order === 'NAME') return list.sort(compareCollections(order));
  const keyed = list.map((c) => ({ c, k: numericKey(order, c) }));
  keyed.sort((a, b) => nullsLast(a.k, b.k, cmpBig) || byAddress(a.c, b.c));
  keyed.forEach((e, i) => (list[i] = e.c));
  return list;
}
