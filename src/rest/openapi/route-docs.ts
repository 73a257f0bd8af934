// What the OpenAPI document says about each v1 route: the request schemas the handlers validate
// with, the response schemas, and which demo answer is its example. Keyed like ROUTES in
// ../routes.ts; test/rest/openapi.test.ts fails when the two tables differ.
import * as z from 'zod';
import { AddressQuery, EmptyQuery, OrdersQuery } from '../request-schemas.js';
import {
  CollectionResponse,
  CollectionStatsResponse,
  IndexerStatusResponse,
  ListingRewardResponse,
  MakerOrderBody,
  OrderResponse,
  ValidateOrderResponse,
} from '../response-schemas.js';
import examples from './examples.json' with { type: 'json' };

export interface RouteDoc {
  summary: string;
  description?: string;
  tag: 'Orders' | 'Collections' | 'Indexer';
  query: z.ZodObject;
  body?: { schema: z.ZodType; example: unknown };
  response: { status: 200 | 201; data: z.ZodType; example: unknown };
  /** failure statuses the route can answer besides 400/429/500 */
  failures?: number[];
}

export const ROUTE_DOCS: Record<string, Partial<Record<'GET' | 'POST', RouteDoc>>> = {
  '/orders': {
    GET: {
      summary: 'List orders',
      description: 'Filtered, sorted, keyset-paged orders. Paging with the cursor returns every matching order exactly once.',
      tag: 'Orders',
      query: OrdersQuery,
      response: { status: 200, data: z.array(OrderResponse), example: examples.orders },
    },
    POST: {
      summary: 'Submit a signed maker order',
      description:
        'Answers 201 with the stored order, or 400 whose `errors[]` lists every problem with a code from the closed `OrderProblemCode` set. With `WRITE_API_KEYS` set, needs `X-Looks-Api-Key`.',
      tag: 'Orders',
      query: EmptyQuery,
      body: { schema: MakerOrderBody, example: examples.makerOrder },
      response: { status: 201, data: OrderResponse, example: examples.orders[0] },
      failures: [401, 413, 415],
    },
  },
  '/orders/validate': {
    POST: {
      summary: 'Check a maker order without storing it',
      tag: 'Orders',
      query: EmptyQuery,
      body: { schema: MakerOrderBody, example: examples.makerOrder },
      response: { status: 200, data: ValidateOrderResponse, example: { hash: examples.orders[0]!.hash, signer: examples.makerOrder.signer, valid: true, problems: [] } },
      failures: [413, 415],
    },
  },
  '/orders/nonce': {
    GET: {
      summary: "The signer's next free order nonce",
      tag: 'Orders',
      query: AddressQuery,
      response: { status: 200, data: z.string().regex(/^(0|[1-9]\d*)$/), example: examples.nonce },
    },
  },
  '/collections': {
    GET: {
      summary: 'One collection',
      description: '`data` is null when no collection has this address.',
      tag: 'Collections',
      query: AddressQuery,
      response: { status: 200, data: CollectionResponse.nullable(), example: examples.collection },
    },
  },
  '/collections/stats': {
    GET: {
      summary: "A collection's statistics",
      description: '`data` is null when no collection has this address.',
      tag: 'Collections',
      query: AddressQuery,
      response: { status: 200, data: CollectionStatsResponse.nullable(), example: examples.collectionStats },
    },
  },
  '/collections/listing-rewards': {
    GET: {
      summary: 'Listing rewards: the top collections and their points',
      description: '`data` is null when listing rewards are disabled.',
      tag: 'Collections',
      query: EmptyQuery,
      response: { status: 200, data: z.array(ListingRewardResponse).nullable(), example: examples.listingRewards },
    },
  },
  '/indexer/status': {
    GET: {
      summary: 'Where the chain indexer is',
      description: 'Poll it before trusting a status change to be visible: head and indexed block, lag, the last event, whether this instance holds the indexer lease.',
      tag: 'Indexer',
      query: EmptyQuery,
      response: {
        status: 200,
        data: IndexerStatusResponse,
        example: {
          chainId: 1, headBlock: 21000012, headTimestamp: 1795000044, indexedBlock: 21000009, indexedBlockTimestamp: 1795000008,
          confirmations: 3, lagBlocks: 3, lagSeconds: 36, lastEventBlock: 21000007, lastEventTimestamp: 1794999984,
          updatedAt: 1795000010, running: true, holdsLease: true, lastError: null,
        },
      },
    },
  },
};
