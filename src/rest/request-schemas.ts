// The v1 request parameters as zod schemas: the REST handlers validate requests with these, and
// /api/v1/openapi.json is generated from the same objects (src/rest/openapi/), so the reference
// cannot drift from what is enforced. Messages and codes are those of the domain parsers
// (order-query.ts), which still convert the validated strings and check cross-field rules.
import * as z from 'zod';
import { BYTES32_HEX } from '../domain/bytes32-hex.js';
import type { FieldProblem } from '../domain/errors.js';
import { MAX_PAGE_SIZE, ORDER_SORTS } from '../domain/order-query.js';
import { ORDER_STATUSES } from '../domain/order-status.js';
import { V1_EVENT_TYPES } from '../domain/activity-query.js';
import { COLLECTION_SEARCH_RULES, SEARCH_QUERY_MESSAGE, SEARCH_SIZE_MESSAGE, searchQueryLength } from '../domain/collection-search-query.js';
import { PAY_WITH } from '../domain/fulfillment.js';
import { FULFILLMENT_EXAMPLE } from './openapi/fulfillment-example.js';
import { DEMO_COLLECTION, DEMO_SIGNER } from '../demo/demo-addresses.js';
import { TOKEN_EXAMPLE } from './openapi/token-example.js';

const ADDRESS_MESSAGE = 'must be an address: 0x followed by 40 hexadecimal digits';
const UINT_MESSAGE = 'must be a decimal integer string from 0 to 2^256-1';
const TIME_MESSAGE = 'must be a unix time in whole seconds';
const PAGE_MESSAGE = `must be a whole number from 1 to ${MAX_PAGE_SIZE}`;

const address = (description: string, example?: string) =>
  z.string({ error: ADDRESS_MESSAGE }).regex(/^0x[0-9a-fA-F]{40}$/, { error: ADDRESS_MESSAGE }).meta({ description, ...(example ? { example } : {}) });

const uint256 = (description: string, example?: string) =>
  z
    .string({ error: UINT_MESSAGE })
    .regex(/^(0|[1-9]\d*)$/, { error: UINT_MESSAGE, abort: true })
    .max(78, { error: UINT_MESSAGE, abort: true })
    .refine((s) => BigInt(s) < 1n << 256n, { error: UINT_MESSAGE })
    .meta({ description: `${description} (uint256 as a decimal string)`, ...(example ? { example } : {}) });

const unixTime = (description: string) =>
  z
    .string({ error: TIME_MESSAGE })
    .regex(/^(0|[1-9]\d{0,15})$/, { error: TIME_MESSAGE, abort: true })
    .refine((s) => Number(s) <= Number.MAX_SAFE_INTEGER, { error: TIME_MESSAGE })
    .meta({ description: `${description} (unix seconds)` });

const orderHash = z
  .string({ error: 'must be an order hash: 0x followed by 64 hexadecimal digits' })
  .regex(BYTES32_HEX, { error: 'must be an order hash: 0x followed by 64 hexadecimal digits' });

export const OrderStatusParam = z.enum(ORDER_STATUSES, {
  error: (iss) => `unknown status ${JSON.stringify(iss.input)}; expected one of ${ORDER_STATUSES.join(', ')}`,
});

/** GET /api/v1/orders (looksrare-v1-facts.md "Query parameters real clients sent"). */
/** `pagination[first]`: 1..150 as the v1 routes take it, default 20. */
const pageSize = (example: string) =>
  z
    .string({ error: PAGE_MESSAGE })
    .regex(/^(?:[1-9]\d?|1[0-4]\d|150)$/, { error: PAGE_MESSAGE })
    .optional()
    .meta({ description: `page size, 1..${MAX_PAGE_SIZE}, default 20`, example });

export const OrdersQuery = z.object({
  hash: orderHash.optional().meta({ description: 'one order by its hash: a cheap way to poll one order' }),
  isOrderAsk: z.enum(['true', 'false', '1', '0'], { error: 'must be true or false' }).optional().meta({ description: '`true`: listings (asks); `false`: offers (bids)', example: 'true' }),
  collection: address('the collection', DEMO_COLLECTION).optional(),
  tokenId: uint256('the token id', '1').optional(),
  signer: address("the order's signer (maker)", DEMO_SIGNER).optional(),
  strategy: address('the execution strategy').optional(),
  currency: address('the currency (WETH)').optional(),
  nonce: uint256("the signer's order nonce").optional(),
  price: z
    .object({ min: uint256('lowest price in wei, inclusive').optional(), max: uint256('highest price in wei, inclusive').optional() })
    .optional()
    .meta({ description: 'price range in wei: `price[min]=...&price[max]=...`' }),
  startTime: unixTime('orders starting at or after').optional(),
  endTime: unixTime('orders ending at or before').optional(),
  status: z.array(OrderStatusParam).max(ORDER_STATUSES.length * 2).optional().meta({ description: 'any of these statuses (`status[]=VALID&status[]=EXPIRED`); a live order past its endTime is EXPIRED', example: ['VALID'] }),
  sort: z.enum(ORDER_SORTS, { error: `expected one of ${ORDER_SORTS.join(', ')}` }).optional().meta({ description: 'default NEWEST; ties break on creation order', example: 'PRICE_ASC' }),
  pagination: z
    .object({
      first: pageSize('5'),
      cursor: orderHash.optional().meta({ description: 'the hash of the last order of the previous page' }),
    })
    .optional()
    .meta({ description: '`pagination[first]=5&pagination[cursor]=0x...` (or the object as URL-encoded JSON)' }),
});

/** GET /orders/nonce, /collections, /collections/stats. */
export const AddressQuery = z.object({
  address: z
    .string({ error: (iss) => (iss.input === undefined ? 'the address query parameter is required' : 'must be 0x followed by 40 hexadecimal digits') })
    .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be 0x followed by 40 hexadecimal digits' })
    .meta({ description: 'an address in any letter case', example: DEMO_COLLECTION }),
});

/** GET /orders/fulfillment. */
export const FulfillmentQuery = z.object({
  hash: orderHash.meta({ description: 'the order to fill', example: FULFILLMENT_EXAMPLE.hash }),
  taker: address('the account that will send the fill', FULFILLMENT_EXAMPLE.taker),
  tokenId: uint256('the token sold into a collection offer: required there, refused for any other order').optional(),
  payWith: z
    .enum(PAY_WITH, { error: `expected one of ${PAY_WITH.join(', ')}` })
    .optional()
    .meta({ description: 'listings only: ETH (default; matchAskWithTakerBidUsingETHAndWETH, the price sent as value) or WETH (matchAskWithTakerBid)' }),
});

/** GET /collections/search: the rules of src/domain/collection-search-query.ts (values arrive trimmed). */
export const CollectionSearchQuery = z.object({
  q: z
    .string({ error: (iss) => (iss.input === undefined ? 'the q query parameter is required' : SEARCH_QUERY_MESSAGE) })
    .refine((q) => searchQueryLength(q) <= COLLECTION_SEARCH_RULES.maxLength, { error: SEARCH_QUERY_MESSAGE })
    .meta({ description: `a name, a symbol or an address, ${SEARCH_QUERY_MESSAGE}; misspellings are matched too`, example: 'lanturn owls' }),
  limit: z
    .string({ error: SEARCH_SIZE_MESSAGE })
    .regex(/^(?:[1-9]|[1-4]\d|50)$/, { error: SEARCH_SIZE_MESSAGE })
    .optional()
    .meta({ description: `how many collections, 1..${COLLECTION_SEARCH_RULES.max}, default ${COLLECTION_SEARCH_RULES.defaultSize}`, example: '5' }),
});

/** GET /tokens (looksrare-v1-facts.md "Events and tokens routes"). */
export const TokensQuery = z.object({
  collection: address('the collection', DEMO_COLLECTION),
  tokenId: uint256('the token id', TOKEN_EXAMPLE.tokenId),
});

/** GET /collections/attributes. */
export const CollectionAttributesQuery = z.object({ collection: address('the collection', DEMO_COLLECTION) });

/** POST /tokens/refresh: one token, or (without tokenId) the whole collection. */
export const TokenRefreshBody = z.strictObject({
  collection: address('the collection', DEMO_COLLECTION),
  tokenId: uint256('the token; absent: every known token of the collection', TOKEN_EXAMPLE.tokenId).optional(),
});

/** GET /api/v1/events (looksrare-v1-facts.md "Events and tokens routes"): newest first. */
export const EventsQuery = z.object({
  collection: address('the collection', DEMO_COLLECTION).optional(),
  tokenId: uint256('the token id; only with collection').optional(),
  type: z
    .enum(V1_EVENT_TYPES, { error: `expected one of ${V1_EVENT_TYPES.join(', ')}` })
    .optional()
    .meta({ description: 'one kind of event (OFFER includes collection offers); default: all of them', example: 'SALE' }),
  from: address('the sender: the maker of an order, the seller of a sale, the sender of a transfer').optional(),
  to: address('the receiver: the buyer of a sale, the receiver of a transfer or mint').optional(),
  pagination: z
    .object({
      first: pageSize('25'),
      cursor: z
        .string({ error: 'must be an event id' })
        .regex(/^(0|[1-9]\d{0,15})$/, { error: 'must be an event id' })
        .optional()
        .meta({ description: 'the `id` of the last event of the previous page' }),
    })
    .optional()
    .meta({ description: '`pagination[first]=25&pagination[cursor]=1234` (or the object as URL-encoded JSON)' }),
});

export const EmptyQuery = z.object({});

/** The problem code of a parameter, as the domain parsers name them. */
const CODES: Record<string, string> = {
  isOrderAsk: 'INVALID_BOOLEAN',
  collection: 'INVALID_ADDRESS',
  signer: 'INVALID_ADDRESS',
  strategy: 'INVALID_ADDRESS',
  currency: 'INVALID_ADDRESS',
  tokenId: 'INVALID_UINT256',
  nonce: 'INVALID_UINT256',
  price: 'INVALID_UINT256',
  startTime: 'INVALID_TIMESTAMP',
  endTime: 'INVALID_TIMESTAMP',
  status: 'INVALID_STATUS',
  sort: 'INVALID_SORT',
  'pagination[first]': 'INVALID_PAGE_SIZE',
  'pagination[cursor]': 'INVALID_CURSOR',
  from: 'INVALID_ADDRESS',
  to: 'INVALID_ADDRESS',
  type: 'INVALID_EVENT_TYPE',
  address: 'INVALID_ADDRESS',
  hash: 'INVALID_HASH',
  taker: 'INVALID_ADDRESS',
  payWith: 'INVALID_PAY_WITH',
  q: 'INVALID_SEARCH_QUERY',
  limit: 'INVALID_PAGE_SIZE',
};

/** zod issues as the envelope's errors[]: bracket-style field names, one closed set of codes. */
export function problemsFrom(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => {
    const [head, ...rest] = issue.path.filter((p) => typeof p === 'string') as string[];
    const field = head === undefined ? 'query' : rest.length ? `${head}[${rest.join('][')}]` : head;
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return { field, code: missing ? 'REQUIRED' : (CODES[field] ?? CODES[head ?? ''] ?? 'BAD_REQUEST'), message: issue.message };
  });
}

/**
 * Query values as the schemas expect them: trimmed strings, empty values absent (`?collection=`
 * means no filter), numbers and booleans from URL-encoded JSON objects as their decimal text.
 */
export function cleanQueryValues(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') {
    const t = value.trim();
    return t === '' ? undefined : t;
  }
  if (Array.isArray(value)) return value.map(cleanQueryValues);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const c = cleanQueryValues(v);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return value === null ? undefined : value;
}
