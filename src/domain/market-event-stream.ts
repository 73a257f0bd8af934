// What a subscriber of the market event stream asks for (docs/activity.md, "Streaming and
// resuming"): where to resume and which events. Parsed once here for the GraphQL subscription
// and for any other reader of the log (webhooks), so they refuse and accept the same inputs.
import { MARKET_EVENT_TYPES, type MarketEventType } from './activity-query.js';
import { badRequest, ServiceError, type FieldProblem } from './errors.js';

/** Which events a stream delivers; every field narrows. Addresses arrive normalised. */
export interface MarketEventStreamFilter {
  collection?: string;
  /** decimal; only with a collection */
  tokenId?: string;
  /**
   * Any of these (default: all, RETRACTED included). A retraction is delivered with the event it
   * retracts: `types: [SALE]` also brings the RETRACTED row of a sale a reorg undid.
   */
  types?: readonly MarketEventType[];
  /** the sender or the receiver (for an order, its maker) */
  account?: string;
  /** wei, inclusive; events without a price never match a range */
  minPrice?: string;
  maxPrice?: string;
  /** events on orders for tokens this address holds now (a collection offer: any token of the collection) */
  owner?: string;
}

export interface MarketEventStreamArgs {
  collection?: string | null;
  tokenId?: bigint | string | null;
  types?: readonly MarketEventType[] | null;
  account?: string | null;
  minPrice?: bigint | string | null;
  maxPrice?: bigint | string | null;
  owner?: string | null;
}

const EVENT_ID = /^(0|[1-9][0-9]{0,18})$/;

/** An event id as a cursor: a decimal bigint (the log's id column). */
export const isEventId = (s: string): boolean => EVENT_ID.test(s) && BigInt(s) <= 2n ** 63n - 1n;

/** The cursor a subscriber resumes after; INVALID_CURSOR when it is not an event id. */
export function parseStreamCursor(value: string | null | undefined, field: string): string | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (!isEventId(v)) throw new ServiceError('INVALID_CURSOR', `Invalid ${field}: ${JSON.stringify(value)} is not an event id`, [{ field, code: 'INVALID_CURSOR', message: 'not an event id' }]);
  return v;
}

export function parseMarketEventStreamFilter(args: MarketEventStreamArgs | null | undefined): MarketEventStreamFilter {
  const a = args ?? {};
  const problems: FieldProblem[] = [];
  if (a.tokenId != null && !a.collection) problems.push({ field: 'filter.tokenId', code: 'BAD_REQUEST', message: 'a token id needs its collection' });
  if (a.types != null && a.types.length === 0) problems.push({ field: 'filter.types', code: 'BAD_REQUEST', message: 'name at least one type, or leave it out for all' });
  if (a.minPrice != null && a.maxPrice != null && BigInt(a.minPrice) > BigInt(a.maxPrice)) {
    problems.push({ field: 'filter.maxPrice', code: 'BAD_REQUEST', message: 'maxPrice is below minPrice' });
  }
  if (problems.length) throw badRequest(problems);
  const f: MarketEventStreamFilter = {};
  if (a.collection) f.collection = a.collection;
  if (a.tokenId != null) f.tokenId = a.tokenId.toString();
  if (a.types && a.types.length < MARKET_EVENT_TYPES.length) f.types = [...new Set(a.types)];
  if (a.account) f.account = a.account;
  if (a.minPrice != null) f.minPrice = a.minPrice.toString();
  if (a.maxPrice != null) f.maxPrice = a.maxPrice.toString();
  if (a.owner) f.owner = a.owner;
  return f;
}
