// What a collection search asks for (Query.searchCollections, GET /api/v1/collections/search):
// the text, trimmed, read as an address too when it is one, and how many collections. Parsed once
// here for the resolver, the read engine and the REST route, so all three refuse and accept the
// same inputs; the ranking itself is src/services/collection-search.ts.
import { normalizeAddress } from './address.js';
import { badRequest, type FieldProblem, type ServiceError } from './errors.js';
import { NUL_MESSAGE } from './nul-character.js';

export const COLLECTION_SEARCH_RULES = {
  /** characters of the trimmed query (code points) */
  maxLength: 100,
  /** the most collections one search answers */
  max: 50,
  defaultSize: 20,
} as const;

export const SEARCH_QUERY_MESSAGE = `must be 1 to ${COLLECTION_SEARCH_RULES.maxLength} characters after trimming spaces`;
export const SEARCH_SIZE_MESSAGE = `must be a whole number from 1 to ${COLLECTION_SEARCH_RULES.max}`;

export interface CollectionSearch {
  /** the query, trimmed */
  text: string;
  /** the query as an address (any letter case), checksummed; null when it is not one */
  address: string | null;
  first: number;
}

/** The characters of a string as PostgreSQL counts them (code points, not UTF-16 units). */
export const searchQueryLength = (text: string): number => [...text].length;

/**
 * The search's arguments, or every problem with them. `names`: the arguments as the caller
 * wrote them (GraphQL `query` and `first`; REST `q` and `limit`).
 */
export function parseCollectionSearch(
  args: { query?: string | null; first?: number | null },
  names: { query: string; first: string } = { query: 'query', first: 'first' },
): { ok: true; value: CollectionSearch } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const text = (args.query ?? '').trim();
  const length = searchQueryLength(text);
  if (length < 1 || length > COLLECTION_SEARCH_RULES.maxLength) problems.push({ field: names.query, code: 'INVALID_SEARCH_QUERY', message: SEARCH_QUERY_MESSAGE });
  // PostgreSQL cannot hold it in text: refused here rather than failing there as a server fault
  else if (text.includes('\u0000')) problems.push({ field: names.query, code: 'INVALID_STRING', message: NUL_MESSAGE });
  const first = args.first ?? COLLECTION_SEARCH_RULES.defaultSize;
  if (!Number.isInteger(first) || first < 1 || first > COLLECTION_SEARCH_RULES.max) problems.push({ field: names.first, code: 'INVALID_PAGE_SIZE', message: SEARCH_SIZE_MESSAGE });
  if (problems.length) return { ok: false, problems };
  // lower-cased first: `0X` + 40 hex digits, all upper case, is an address too
  return { ok: true, value: { text, address: normalizeAddress(text.toLowerCase()), first } };
}

/** parseCollectionSearch, throwing the problems as one BAD_REQUEST naming the arguments. */
export function collectionSearchOf(args: { query?: string | null; first?: number | null }): CollectionSearch {
  const parsed = parseCollectionSearch(args);
  if (parsed.ok) return parsed.value;
  throw searchArgumentsError(parsed.problems);
}

function searchArgumentsError(problems: FieldProblem[]): ServiceError {
  const [first] = problems;
  return badRequest(problems, problems.length === 1 ? `Invalid argument ${first!.field}: ${first!.message}` : `Invalid arguments: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
}
