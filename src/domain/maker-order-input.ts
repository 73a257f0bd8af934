// The POST /orders body (spec 2.3) checked for shape only: types, formats and ranges of every
// field, all problems reported at once. Business rules are in order-rules.ts, the signature in
// order-signature.ts. Leniency is chosen where it cannot change what was signed.
import { normalizeAddress } from './address.js';
import type { MakerOrder } from './maker-order.js';
import { encodeParams, parseParams, type ParamValue } from './order-params.js';
import { orderProblem, type OrderProblem } from './order-problems.js';
import { parseUint256 } from './uint256.js';

export interface ParsedMakerOrderInput {
  isOrderAsk: boolean;
  /** addresses are EIP-55 checksummed */
  signer: string;
  collection: string;
  price: bigint;
  /** null for a collection offer; signed and hashed as 0 */
  tokenId: bigint | null;
  amount: bigint;
  strategy: string;
  currency: string;
  nonce: bigint;
  startTime: bigint;
  endTime: bigint;
  minPercentageToAsk: bigint;
  params: ParamValue[];
  /** ABI encoding of params as the v1 SDK signs it, '0x' when empty */
  encodedParams: string;
  /** as submitted; its format is checked by checkSignature */
  signature: string;
}

export type MakerOrderInputParse =
  | { ok: true; value: ParsedMakerOrderInput; /** extra fields (hash, status, v, ...), ignored */ ignoredFields: string[] }
  | { ok: false; problems: OrderProblem[] };

export const MAKER_ORDER_INPUT_FIELDS = [
  'isOrderAsk',
  'signer',
  'collection',
  'price',
  'tokenId',
  'amount',
  'strategy',
  'currency',
  'nonce',
  'startTime',
  'endTime',
  'minPercentageToAsk',
  'params',
  'signature',
] as const;

// Clients that copy a response Order into a request send these names (facts, "Order fields on the wire").
const RESPONSE_NAMES: Record<string, string> = { collection: 'collectionAddress', currency: 'currencyAddress' };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseMakerOrderInput(raw: unknown): MakerOrderInputParse {
  if (!isPlainObject(raw)) return { ok: false, problems: [orderProblem('INVALID_TYPE', null, 'The order must be a JSON object')] };
  const problems: OrderProblem[] = [];
  const add = (p: OrderProblem) => problems.push(p);

  // undefined and null both count as absent, except where null has a meaning (tokenId, params).
  const missing = (field: string, detail = ''): void => {
    const alias = RESPONSE_NAMES[field];
    const hint = alias && raw[alias] !== undefined ? ` (${alias} is the response name; the request uses ${field})` : '';
    add(orderProblem('MISSING_FIELD', field, `${field} is required${detail}${hint}`));
  };
  const present = (field: string): boolean => {
    if (raw[field] !== undefined && raw[field] !== null) return true;
    missing(field);
    return false;
  };

  const bool = (field: string): boolean | null => {
    if (!present(field)) return null;
    if (typeof raw[field] === 'boolean') return raw[field];
    add(orderProblem('INVALID_TYPE', field, `${field} must be a JSON boolean`));
    return null;
  };

  const address = (field: string): string | null => {
    if (!present(field)) return null;
    const v = raw[field];
    if (typeof v !== 'string') {
      add(orderProblem('INVALID_TYPE', field, `${field} must be an address string`));
      return null;
    }
    const a = normalizeAddress(v);
    if (a === null) add(orderProblem('INVALID_ADDRESS', field, `${field} must be 0x followed by 40 hexadecimal digits`));
    return a;
  };

  // Decimal strings per spec 2.2; non-negative safe-integer JSON numbers too (no precision lost);
  // bigints from callers that parsed them already (GraphQL's Uint256 and UnixTime scalars).
  const uint = (field: string): bigint | null => {
    const v = raw[field];
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'bigint') {
      add(orderProblem('INVALID_TYPE', field, `${field} must be a decimal string${field === 'tokenId' ? ' or null' : ''}`));
      return null;
    }
    const n = parseUint256(v);
    if (n === null) add(orderProblem('INVALID_UINT256', field, `${field} must be a decimal string of an integer between 0 and 2^256-1`));
    return n;
  };
  const requiredUint = (field: string): bigint | null => (present(field) ? uint(field) : null);

  // tokenId: required, and null is the collection-offer value. `undefined` here means "invalid".
  const tokenIdOf = (): bigint | null | undefined => {
    if (raw.tokenId === null) return null;
    if (raw.tokenId === undefined) {
      missing('tokenId', ': a decimal string, or null for a collection offer');
      return undefined;
    }
    return uint('tokenId') ?? undefined;
  };

  // Spec 2.3 says number; numeric strings are accepted too (the SDK typed these BigNumberish).
  // Bounded to 2^53-1 so the response can show them as exact JSON numbers, or lower where the
  // stored column and GraphQL's Int end (minPercentageToAsk: 2^31-1; anything above the 9800
  // rule is refused by that rule anyway, this bound only keeps it a 400 instead of an overflow).
  const wholeNumber = (field: string, code: 'INVALID_TIMESTAMP' | 'INVALID_INTEGER', max = Number.MAX_SAFE_INTEGER, maxName = '2^53-1'): bigint | null => {
    if (!present(field)) return null;
    const v = raw[field];
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'bigint') {
      add(orderProblem('INVALID_TYPE', field, `${field} must be a number`));
      return null;
    }
    const n = parseUint256(v);
    if (n !== null && n <= BigInt(max)) return n;
    const what = code === 'INVALID_TIMESTAMP' ? 'a whole number of seconds' : 'a whole number';
    add(orderProblem(code, field, `${field} must be ${what} between 0 and ${maxName}`));
    return null;
  };

  const isOrderAsk = bool('isOrderAsk');
  const signer = address('signer');
  const collection = address('collection');
  const price = requiredUint('price');
  const tokenId = tokenIdOf();
  const amount = requiredUint('amount');
  const strategy = address('strategy');
  const currency = address('currency');
  const nonce = requiredUint('nonce');
  const startTime = wholeNumber('startTime', 'INVALID_TIMESTAMP');
  const endTime = wholeNumber('endTime', 'INVALID_TIMESTAMP');
  const minPercentageToAsk = wholeNumber('minPercentageToAsk', 'INVALID_INTEGER', 2 ** 31 - 1, '2^31-1');

  // The SDK signs absent/null params as [] ("params || []" then "0x"), so accept them as [].
  let params: ParamValue[] | null = [];
  const rawParams = raw.params ?? [];
  if (!Array.isArray(rawParams)) {
    add(orderProblem('INVALID_TYPE', 'params', 'params must be an array'));
    params = null;
  } else {
    const parsed = parseParams(rawParams);
    if (parsed.ok) params = parsed.values;
    else {
      for (const r of parsed.refusals) add(orderProblem('INVALID_PARAMS', `params[${r.index}]`, r.message));
      params = null;
    }
  }

  let signature: string | null = null;
  if (present('signature')) {
    if (typeof raw.signature === 'string') signature = raw.signature;
    else add(orderProblem('INVALID_TYPE', 'signature', 'signature must be a hex string'));
  }

  if (
    problems.length > 0 ||
    isOrderAsk === null ||
    signer === null ||
    collection === null ||
    price === null ||
    tokenId === undefined ||
    amount === null ||
    strategy === null ||
    currency === null ||
    nonce === null ||
    startTime === null ||
    endTime === null ||
    minPercentageToAsk === null ||
    params === null ||
    signature === null
  ) {
    return { ok: false, problems };
  }

  const known = new Set<string>(MAKER_ORDER_INPUT_FIELDS);
  return {
    ok: true,
    value: {
      isOrderAsk,
      signer,
      collection,
      price,
      tokenId,
      amount,
      strategy,
      currency,
      nonce,
      startTime,
      endTime,
      minPercentageToAsk,
      params,
      encodedParams: encodeParams(params),
      signature,
    },
    ignoredFields: Object.keys(raw).filter((k) => !known.has(k)),
  };
}

/** The struct that was signed and is hashed (spec 2.5): a collection offer's null tokenId is 0. */
export function toSignedMakerOrder(p: ParsedMakerOrderInput): MakerOrder {
  return {
    isOrderAsk: p.isOrderAsk,
    signer: p.signer,
    collection: p.collection,
    price: p.price,
    tokenId: p.tokenId ?? 0n,
    amount: p.amount,
    strategy: p.strategy,
    currency: p.currency,
    nonce: p.nonce,
    startTime: p.startTime,
    endTime: p.endTime,
    minPercentageToAsk: p.minPercentageToAsk,
    params: p.encodedParams,
  };
}
