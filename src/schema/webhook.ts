// Webhook endpoints (docs/webhooks.md): the market event log POSTed to a URL, signed (Standard
// Webhooks), at least once. An endpoint belongs to the API key (X-Looks-Api-Key) that created it;
// every field here needs that key and sees only its endpoints. The filter is the one
// Subscription.marketEvents takes.
import { MarketEventTypeEnum } from './activity.js';
import type { MarketEventStreamFilter } from '../domain/market-event-stream.js';
import { WEBHOOK_STATUSES } from '../domain/webhook-endpoint.js';
import { requireApiKeyOwner } from '../services/api-key-guards.js';
import type { WebhookDelivery as DeliveryShape, WebhookEndpoint as EndpointShape } from '../services/webhook-endpoints.js';
import { builder } from './builder.js';
import { MarketEventStreamFilterInput } from './market-event-stream.js';

const seconds = (d: Date | null) => (d === null ? null : Math.floor(d.getTime() / 1000));

const WebhookStatusEnum = builder.enumType('WebhookEndpointStatus', {
  description: 'ACTIVE delivers; PAUSED by its owner; DISABLED after failing for about a day (resume re-enables it, from its cursor)',
  values: WEBHOOK_STATUSES,
});

const WebhookFilter = builder.objectRef<MarketEventStreamFilter>('WebhookFilter').implement({
  description: 'Which events an endpoint receives: the filter of Subscription.marketEvents as registered',
  fields: (t) => ({
    collection: t.exposeString('collection', { nullable: true }),
    tokenId: t.exposeString('tokenId', { nullable: true }),
    types: t.field({ type: [MarketEventTypeEnum], nullable: true, resolve: (f) => (f.types ? [...f.types] : null) }),
    account: t.exposeString('account', { nullable: true }),
    minPrice: t.exposeString('minPrice', { nullable: true }),
    maxPrice: t.exposeString('maxPrice', { nullable: true }),
    owner: t.exposeString('owner', { nullable: true }),
  }),
});

const WebhookEndpoint = builder.objectRef<EndpointShape>('WebhookEndpoint').implement({
  description: 'A URL the market event log is POSTed to, one signed event per request',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    filter: t.field({ type: WebhookFilter, resolve: (e) => e.filter }),
    status: t.field({ type: WebhookStatusEnum, resolve: (e) => e.status }),
    cursor: t.exposeID('cursor', { description: 'the last event id delivered or passed over; delivery goes on after it' }),
    failureCount: t.exposeInt('failureCount', { description: 'consecutive failed attempts of the next event' }),
    nextAttemptAt: t.field({ type: 'UnixTime', resolve: (e) => seconds(e.nextAttemptAt)! }),
    lastAttemptAt: t.field({ type: 'UnixTime', nullable: true, resolve: (e) => seconds(e.lastAttemptAt) }),
    lastError: t.exposeString('lastError', { nullable: true }),
    createdAt: t.field({ type: 'UnixTime', resolve: (e) => seconds(e.createdAt)! }),
    updatedAt: t.field({ type: 'UnixTime', resolve: (e) => seconds(e.updatedAt)! }),
  }),
});

const WebhookEndpointWithSecret = builder.objectRef<{ endpoint: EndpointShape; secret: string }>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint and its signing secret, shown only here (on creation and rotation)',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpoint, resolve: (r) => r.endpoint }),
    secret: t.exposeString('secret', { description: 'whsec_<base64>: verify deliveries with it (standardwebhooks Webhook.verify)' }),
  }),
});

const WebhookDelivery = builder.objectRef<DeliveryShape>('WebhookDelivery').implement({
  description: 'One attempt to deliver to an endpoint',
  fields: (t) => ({
    id: t.exposeID('id'),
    eventIds: t.exposeIDList('eventIds'),
    attempt: t.exposeInt('attempt', { description: '1 for the first try of these events, then counting' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "the receiver's HTTP status; null when it did not answer" }),
    error: t.exposeString('error', { nullable: true }),
    durationMs: t.exposeInt('durationMs'),
    at: t.field({ type: 'UnixTime', resolve: (d) => seconds(d.at)! }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'http(s); private and loopback addresses are refused unless the deployment allows them' }),
    filter: t.field({ type: MarketEventStreamFilterInput, required: false }),
    after: t.id({ required: false, description: 'deliver the events after this eventId ("0": the whole log kept); default: from now on' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpoint],
    description: 'The webhook endpoints of the API key in X-Looks-Api-Key',
    resolve: (_root, _args, ctx) => ctx.services.webhooks.list(requireApiKeyOwner(ctx)),
  }),
  webhookDeliveries: t.field({
    type: [WebhookDelivery],
    description: 'Recent attempts of one of your endpoints, newest first (the last 100 are kept)',
    args: { endpointId: t.arg.id({ required: true }), first: t.arg.int({ required: false, defaultValue: 20 }) },
    resolve: (_root, args, ctx) => ctx.services.webhooks.deliveries(requireApiKeyOwner(ctx), String(args.endpointId), args.first ?? 20),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecret,
    description: 'Registers a URL for the market events the filter selects, from now on (or after `after`)',
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.webhooks.create(requireApiKeyOwner(ctx), { url: input.url, filter: input.filter, after: input.after?.toString() }),
  }),
  pauseWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    description: 'Stops deliveries; the cursor stays, so resuming delivers what happened meanwhile',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.webhooks.pause(requireApiKeyOwner(ctx), String(args.id)),
  }),
  resumeWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    description: 'ACTIVE again (from PAUSED or DISABLED), from its cursor: nothing is lost',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.webhooks.resume(requireApiKeyOwner(ctx), String(args.id)),
  }),
  deleteWebhookEndpoint: t.field({
    type: 'ID',
    description: 'Deletes the endpoint and its delivery log; answers its id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.webhooks.remove(requireApiKeyOwner(ctx), String(args.id)),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointWithSecret,
    description: 'A new signing secret, used from the next request on (the old one stops verifying)',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.webhooks.rotateSecret(requireApiKeyOwner(ctx), String(args.id)),
  }),
}));
