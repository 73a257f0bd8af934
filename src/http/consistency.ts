// The consistency stamp and reads that wait (docs/api.md, "Consistency"): every API response
// says which indexed block it reflects (X-Indexed-Block; GraphQL also extensions.indexedBlock),
// and a read may ask to be answered only once a block (X-Min-Block, or extensions.minBlock) or a
// transaction (X-Wait-For-Tx, or extensions.txHash) is indexed, waiting at most
// CONSISTENCY_MAX_WAIT_MS (less with X-Max-Wait-Ms). Past the bound it is answered anyway with
// what is indexed, and says so (X-Min-Block-Reached: false, extensions.consistency.reached).
//
// The stamp is the mark read BEFORE the request reads anything (src/services/indexed-block.ts:
// it never leads the cursor), so the data of a response stamped N reflects at least block N.
// REST and GraphQL, the read lane, yoga and graphql-ws (./graphql-ws.ts) all go through here.
import type { ExecutionResult } from 'graphql';
import { isBytes32Hex } from '../domain/bytes32-hex.js';
import { badRequest, type FieldProblem } from '../domain/errors.js';
import type { Services } from '../services/index.js';

export const INDEXED_BLOCK_HEADER = 'x-indexed-block';
export const MIN_BLOCK_HEADER = 'x-min-block';
export const WAIT_FOR_TX_HEADER = 'x-wait-for-tx';
export const MAX_WAIT_HEADER = 'x-max-wait-ms';
export const MIN_BLOCK_REACHED_HEADER = 'x-min-block-reached';
/** the keys of a GraphQL request's extensions that ask for a wait */
export const CONSISTENCY_EXTENSIONS: ReadonlySet<string> = new Set(['minBlock', 'txHash', 'maxWaitMs']);
/** what a browser's script may read of an answer (CORS) */
export const CONSISTENCY_RESPONSE_HEADERS = ['X-Indexed-Block', 'X-Min-Block-Reached'];

const DIGITS = /^\d{1,16}$/;

/** What a request asked to wait for. */
export interface ConsistencyAsk {
  minBlock: number | null;
  txHash: string | null;
  maxWaitMs: number;
}

/** What a response says about it. */
export interface Consistency {
  /** the mark the request's reads started from; null before the first batch */
  indexedBlock: number | null;
  /** set when the request asked to wait */
  asked: { minBlock: number | null; txHash: string | null; reached: boolean } | null;
}

export type HeaderGetter = (name: string) => string | null | undefined;

function wholeNumber(value: unknown, field: string, problems: FieldProblem[]): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' && DIGITS.test(value.trim()) ? Number(value.trim()) : NaN;
  if (Number.isSafeInteger(n) && n >= 0) return n;
  problems.push({ field, code: 'INVALID_NUMBER', message: 'expected a whole number, 0 or more' });
  return null;
}

/** One value sent in a header and the GraphQL request's extensions: the same, or a problem. */
function either<T>(header: T | null, extension: T | null, field: string, problems: FieldProblem[]): T | null {
  if (header !== null && extension !== null && header !== extension) {
    problems.push({ field, code: 'CONFLICT', message: 'the header and the request extensions ask for different values' });
  }
  return header ?? extension;
}

/**
 * The wait a request asks for, from its headers and (GraphQL) its body's `extensions`; null when
 * it asks for none. Throws BAD_REQUEST naming every bad value (never a 500).
 */
export function consistencyAsk(get: HeaderGetter, extensions: unknown, services: Services): ConsistencyAsk | null {
  const ext = extensions && typeof extensions === 'object' && !Array.isArray(extensions) ? (extensions as Record<string, unknown>) : {};
  const headerBlock = get(MIN_BLOCK_HEADER);
  const headerTx = get(WAIT_FOR_TX_HEADER);
  const headerWait = get(MAX_WAIT_HEADER);
  if (headerBlock == null && headerTx == null && headerWait == null && ext.minBlock == null && ext.txHash == null && ext.maxWaitMs == null) return null;
  const problems: FieldProblem[] = [];
  const minBlock = either(wholeNumber(headerBlock, 'X-Min-Block', problems), wholeNumber(ext.minBlock, 'extensions.minBlock', problems), 'minBlock', problems);
  const maxWait = either(wholeNumber(headerWait, 'X-Max-Wait-Ms', problems), wholeNumber(ext.maxWaitMs, 'extensions.maxWaitMs', problems), 'maxWaitMs', problems);
  const hash = (value: unknown, field: string): string | null => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'string' && isBytes32Hex(value.trim())) return value.trim().toLowerCase();
    problems.push({ field, code: 'INVALID_TX_HASH', message: 'expected a transaction hash: 0x and 64 hex digits' });
    return null;
  };
  const txHash = either(hash(headerTx, 'X-Wait-For-Tx'), hash(ext.txHash, 'extensions.txHash'), 'txHash', problems);
  if (problems.length) throw badRequest(problems);
  if (txHash !== null && !services.indexedBlock.canWaitForTransactions()) {
    throw badRequest(
      [{ field: headerTx != null ? 'X-Wait-For-Tx' : 'extensions.txHash', code: 'NO_CHAIN', message: 'this server has no chain node (RPC_URL), so it cannot look a transaction up: wait for its block with X-Min-Block' }],
      'Cannot wait for a transaction: this server has no chain node (RPC_URL); wait for its block with X-Min-Block instead',
    );
  }
  const bound = services.deps.config.consistencyMaxWaitMs;
  if (minBlock === null && txHash === null) return null;
  return { minBlock, txHash, maxWaitMs: Math.min(bound, maxWait ?? bound) };
}

/** Waits for what was asked (null: nothing), then takes the stamp: call it before the request reads. */
export async function awaitConsistency(ask: ConsistencyAsk | null, services: Services): Promise<Consistency> {
  const mark = services.indexedBlock;
  if (!ask) return { indexedBlock: mark.current(), asked: null };
  const started = performance.now();
  let reached = ask.minBlock === null || (await mark.waitFor(ask.minBlock, ask.maxWaitMs));
  if (reached && ask.txHash !== null) reached = await mark.waitForTransaction(ask.txHash, ask.maxWaitMs - (performance.now() - started));
  return { indexedBlock: mark.current(), asked: { minBlock: ask.minBlock, txHash: ask.txHash, reached } };
}

/** The response headers of the stamp, lower case. */
export function consistencyHeaders(c: Consistency): Record<string, string> {
  const headers: Record<string, string> = {};
  if (c.indexedBlock !== null) headers[INDEXED_BLOCK_HEADER] = String(c.indexedBlock);
  if (c.asked) headers[MIN_BLOCK_REACHED_HEADER] = String(c.asked.reached);
  return headers;
}

/** The GraphQL response's extensions of the stamp (empty when there is nothing to say). */
export function consistencyExtensions(c: Consistency): Record<string, unknown> {
  const ext: Record<string, unknown> = {};
  if (c.indexedBlock !== null) ext.indexedBlock = c.indexedBlock;
  if (c.asked) {
    const { minBlock, txHash, reached } = c.asked;
    ext.consistency = { ...(minBlock !== null ? { minBlock } : {}), ...(txHash !== null ? { txHash } : {}), reached };
  }
  return ext;
}

/**
 * A GraphQL result with the stamp's extensions added, as a plain object of data, errors and
 * extensions: for a transport that serializes the result itself (graphql-ws).
 */
export function withConsistencyExtensions(result: ExecutionResult, c: Consistency): ExecutionResult {
  const ext = consistencyExtensions(c);
  if (!Object.keys(ext).length) return result;
  const { data, errors, extensions } = result;
  return { ...(errors ? { errors } : {}), ...(data !== undefined ? { data } : {}), extensions: { ...extensions, ...ext } };
}

/**
 * A GraphQL response text with the stamp's extensions last (after data and errors). The text is
 * the engine's or JSON.stringify's: an object without extensions of its own.
 */
export function withConsistencyText(text: string, c: Consistency): string {
  const ext = consistencyExtensions(c);
  if (!Object.keys(ext).length) return text;
  return `${text.slice(0, text.lastIndexOf('}'))},"extensions":${JSON.stringify(ext)}}`;
}
