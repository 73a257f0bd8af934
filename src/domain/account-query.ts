// What an account's pages ask for (Account.offersReceived, Account.holdings): forward keyset pages
// of at most 150 rows. Parsed once here for the resolvers and the read engine, so both refuse and
// accept the same inputs.
import { isBytes32Hex } from './bytes32-hex.js';
import { badRequest, ServiceError, type FieldProblem } from './errors.js';

export const MAX_ACCOUNT_PAGE = 150;
export const DEFAULT_ACCOUNT_PAGE = 20;

export interface ForwardPage {
  first: number;
  after?: string;
}

export interface ForwardPageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** The page's size and cursor; `isCursor` says whether a cursor has the page's form. */
export function parseForwardPage(args: ForwardPageArgs, isCursor: (cursor: string) => boolean): { ok: true; value: ForwardPage } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  if (args.last != null || args.before != null) problems.push({ field: 'last', code: 'BAD_REQUEST', message: 'backward paging is not supported; page forward with first/after' });
  const first = args.first ?? DEFAULT_ACCOUNT_PAGE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_ACCOUNT_PAGE) problems.push({ field: 'first', code: 'INVALID_PAGE_SIZE', message: `must be a whole number from 1 to ${MAX_ACCOUNT_PAGE}` });
  if (args.after != null && !isCursor(args.after)) problems.push({ field: 'after', code: 'INVALID_CURSOR', message: `${JSON.stringify(args.after)} is not a cursor of this page` });
  if (problems.length) return { ok: false, problems };
  return { ok: true, value: args.after != null ? { first, after: args.after } : { first } };
}

/** parseForwardPage, throwing the problems as one BAD_REQUEST (INVALID_CURSOR when that is all). */
export function forwardPageOf(args: ForwardPageArgs, isCursor: (cursor: string) => boolean): ForwardPage {
  const parsed = parseForwardPage(args, isCursor);
  if (parsed.ok) return parsed.value;
  const [first] = parsed.problems;
  const message = parsed.problems.length === 1 ? `Invalid argument ${first!.field}: ${first!.message}` : `Invalid arguments: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
  if (parsed.problems.every((p) => p.code === 'INVALID_CURSOR')) throw new ServiceError('INVALID_CURSOR', message, parsed.problems);
  throw badRequest(parsed.problems, message);
}

/** An offer cursor: the order's hash as the API returns it. */
export const isOrderHashCursor = (cursor: string) => isBytes32Hex(cursor, { lowercase: true });
