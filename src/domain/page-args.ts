// A Relay connection's page arguments (first/after forward, last/before backward), parsed once for
// the resolvers and the read engine of the keyset pages that are not order pages (Query.tokens,
// Query.sales, Query.collections, Account.offersReceived, Account.holdings), so both refuse and
// accept the same inputs. The rules are the order connections' (./order-query.ts): `first` or
// `last`, not both; `after` and `before` bound the list, then the page is its first or last rows.
import { badRequest, ServiceError, type FieldProblem } from './errors.js';

export interface PageQuery {
  /** page size; counted from the end of the list when `fromEnd` */
  first: number;
  /** `last` was given: the page is the last `first` rows before `before` (still listed in the connection's order) */
  fromEnd: boolean;
  /** the page holds rows strictly after this cursor ... */
  after?: string;
  /** ... and strictly before this one */
  before?: string;
}

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

export interface PageRules {
  /** the largest page */
  max: number;
  /** the page size when neither first nor last is given */
  defaultSize: number;
  /** whether a cursor has the page's form (a cursor naming no row is the page's own check); none: any string */
  isCursor?: (cursor: string) => boolean;
}

export function parsePageArgs(args: PageArgs, rules: PageRules): { ok: true; value: PageQuery } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const size = (field: 'first' | 'last', n: number | null | undefined) => {
    if (n != null && (!Number.isInteger(n) || n < 1 || n > rules.max)) problems.push({ field, code: 'INVALID_PAGE_SIZE', message: `must be a whole number from 1 to ${rules.max}` });
  };
  size('first', args.first);
  size('last', args.last);
  if (args.first != null && args.last != null) problems.push({ field: 'last', code: 'INVALID_PAGE_SIZE', message: 'give first or last, not both' });
  for (const field of ['after', 'before'] as const) {
    const cursor = args[field];
    if (cursor != null && rules.isCursor && !rules.isCursor(cursor)) problems.push({ field, code: 'INVALID_CURSOR', message: `${JSON.stringify(cursor)} is not a cursor of this page` });
  }
  if (problems.length) return { ok: false, problems };
  const value: PageQuery = { first: args.last ?? args.first ?? rules.defaultSize, fromEnd: args.last != null };
  if (args.after != null) value.after = args.after;
  if (args.before != null) value.before = args.before;
  return { ok: true, value };
}

/** parsePageArgs, throwing the problems as one BAD_REQUEST (INVALID_CURSOR when that is all). */
export function pageArgsOf(args: PageArgs, rules: PageRules): PageQuery {
  const parsed = parsePageArgs(args, rules);
  if (parsed.ok) return parsed.value;
  const [first] = parsed.problems;
  const message = parsed.problems.length === 1 ? `Invalid argument ${first!.field}: ${first!.message}` : `Invalid arguments: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
  if (parsed.problems.every((p) => p.code === 'INVALID_CURSOR')) throw new ServiceError('INVALID_CURSOR', message, parsed.problems);
  throw badRequest(parsed.problems, message);
}

/**
 * How a page's rows come back from a scan of `first + 1` rows in scan order (the list's order, or
 * its reverse when `fromEnd`): the page in list order, and its pageInfo flags as the order
 * connections set them (src/services/orders.ts).
 */
export function pageOfScan<T>(rows: T[], q: PageQuery): { rows: T[]; hasNextPage: boolean; hasPreviousPage: boolean } {
  const more = rows.length > q.first;
  const page = rows.slice(0, q.first);
  if (q.fromEnd) page.reverse();
  return q.fromEnd
    ? { rows: page, hasPreviousPage: more, hasNextPage: q.before !== undefined }
    : { rows: page, hasNextPage: more, hasPreviousPage: q.after !== undefined };
}
