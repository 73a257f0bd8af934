// The webhook routes' request bodies and answers as zod schemas: the handlers validate with them
// and the OpenAPI document (openapi/webhooks-doc.ts) is generated from them.
import * as z from 'zod';
import { MARKET_EVENT_TYPES } from '../domain/activity-query.js';
import { WEBHOOK_STATUSES } from '../domain/webhook-endpoint.js';
import type { WebhookDelivery, WebhookEndpoint } from '../services/webhook-endpoints.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const address = (description: string) => z.string().regex(ADDRESS, { error: 'must be 0x followed by 40 hexadecimal digits' }).meta({ description });
const uint = (description: string) =>
  z.string().regex(/^(0|[1-9]\d{0,77})$/, { error: 'must be a decimal integer string' }).meta({ description: `${description} (uint256 as a decimal string)` });
const id = z.string().regex(/^[1-9]\d{0,17}$/, { error: 'must be an endpoint id' }).meta({ description: 'the endpoint id', example: '1' });

/** The filter of Subscription.marketEvents, field for field. */
export const WebhookFilterSchema = z
  .strictObject({
    collection: address('a collection').optional(),
    tokenId: uint('with collection').optional(),
    types: z.array(z.enum(MARKET_EVENT_TYPES)).optional().meta({ description: 'any of these; default: all, RETRACTED included' }),
    account: address('as sender or receiver (the maker of an order)').optional(),
    minPrice: uint('wei, inclusive').optional(),
    maxPrice: uint('wei, inclusive').optional(),
    owner: address('events on orders for tokens this address holds now').optional(),
  })
  .meta({ id: 'WebhookFilter', description: 'Which events an endpoint receives; every field narrows' });

export const CreateWebhookBody = z.strictObject({
  url: z.string().meta({ description: 'http(s); loopback and private addresses are refused unless the deployment allows them' }),
  filter: WebhookFilterSchema.optional(),
  after: z.string().optional().meta({ description: 'deliver the events after this event id ("0": the whole log kept); default: from now on' }),
});

export const WebhookIdBody = z.strictObject({ id });

export const WebhookDeliveriesQuery = z.object({
  id,
  first: z.string().regex(/^\d{1,3}$/, { error: 'must be a whole number from 1 to 100' }).optional().meta({ description: 'how many, newest first (1 to 100, default 20)' }),
});

const time = z.iso.datetime();

export const WebhookEndpointResponse = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    filter: WebhookFilterSchema,
    status: z.enum(WEBHOOK_STATUSES),
    cursor: z.string().meta({ description: 'the last event id delivered or passed over' }),
    failureCount: z.int().min(0),
    nextAttemptAt: time,
    lastAttemptAt: time.nullable(),
    lastError: z.string().nullable(),
    createdAt: time,
    updatedAt: time,
  })
  .meta({ id: 'WebhookEndpoint' });

export const WebhookWithSecretResponse = z
  .strictObject({ endpoint: WebhookEndpointResponse, secret: z.string().regex(/^whsec_/).meta({ description: 'whsec_<base64>: shown only on creation and rotation' }) })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const WebhookDeliveryResponse = z
  .strictObject({
    id: z.string(),
    eventIds: z.array(z.string()),
    attempt: z.int().min(0),
    statusCode: z.int().nullable(),
    error: z.string().nullable(),
    durationMs: z.int().min(0),
    at: time,
  })
  .meta({ id: 'WebhookDelivery' });

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export const endpointJson = (e: WebhookEndpoint) => ({
  ...e,
  nextAttemptAt: e.nextAttemptAt.toISOString(),
  lastAttemptAt: iso(e.lastAttemptAt),
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
});

export const deliveryJson = (d: WebhookDelivery) => ({ ...d, at: d.at.toISOString() });
