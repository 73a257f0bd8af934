// Translates a validated order filter and sort into Prisma where/orderBy, including the
// read-time EXPIRED rule and keyset conditions for cursor paging.
import type { Prisma } from '../generated/prisma/client.js';
import { LIVE_STATUSES, type OrderStatusName } from '../domain/order-status.js';
import type { OrderFilter, OrderSort } from '../domain/order-query.js';

type Where = Prisma.OrderWhereInput;

/** Orders whose effective status (spec 3, EXPIRED derived from endTime) is `status`. */
export function whereEffectiveStatus(status: OrderStatusName, now: bigint): Where {
  if (status === 'EXPIRED') {
    return { OR: [{ status: 'EXPIRED' }, { status: { in: [...LIVE_STATUSES] }, endTime: { lt: now } }] };
  }
  if (LIVE_STATUSES.includes(status)) return { status, endTime: { gte: now } };
  return { status };
}

export function whereFilter(f: OrderFilter, now: bigint): Where {
  const and: Where[] = [];
  if (f.hash) and.push({ hash: f.hash });
  if (f.isOrderAsk !== undefined) and.push({ isOrderAsk: f.isOrderAsk });
  if (f.collection) and.push({ collectionAddress: f.collection });
  if (f.tokenId !== undefined) and.push({ tokenId: f.tokenId.toString() });
  if (f.signer) and.push({ signer: f.signer });
  if (f.strategy) and.push({ strategy: f.strategy });
  if (f.currency) and.push({ currencyAddress: f.currency });
  if (f.nonce !== undefined) and.push({ nonce: f.nonce.toString() });
  if (f.priceMin !== undefined) and.push({ price: { gte: f.priceMin.toString() } });
  if (f.priceMax !== undefined) and.push({ price: { lte: f.priceMax.toString() } });
  if (f.startTime !== undefined) and.push({ startTime: { gte: f.startTime } });
  if (f.endTime !== undefined) and.push({ endTime: { lte: f.endTime } });
  if (f.statuses?.length) {
    const parts = f.statuses.map((s) => whereEffectiveStatus(s, now));
    and.push(parts.length === 1 ? parts[0]! : { OR: parts });
  }
  return and.length ? { AND: and } : {};
}

/** Every sort ends on `id` so ties (same price, same endTime) have one stable order. */
export function orderByFor(sort: OrderSort): Prisma.OrderOrderByWithRelationInput[] {
  switch (sort) {
    case 'NEWEST':
      return [{ id: 'desc' }];
    case 'EXPIRING_SOON':
      return [{ endTime: 'asc' }, { id: 'asc' }];
    case 'PRICE_ASC':
      return [{ price: 'asc' }, { id: 'asc' }];
    case 'PRICE_DESC':
      return [{ price: 'desc' }, { id: 'desc' }];
  }
}

export interface CursorRow {
  id: bigint;
  price: { toFixed(): string };
  endTime: bigint;
}

/** Rows strictly after the cursor row in the given sort (keyset paging: no skipped or repeated rows). */
export function whereAfter(sort: OrderSort, c: CursorRow): Where {
  const price = c.price.toFixed();
  switch (sort) {
    case 'NEWEST':
      return { id: { lt: c.id } };
    case 'EXPIRING_SOON':
      return { OR: [{ endTime: { gt: c.endTime } }, { endTime: c.endTime, id: { gt: c.id } }] };
    case 'PRICE_ASC':
      return { OR: [{ price: { gt: price } }, { price, id: { gt: c.id } }] };
    case 'PRICE_DESC':
      return { OR: [{ price: { lt: price } }, { price, id: { lt: c.id } }] };
  }
}
