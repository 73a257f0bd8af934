// The v1 REST routes (looksrare-v1-facts.md "Paths and envelope") and what serves each method.
import type { Context } from '../context.js';
import { searchCollections } from './handlers/collection-search.js';
import { getFulfillment } from './handlers/fulfillment.js';
import { listEvents } from './handlers/events.js';
import { getIndexerStatus } from './handlers/indexer-status.js';
import { listOrders } from './handlers/orders.js';
import { getCollection, getCollectionStats, getListingRewards, getNonce } from './handlers/reads.js';
import { createOrder, validateOrder } from './handlers/submit-order.js';
import { getToken } from './handlers/tokens.js';
import { getCollectionAttributes, refreshTokenMetadata } from './handlers/token-metadata.js';
import { createWebhook, deleteWebhook, listWebhooks, pauseWebhook, resumeWebhook, rotateWebhookSecret, webhookDeliveries } from './handlers/webhooks.js';
import type { RestReply } from './envelope.js';
import type { Query } from './query-string.js';

export type RestHandler = (query: Query, ctx: Context, request: Request) => Promise<RestReply>;
/** A GET handler reads the query string only (the read lane calls it without a fetch Request). */
export type RestReadHandler = (query: Query, ctx: Context) => Promise<RestReply>;

export const API_PREFIX = '/api/v1';

export const ROUTES: Record<string, { GET?: RestReadHandler; POST?: RestHandler }> = {
  '/orders': { GET: listOrders, POST: createOrder },
  '/orders/validate': { POST: validateOrder },
  '/orders/nonce': { GET: getNonce },
  '/orders/fulfillment': { GET: getFulfillment },
  '/collections': { GET: getCollection },
  '/collections/stats': { GET: getCollectionStats },
  '/collections/search': { GET: searchCollections },
  '/collections/listing-rewards': { GET: getListingRewards },
  '/events': { GET: listEvents },
  '/collections/attributes': { GET: getCollectionAttributes },
  '/tokens': { GET: getToken },
  '/tokens/refresh': { POST: refreshTokenMetadata },
  '/indexer/status': { GET: getIndexerStatus },
  '/webhooks': { GET: listWebhooks, POST: createWebhook },
  '/webhooks/deliveries': { GET: webhookDeliveries },
  '/webhooks/pause': { POST: pauseWebhook },
  '/webhooks/resume': { POST: resumeWebhook },
  '/webhooks/delete': { POST: deleteWebhook },
  '/webhooks/rotate-secret': { POST: rotateWebhookSecret },
};

/** The route of a request path under API_PREFIX (a trailing slash ignored), if there is one. */
export function routeFor(pathname: string): (typeof ROUTES)[string] | undefined {
  return ROUTES[pathname.slice(API_PREFIX.length).replace(/\/+$/, '') || '/'];
}
