// What an activity page asks for (docs/activity.md): the event kinds, the filter and the keyset
// page over the event log's ids, newest first. Parsed once here for GraphQL, the read engine and
// the v1 events route, so all three refuse and accept the same inputs.
import { badRequest, ServiceError, type FieldProblem } from './errors.js';
import { checkTraitConditions, normaliseTraitConditions, type TraitCondition } from './token-filter.js';

export const MARKET_EVENT_TYPES = [
  'LIST',
  'OFFER',
  'COLLECTION_OFFER',
  'CANCEL_LIST',
  'CANCEL_OFFER',
  'SALE',
  'TRANSFER',
  'MINT',
  'STATUS_CHANGE',
  'RETRACTED',
  'FLOOR_CHANGE',
  'BEST_BID_CHANGE',
  'METADATA_UPDATE',
  'TRAIT_FLOOR_CHANGE',
] as const;
export type MarketEventType = (typeof MARKET_EVENT_TYPES)[number];

export const MARKET_EVENT_CAUSES = [
  'EXECUTED',
  'NONCE_USED',
  'NONCE_CANCELLED',
  'MIN_NONCE_RAISED',
  'APPROVAL_REVOKED',
  'APPROVAL_RESTORED',
  'ERC20_BALANCE_LOW',
  'ERC20_BALANCE_RESTORED',
  'ERC20_ALLOWANCE_REVOKED',
  'ERC20_ALLOWANCE_RESTORED',
  'OWNER_CHANGED',
  'OWNER_RESTORED',
  'EXPIRED',
] as const;

/**
 * The moves of a collection's floor and best bid and of a trait value's floor (what the book's
 * events did to its summary, not something that happened to an order or a token) and the changes
 * of a token's metadata document.
 * Streams and webhooks carry them; activity pages list them only when asked for by type.
 */
export const MARKET_CHANGE_TYPES: readonly MarketEventType[] = ['FLOOR_CHANGE', 'BEST_BID_CHANGE', 'METADATA_UPDATE', 'TRAIT_FLOOR_CHANGE'];

/** Without a type filter: everything that happened and still stands (RETRACTED rows and market changes only when asked for). */
export const DEFAULT_EVENT_TYPES: readonly MarketEventType[] = MARKET_EVENT_TYPES.filter((t) => t !== 'RETRACTED' && !MARKET_CHANGE_TYPES.includes(t));

/**
 * The types v1 clients of GET /api/v1/events know (looksrare-v1-facts.md "Events and tokens
 * routes"). A collection offer is one of their OFFERs; status changes and retractions are not
 * events they can read.
 */
export const V1_EVENT_TYPES = ['LIST', 'OFFER', 'SALE', 'TRANSFER', 'MINT', 'CANCEL_LIST', 'CANCEL_OFFER'] as const;
export type V1EventType = (typeof V1_EVENT_TYPES)[number];

/** The log's types behind a v1 type, or behind every v1 type. */
export function logTypesOfV1(type?: V1EventType): MarketEventType[] {
  if (type === undefined) return V1_EVENT_TYPES.flatMap((t) => logTypesOfV1(t));
  return type === 'OFFER' ? ['OFFER', 'COLLECTION_OFFER'] : [type];
}

/** How v1 names a log type (only the types logTypesOfV1 returns reach it). */
export const v1TypeOf = (type: MarketEventType): string => (type === 'COLLECTION_OFFER' ? 'OFFER' : type);

export const MAX_ACTIVITY_PAGE = 150;
export const DEFAULT_ACTIVITY_PAGE = 20;

export interface ActivityFilter {
  collection?: string;
  /** decimal; only with a collection */
  tokenId?: string;
  /** the sender or the receiver (for an order, its maker) */
  account?: string;
  from?: string;
  to?: string;
  types: readonly MarketEventType[];
  /** unix seconds, inclusive */
  since?: bigint;
  /** unix seconds, exclusive */
  until?: bigint;
  /** events of a token carrying these traits (OR within a trait type, AND across): never a collection-wide event */
  attributes?: TraitCondition[];
}

export interface ActivityQuery {
  filter: ActivityFilter;
  first: number;
  /** event ids (decimal): the page holds ids below `after` and above `before` */
  after?: string;
  before?: string;
  /** `last` was given: the page is the oldest `first` rows of the range, still listed newest first */
  fromEnd: boolean;
}

export interface ActivityArgs {
  collection?: string | null;
  tokenId?: bigint | string | null;
  account?: string | null;
  from?: string | null;
  to?: string | null;
  types?: readonly MarketEventType[] | null;
  since?: bigint | number | null;
  until?: bigint | number | null;
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  attributes?: readonly TraitCondition[] | null;
}

const EVENT_ID = /^(0|[1-9][0-9]{0,18})$/;
const isEventId = (s: string) => EVENT_ID.test(s) && BigInt(s) <= 2n ** 63n - 1n;

/**
 * Checks what GraphQL's scalars and the REST schema have not: sizes, cursors, combinations.
 * `collectionPinned`: the page is a collection's (Collection.activity), whose own predicate names
 * the collection a token id needs.
 */
export function parseActivityArgs(args: ActivityArgs, collectionPinned = false): { ok: true; value: ActivityQuery } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const size = (field: string, n: number | null | undefined) => {
    if (n == null) return;
    if (!Number.isInteger(n) || n < 1 || n > MAX_ACTIVITY_PAGE) problems.push({ field, code: 'INVALID_PAGE_SIZE', message: `must be a whole number from 1 to ${MAX_ACTIVITY_PAGE}` });
  };
  size('first', args.first);
  size('last', args.last);
  if (args.first != null && args.last != null) problems.push({ field: 'last', code: 'BAD_REQUEST', message: 'give first or last, not both' });
  for (const field of ['after', 'before'] as const) {
    const v = args[field];
    if (v != null && !isEventId(v)) problems.push({ field, code: 'INVALID_CURSOR', message: `${JSON.stringify(v)} is not an event id` });
  }
  if (args.tokenId != null && !args.collection && !collectionPinned) problems.push({ field: 'tokenId', code: 'BAD_REQUEST', message: 'a token id needs its collection' });
  if (args.types != null && args.types.length === 0) problems.push({ field: 'types', code: 'BAD_REQUEST', message: 'name at least one type, or leave it out for all' });
  if (args.attributes != null) {
    // a trait names a value within one collection, and the page must not probe the whole log
    if (!args.collection && !collectionPinned) problems.push({ field: 'attributes', code: 'BAD_REQUEST', message: 'a trait filter needs its collection' });
    checkTraitConditions(args.attributes, 'attributes', problems);
  }
  if (problems.length) return { ok: false, problems };
  const filter: ActivityFilter = { types: args.types ? [...new Set(args.types)] : DEFAULT_EVENT_TYPES };
  if (args.collection) filter.collection = args.collection;
  if (args.tokenId != null) filter.tokenId = args.tokenId.toString();
  if (args.account) filter.account = args.account;
  if (args.from) filter.from = args.from;
  if (args.to) filter.to = args.to;
  if (args.since != null) filter.since = BigInt(args.since);
  if (args.until != null) filter.until = BigInt(args.until);
  if (args.attributes?.length) filter.attributes = normaliseTraitConditions(args.attributes);
  const query: ActivityQuery = { filter, first: args.last ?? args.first ?? DEFAULT_ACTIVITY_PAGE, fromEnd: args.last != null };
  if (args.after != null) query.after = args.after;
  if (args.before != null) query.before = args.before;
  return { ok: true, value: query };
}

/** parseActivityArgs, throwing the problems as one BAD_REQUEST (INVALID_CURSOR when that is all). */
export function activityQueryOf(args: ActivityArgs): ActivityQuery {
  const parsed = parseActivityArgs(args);
  if (parsed.ok) return parsed.value;
  const [first] = parsed.problems;
  const message = parsed.problems.length === 1 ? `Invalid argument ${first!.field}: ${first!.message}` : `Invalid arguments: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
  if (parsed.problems.every((p) => p.code === 'INVALID_CURSOR')) throw new ServiceError('INVALID_CURSOR', message, parsed.problems);
  throw badRequest(parsed.problems, message);
}
