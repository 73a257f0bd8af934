// /api/v1/webhooks in the OpenAPI document (docs/webhooks.md): the entries of the route table
// (./route-docs.ts). Every route needs an API key (403 where the deployment has none); an
// endpoint of another key is 404.
import * as z from 'zod';
import { EmptyQuery } from '../request-schemas.js';
import {
  CreateWebhookBody,
  WebhookDeliveriesQuery,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
  WebhookIdBody,
  WebhookWithSecretResponse,
} from '../webhook-schemas.js';
import { DEMO_API_KEY } from '../../demo/demo-api-key.js';
import type { RouteDocs } from './route-doc.js';

const ENDPOINT = {
  id: '1',
  url: 'https://hooks.example.com/market',
  filter: { collection: '0x60E4d786628Fea6478F785A6d7e704777c86a7c6', types: ['SALE', 'LIST'] },
  status: 'ACTIVE',
  cursor: '4812',
  failureCount: 0,
  nextAttemptAt: '2026-06-01T12:00:00.000Z',
  lastAttemptAt: '2026-06-01T12:00:00.000Z',
  lastError: null,
  createdAt: '2026-06-01T11:00:00.000Z',
  updatedAt: '2026-06-01T12:00:00.000Z',
};
const WITH_SECRET = { endpoint: ENDPOINT, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
const KEY =
  'Needs `X-Looks-Api-Key`, one of `API_KEYS` or `WRITE_API_KEYS` (403 on a deployment with none; the demo has its own, ' +
  `\`${DEMO_API_KEY}\`); the endpoint must be one this key created (else 404).`;

const byId = (summary: string, what: string, data: z.ZodType, example: unknown) => ({
  POST: {
    summary,
    description: `${what} ${KEY}`,
    tag: 'Webhooks' as const,
    query: EmptyQuery,
    body: { schema: WebhookIdBody, example: { id: '1' } },
    response: { status: 200 as const, data, example },
    failures: [400, 401, 403, 404, 413, 415],
    apiKey: true,
  },
});

export const WEBHOOK_ROUTE_DOCS: RouteDocs = {
  '/webhooks': {
    GET: {
      summary: 'Your webhook endpoints',
      description: `The endpoints of the API key in the request. ${KEY}`,
      tag: 'Webhooks',
      query: EmptyQuery,
      response: { status: 200, data: z.array(WebhookEndpointResponse), example: [ENDPOINT] },
      failures: [401, 403],
      apiKey: true,
    },
    POST: {
      summary: 'Register a webhook endpoint',
      description:
        'The market events the filter selects (the filter of `Subscription.marketEvents`) are POSTed to `url`, one per request, signed as Standard Webhooks ' +
        '(`webhook-id` is the event id), from now on or after `after`. Answers the signing secret, shown only here and on rotation. ' +
        `Private and loopback targets are refused unless the deployment allows them. ${KEY}`,
      tag: 'Webhooks',
      query: EmptyQuery,
      body: { schema: CreateWebhookBody, example: { url: 'https://hooks.example.com/market', filter: { types: ['SALE', 'LIST'] } } },
      response: { status: 201, data: WebhookWithSecretResponse, example: WITH_SECRET },
      failures: [400, 401, 403, 413, 415],
      apiKey: true,
    },
  },
  '/webhooks/deliveries': {
    GET: {
      summary: "An endpoint's recent delivery attempts",
      description: `Newest first; the last 100 attempts are kept. ${KEY}`,
      tag: 'Webhooks',
      query: WebhookDeliveriesQuery,
      response: {
        status: 200,
        data: z.array(WebhookDeliveryResponse),
        example: [{ id: '7', eventIds: ['4812'], attempt: 1, statusCode: 204, error: null, durationMs: 35, at: '2026-06-01T12:00:00.000Z' }],
      },
      failures: [400, 401, 403, 404],
      apiKey: true,
    },
  },
  '/webhooks/pause': byId('Pause an endpoint', 'Stops deliveries; the cursor stays, so resuming delivers what happened meanwhile.', WebhookEndpointResponse, { ...ENDPOINT, status: 'PAUSED' }),
  '/webhooks/resume': byId('Resume or re-enable an endpoint', 'ACTIVE again, from PAUSED or DISABLED, from its cursor: nothing is lost.', WebhookEndpointResponse, ENDPOINT),
  '/webhooks/delete': byId('Delete an endpoint', 'Deletes the endpoint and its delivery log; answers its id.', z.strictObject({ id: z.string() }), { id: '1' }),
  '/webhooks/rotate-secret': byId('Rotate the signing secret', 'A new secret signs from the next request on; the old one stops verifying.', WebhookWithSecretResponse, WITH_SECRET),
};
