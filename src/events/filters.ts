// Which live events a subscriber asked for. Addresses arrive normalised (Address scalar).
import type { OrderEvent, SaleEvent } from './event-bus.js';

export interface OrderEventFilter {
  collection?: string | null;
  signer?: string | null;
  hash?: string | null;
  isOrderAsk?: boolean | null;
  kinds?: OrderEvent['kind'][] | null;
}

export function matchesOrderEvent(e: OrderEvent, f: OrderEventFilter | null | undefined): boolean {
  if (!f) return true;
  if (f.collection && e.collection !== f.collection) return false;
  if (f.signer && e.signer !== f.signer) return false;
  if (f.hash && e.hash !== f.hash) return false;
  if (f.isOrderAsk !== undefined && f.isOrderAsk !== null && e.isOrderAsk !== f.isOrderAsk) return false;
  if (f.kinds?.length && !f.kinds.includes(e.kind)) return false;
  return true;
}

export function matchesSale(e: SaleEvent, collection: string | null | undefined): boolean {
  return !collection || e.collection === collection;
}
