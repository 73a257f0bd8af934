// The stream filter applied in memory, to events the shared tail reader has already read
// (src/services/market-event-tail.ts): the same rule as streamFilterSql in market-event-log.ts,
// which a catching-up stream and the webhook sender run in SQL. The two are held equal by
// test/services/market-event-filter.test.ts, which runs both over the same events and filters.
// The owner filter depends on token balances, not on the event, so its answer comes from the
// database (eventsHeldByOwners) and is passed in.
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import type { LogEvent } from './market-event-log.js';

/** Owners whose filter selects the event (from eventsHeldByOwners): event id -> owners. */
export type HeldByOwners = ReadonlyMap<string, ReadonlySet<string>>;

/** Does `filter` select `e`? `e.retractedType` must be read (readMarketEventsAfter's `retractedTypes`). */
export function matchesStreamFilter(filter: MarketEventStreamFilter, e: LogEvent, held: HeldByOwners): boolean {
  if (filter.collection && e.collectionAddress !== filter.collection) return false;
  if (filter.tokenId !== undefined && (e.tokenId === null || BigInt(e.tokenId) !== BigInt(filter.tokenId))) return false;
  if (filter.account && e.fromAddress !== filter.account && e.toAddress !== filter.account) return false;
  if (filter.types) {
    const types: readonly string[] = filter.types;
    const selected =
      types.includes(e.type) || (!types.includes('RETRACTED') && e.type === 'RETRACTED' && e.retractedType != null && types.includes(e.retractedType));
    if (!selected) return false;
  }
  if (filter.minPrice !== undefined && (e.price === null || BigInt(e.price) < BigInt(filter.minPrice))) return false;
  if (filter.maxPrice !== undefined && (e.price === null || BigInt(e.price) > BigInt(filter.maxPrice))) return false;
  if (filter.owner && !held.get(e.id)?.has(filter.owner)) return false;
  return true;
}
