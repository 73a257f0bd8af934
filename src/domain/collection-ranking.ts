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

const cmpBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
/** "12.34" / "-0.50" as hundredths, exactly. */
const hundredths = (p: string) => BigInt(p.replace('.', ''));

function nullsLast<T>(a: T | null, b: T | null, cmp: (x: T, y: T) => number): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return cmp(a, b);
}

export function compareCollections(order: CollectionOrder): (a: RankedCollection, b: RankedCollection) => number {
  const primary = (a: RankedCollection, b: RankedCollection): number => {
    switch (order) {
      case 'VOLUME_24H':
        return cmpBig(BigInt(b.volume24h), BigInt(a.volume24h));
      case 'VOLUME_7D':
        return cmpBig(BigInt(b.volume7d), BigInt(a.volume7d));
      case 'FLOOR':
        return nullsLast(a.floorPrice, b.floorPrice, (x, y) => cmpBig(BigInt(x), BigInt(y)));
      case 'CHANGE_24H':
        return nullsLast(a.change24h, b.change24h, (x, y) => cmpBig(hundredths(y), hundredths(x)));
      case 'NAME':
        return a.name.localeCompare(b.name, 'en', { sensitivity: 'base' });
    }
  };
  return (a, b) => primary(a, b) || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);
}
