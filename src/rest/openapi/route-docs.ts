// What the OpenAPI document says about each v1 route: the request schemas the handlers validate
// with, the response schemas, the statuses it can answer, and which demo answer is its example.
// Keyed like ROUTES in ../routes.ts; test/rest/openapi.test.ts fails when the two tables differ.
// The order examples are a parameter: the served document signs a fresh one (order-examples.ts).
import * as z from 'zod';
import { AddressQuery, CollectionAttributesQuery, CollectionSearchQuery, EmptyQuery, FulfillmentQuery, OrdersQuery, TokenRefreshBody, TokensQuery } from '../request-schemas.js';
import {
  MetadataRefreshResponse,
  TraitPanelResponse,
  CollectionResponse,
  CollectionStatsResponse,
  FulfillmentResponse,
  IndexerStatusResponse,
  ListingRewardResponse,
  MakerOrderBody,
  OrderResponse,
  TokenResponse,
  ValidateOrderResponse,
} from '../response-schemas.js';
import { EVENTS_ROUTE_DOC } from './events-doc.js';
import examples from './examples.json' with { type: 'json' };
import { FULFILLMENT_EXAMPLE } from './fulfillment-example.js';
import { TEMPLATE_ORDER_EXAMPLES, type OrderExamples } from './order-examples.js';
import { TOKEN_EXAMPLE } from './token-example.js';
import { WEBHOOK_ROUTE_DOCS } from './webhooks-doc.js';
import type { RouteDocs } from './route-doc.js';

export type { RouteDoc, RouteDocs } from './route-doc.js';


export function routeDocs(orderExamples: OrderExamples): RouteDocs {
  return {
    '/orders': {
      GET: {
        summary: 'List orders',
        description: 'Filtered, sorted, keyset-paged orders. Paging with the cursor returns every matching order exactly once.',
        tag: 'Orders',
        query: OrdersQuery,
        response: { status: 200, data: z.array(OrderResponse), example: examples.orders },
        failures: [400],
      },
      POST: {
        summary: 'Submit a signed maker order',
        description:
          'Answers 201 with the stored order, or 400 whose `errors[]` lists every problem with a code from the closed `OrderProblemCode` set. ' +
          'With `WRITE_API_KEYS` set, needs `X-Looks-Api-Key`. The body is JSON, sent as `Content-Type: application/json` (anything else: 415). ' +
          'The example is signed by a demo wallet when this document is served: on the demo marketplace it is stored as is (reload for a new one).',
        tag: 'Orders',
        query: EmptyQuery,
        body: { schema: MakerOrderBody, example: orderExamples.makerOrder },
        response: { status: 201, data: OrderResponse, example: orderExamples.order },
        failures: [400, 401, 413, 415],
        writeKey: true,
      },
    },
    '/orders/validate': {
      POST: {
        summary: 'Check a maker order without storing it',
        description:
          'Every rule POST /orders applies, nothing stored: 200 with `valid` and every problem. 400 only for a body that is not JSON. ' +
          'The body is JSON, sent as `Content-Type: application/json` (anything else: 415).',
        tag: 'Orders',
        query: EmptyQuery,
        body: { schema: MakerOrderBody, example: orderExamples.makerOrder },
        response: { status: 200, data: ValidateOrderResponse, example: orderExamples.validation },
        failures: [400, 413, 415],
      },
    },
    '/orders/nonce': {
      GET: {
        summary: "The signer's next free order nonce",
        tag: 'Orders',
        query: AddressQuery,
        response: { status: 200, data: z.string().regex(/^(0|[1-9]\d*)$/), example: examples.nonce },
        failures: [400],
      },
    },
    '/orders/fulfillment': {
      GET: {
        summary: 'How a taker fills a live order',
        description:
          'The v1 TakerOrder and the calldata of the exchange function that fills the order (a listing: `matchAskWithTakerBidUsingETHAndWETH`, or `matchAskWithTakerBid` with `payWith=WETH`; an offer: `matchBidWithTakerAsk`), ' +
          'the value to send, and the steps the taker still needs (wrap or approve WETH, approve the transfer manager), read on chain at `blockNumber`. ' +
          '400: bad parameters, a collection offer without `tokenId`, a `tokenId` or `payWith` the order does not take. 404: no such order. ' +
          '409: the order is not live (`errors[0].code`: its status, NOT_STARTED, STRATEGY_NOT_WHITELISTED, UNSUPPORTED_STRATEGY). 503: the chain is not configured (no `RPC_URL`) or not answering.',
        tag: 'Orders',
        query: FulfillmentQuery,
        response: { status: 200, data: FulfillmentResponse, example: FULFILLMENT_EXAMPLE.response },
        failures: [400, 404, 409],
        requiresChain: true,
      },
    },
    '/collections': {
      GET: {
        summary: 'One collection',
        description: '`data` is null when no collection has this address.',
        tag: 'Collections',
        query: AddressQuery,
        response: { status: 200, data: CollectionResponse.nullable(), example: examples.collection },
        failures: [400],
      },
    },
    '/collections/stats': {
      GET: {
        summary: "A collection's statistics",
        description: '`data` is null when no collection has this address.',
        tag: 'Collections',
        query: AddressQuery,
        response: { status: 200, data: CollectionStatsResponse.nullable(), example: examples.collectionStats },
        failures: [400],
      },
    },
    '/collections/search': {
      GET: {
        summary: 'Search collections by name, symbol or address',
        description:
          'Best first: the collection whose address `q` is (any letter case), then a name or symbol equal to `q`, one starting with it, then close spellings ' +
          '(trigram similarity: a misspelt name still finds its collection); among equally good matches verified collections first, then by 24 h volume. ' +
          '`data` is an empty array when nothing matches.',
        tag: 'Collections',
        query: CollectionSearchQuery,
        response: { status: 200, data: z.array(CollectionResponse), example: examples.collectionSearch },
        failures: [400],
      },
    },
    '/collections/listing-rewards': {
      GET: {
        summary: 'Listing rewards: the top collections and their points',
        description: '`data` is null when listing rewards are disabled.',
        tag: 'Collections',
        query: EmptyQuery,
        response: { status: 200, data: z.array(ListingRewardResponse).nullable(), example: examples.listingRewards },
        failures: [],
      },
    },
    '/tokens': {
      GET: {
        summary: 'One token: metadata and traits, holders, best live ask and bid, last sale',
        description:
          '`data` is null when the index knows no such token (never held, named by no order). Name, image and attributes come from its token URI ' +
          '(null until read); each attribute carries `count`, the collection\'s tokens with that value. The best ask is the cheapest live fixed-price listing; ' +
          'the best bid the highest live offer that can fill the token, its token offers or the collection offers.',
        tag: 'Collections',
        query: TokensQuery,
        response: { status: 200, data: TokenResponse.nullable(), example: TOKEN_EXAMPLE.response },
        failures: [400],
      },
    },
    '/collections/attributes': {
      GET: {
        summary: "A collection's trait panel",
        description:
          'Every trait type (in code-unit order) with its values, most common first: how many tokens carry each, their share of the tokens showing metadata, ' +
          'how many are listed, the cheapest live listing and the best live offer among them, read from the book at request time.',
        tag: 'Collections',
        query: CollectionAttributesQuery,
        response: { status: 200, data: TraitPanelResponse, example: examples.collectionAttributes },
        failures: [400, 404],
      },
    },
    '/tokens/refresh': {
      POST: {
        summary: "Read a token's metadata again, or a whole collection's",
        description:
          'Queues a new read of the token (with `tokenId`) or of every known token of the collection (without). Once per cooldown per token ' +
          '(METADATA_REFRESH_COOLDOWN_SECONDS) and per collection (METADATA_COLLECTION_REFRESH_COOLDOWN_SECONDS): within it `queued` is false and ' +
          '`nextRefreshAllowedAt` says when the next one is accepted.',
        tag: 'Collections',
        query: EmptyQuery,
        body: { schema: TokenRefreshBody, example: { collection: '0xC9573CD9E8D6601AF3EcA06CEC3d7d4378fBAE56', tokenId: TOKEN_EXAMPLE.tokenId } },
        response: { status: 200, data: MetadataRefreshResponse, example: { queued: true, tokens: 1, nextRefreshAllowedAt: 1795000060 } },
        failures: [400, 404, 413, 415],
      },
    },
    '/events': { GET: EVENTS_ROUTE_DOC },
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
            updatedAt: 1795000010, running: true, holdsLease: true,
          },
        },
        failures: [],
      },
    },
    ...WEBHOOK_ROUTE_DOCS,
  };
}

/** The table with the fixed order examples (a demo order, as a template): for tests and tools. */
export const ROUTE_DOCS = routeDocs(TEMPLATE_ORDER_EXAMPLES);
