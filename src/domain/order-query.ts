// GET /orders filters, sorts and paging (looksrare-v1-facts.md "Query parameters real clients
// sent"), validated once for both the REST route and the GraphQL `orders` field.
import { normalizeAddress } from './address.js';
import { isBytes32Hex } from './bytes32-hex.js';
import type { FieldProblem } from './errors.js';
import { ORDER_STATUSES, type OrderStatusName } from './order-status.js';
import { parseUint256 } from './uint256.js';
import { checkTraitConditions, normaliseTraitConditions, type TraitCondition } from './token-filter.js';

export const ORDER_SORTS = ['EXPIRING_SOON', 'NEWEST', 'PRICE_ASC', 'PRICE_DESC'] as const;
export type OrderSort = (typeof ORDER_SORTS)[number];

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 150;
export const DEFAULT_SORT: OrderSort = 'NEWEST';

export interface OrderFilter {
  /** one order by its hash (a bot polling one order's status) */
  hash?: string;
  isOrderAsk?: boolean;
  collection?: string;
  tokenId?: bigint;
  signer?: string;
  strategy?: string;
  currency?: string;
  nonce?: bigint;
  priceMin?: bigint;
  priceMax?: bigint;
  /** orders whose startTime >= this (unix seconds) */
  startTime?: bigint;
  /** orders whose endTime <= this (unix seconds) */
  endTime?: bigint;
  /** any of these effective statuses (EXPIRED included for live orders past endTime) */
  statuses?: OrderStatusName[];
  /** orders on a token carrying these traits (OR within a trait type, AND across): never a collection offer */
  attributes?: TraitCondition[];
}

export interface OrderQuery {
  filter: OrderFilter;
  sort: OrderSort;
  /** page size; counted from the end of the list when `fromEnd` (GraphQL `last`) */
  first: number;
  /** true for backward paging (GraphQL `last`): the page is the last `first` orders before `before` */
  fromEnd?: boolean;
  /** hash of the last order of the previous page (orders strictly after it) */
  cursor?: string;
  /** hash of the first order of the next page (orders strictly before it; GraphQL `before`) */
  before?: string;
}

/** Raw values as they arrive from a query string or GraphQL variables. */
export interface RawOrderQuery {
  hash?: unknown;
  isOrderAsk?: unknown;
  collection?: unknown;
  tokenId?: unknown;
  signer?: unknown;
  strategy?: unknown;
  currency?: unknown;
  nonce?: unknown;
  priceMin?: unknown;
  priceMax?: unknown;
  startTime?: unknown;
  endTime?: unknown;
  status?: unknown;
  /** GraphQL only: [{ traitType, values }] */
  attributes?: unknown;
  sort?: unknown;
  first?: unknown;
  cursor?: unknown;
  /** GraphQL only: backward paging (REST pages forward only) */
  last?: unknown;
  before?: unknown;
}

const MAX_TIME = BigInt(Number.MAX_SAFE_INTEGER);

export function normalizeHash(input: unknown): string | null {
  return typeof input === 'string' && isBytes32Hex(input.trim()) ? input.trim().toLowerCase() : null;
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

export function parseBoolean(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return null;
}

export function parseSafeInteger(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,16}$/.test(v.trim())) {
    const n = Number(v.trim());
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

/** Validates every field and reports every problem, not only the first. */
export function parseOrderQuery(raw: RawOrderQuery): { ok: true; value: OrderQuery } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const filter: OrderFilter = {};
  const problem = (field: string, code: string, message: string) => problems.push({ field, code, message });

  if (present(raw.hash)) {
    const h = normalizeHash(raw.hash);
    if (!h) problem('hash', 'INVALID_HASH', 'must be an order hash: 0x followed by 64 hexadecimal digits');
    else filter.hash = h;
  }
  if (present(raw.isOrderAsk)) {
    const b = parseBoolean(raw.isOrderAsk);
    if (b === null) problem('isOrderAsk', 'INVALID_BOOLEAN', 'must be true or false');
    else filter.isOrderAsk = b;
  }
  for (const field of ['collection', 'signer', 'strategy', 'currency'] as const) {
    if (!present(raw[field])) continue;
    const a = normalizeAddress(raw[field]);
    if (!a) problem(field, 'INVALID_ADDRESS', 'must be an address: 0x followed by 40 hexadecimal digits');
    else filter[field] = a;
  }
  for (const [field, key] of [
    ['tokenId', 'tokenId'],
    ['nonce', 'nonce'],
    ['price[min]', 'priceMin'],
    ['price[max]', 'priceMax'],
  ] as const) {
    if (!present(raw[key])) continue;
    const n = parseUint256(raw[key]);
    if (n === null) problem(field, 'INVALID_UINT256', 'must be a decimal integer string from 0 to 2^256-1');
    else filter[key] = n;
  }
  for (const field of ['startTime', 'endTime'] as const) {
    if (!present(raw[field])) continue;
    const n = parseUint256(raw[field]);
    if (n === null || n > MAX_TIME) problem(field, 'INVALID_TIMESTAMP', 'must be a unix time in whole seconds');
    else filter[field] = n;
  }
  if (filter.priceMin !== undefined && filter.priceMax !== undefined && filter.priceMin > filter.priceMax) {
    problem('price', 'INVALID_RANGE', 'price[min] is above price[max]');
  }
  if (present(raw.status)) {
    const list = Array.isArray(raw.status) ? raw.status : [raw.status];
    const statuses: OrderStatusName[] = [];
    for (const s of list) {
      if (typeof s === 'string' && (ORDER_STATUSES as readonly string[]).includes(s)) statuses.push(s as OrderStatusName);
      else problem('status', 'INVALID_STATUS', `unknown status ${JSON.stringify(s)}; expected one of ${ORDER_STATUSES.join(', ')}`);
    }
    if (statuses.length) filter.statuses = [...new Set(statuses)];
  }
  if (present(raw.attributes)) {
    const list = raw.attributes;
    const wellFormed =
      Array.isArray(list) &&
      list.every((a) => typeof a?.traitType === 'string' && Array.isArray(a.values) && a.values.every((v: unknown) => typeof v === 'string'));
    // a trait names a value within one collection: the filter needs the collection (or the
    // signer, or a parent's pin, given here as an empty value) to bound the orders it probes
    const scoped = raw.collection != null || raw.signer != null;
    if (!wellFormed) problem('attributes', 'BAD_REQUEST', 'must be a list of { traitType, values }');
    else if (!scoped) problem('attributes', 'BAD_REQUEST', 'a trait filter needs its collection (or a signer)');
    else {
      const before = problems.length;
      checkTraitConditions(list, 'attributes', problems);
      if (problems.length === before && list.length) filter.attributes = normaliseTraitConditions(list);
    }
  }
  let sort: OrderSort = DEFAULT_SORT;
  if (present(raw.sort)) {
    if (typeof raw.sort === 'string' && (ORDER_SORTS as readonly string[]).includes(raw.sort)) sort = raw.sort as OrderSort;
    else problem('sort', 'INVALID_SORT', `expected one of ${ORDER_SORTS.join(', ')}`);
  }
  let first = DEFAULT_PAGE_SIZE;
  if (present(raw.first)) {
    const n = parseSafeInteger(raw.first);
    if (n === null || n < 1 || n > MAX_PAGE_SIZE) problem('pagination[first]', 'INVALID_PAGE_SIZE', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    else first = n;
  }
  let fromEnd = false;
  if (present(raw.last)) {
    const n = parseSafeInteger(raw.last);
    if (present(raw.first)) problem('last', 'INVALID_PAGE_SIZE', 'give first or last, not both');
    else if (n === null || n < 1 || n > MAX_PAGE_SIZE) problem('last', 'INVALID_PAGE_SIZE', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    else {
      first = n;
      fromEnd = true;
    }
  }
  let cursor: string | undefined;
  if (present(raw.cursor)) {
    const h = normalizeHash(raw.cursor);
    if (!h) problem('pagination[cursor]', 'INVALID_CURSOR', 'must be an order hash: 0x followed by 64 hexadecimal digits');
    else cursor = h;
  }
  let before: string | undefined;
  if (present(raw.before)) {
    const h = normalizeHash(raw.before);
    if (!h) problem('before', 'INVALID_CURSOR', 'must be an order hash: 0x followed by 64 hexadecimal digits');
    else before = h;
  }
  if (problems.length) return { ok: false, problems };
  const value: OrderQuery = { filter, sort, first, cursor };
  if (fromEnd) value.fromEnd = true;
  if (before !== undefined) value.before = before;
  return { ok: true, value };
}

/** The arguments of an order connection (Query.orders, Collection.orders) as GraphQL coerced them. */
export interface OrderConnectionArgs {
  filter?: Record<string, unknown> | null;
  sort?: unknown;
  first?: unknown;
  after?: unknown;
  last?: unknown;
  before?: unknown;
}

/**
 * An order connection's arguments parsed by the same rules as the REST query; `collection`
 * pins the page to one collection (Collection.orders: it replaces filter.collection).
 */
export function parseOrderConnectionArgs(args: OrderConnectionArgs, collection?: string) {
  const f = (args.filter ?? {}) as Record<string, unknown> & { price?: { min?: unknown; max?: unknown } | null };
  return parseOrderQuery({
    ...f,
    priceMin: f.price?.min,
    priceMax: f.price?.max,
    collection: collection ?? f.collection,
    sort: args.sort,
    first: args.first,
    cursor: args.after,
    last: args.last,
    before: args.before,
  });
}
