// GET /api/v1/events in the OpenAPI document: the v1 event object (looksrare-v1-facts.md "Events
// and tokens routes") and the route's entry of the route table (./route-docs.ts).
import * as z from 'zod';
import { V1_EVENT_TYPES } from '../../domain/activity-query.js';
import { BYTES32_HEX } from '../../domain/bytes32-hex.js';
import { EventsQuery } from '../request-schemas.js';
import { CollectionResponse, OrderResponse } from '../response-schemas.js';
import examples from './examples.json' with { type: 'json' };
import type { RouteDoc } from './route-doc.js';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/).meta({ description: 'EIP-55 checksummed address' });

export const EventResponse = z
  .strictObject({
    id: z.int().min(1).meta({ description: 'increasing with every event: the paging cursor' }),
    type: z.enum(V1_EVENT_TYPES),
    from: address.nullable().meta({ description: 'the maker of an order, the seller of a sale, the sender of a transfer (the zero address for a mint)' }),
    to: address.nullable().meta({ description: 'the buyer of a sale, the receiver of a transfer; null for orders and cancels' }),
    hash: z.string().regex(BYTES32_HEX).nullable().meta({ description: 'the transaction hash; null for off-chain events (a new listing or offer)' }),
    createdAt: z.iso.datetime().meta({ description: 'the block time of a sale, else when the service recorded the event' }),
    collection: CollectionResponse,
    token: z
      .strictObject({ collectionAddress: address, tokenId: z.string().regex(/^(0|[1-9]\d*)$/) })
      .nullable()
      .meta({ description: 'null for a collection offer' }),
    order: OrderResponse.nullable().meta({ description: 'the order as it is now (its current status); null for transfers and mints' }),
  })
  .meta({ id: 'Event' });

const order = examples.orders[0]!;
const EXAMPLE = [
  {
    id: 4812,
    type: 'LIST',
    from: order.signer,
    to: null,
    hash: null,
    createdAt: '2026-06-01T11:58:20.000Z',
    collection: examples.collection,
    token: { collectionAddress: order.collectionAddress, tokenId: order.tokenId },
    order,
  },
];

export const EVENTS_ROUTE_DOC: RouteDoc = {
  summary: 'Market events, newest first',
  description:
    'Listings, offers, cancels, sales, transfers and mints, as v1 bots polled them (`collection=...&type=SALE`). ' +
    'Page with `pagination[cursor]` = the `id` of the last event of the previous page. Events a chain reorganisation undid are left out.',
  tag: 'Collections',
  query: EventsQuery,
  response: { status: 200, data: z.array(EventResponse), example: EXAMPLE },
  failures: [400],
};
