// The shape of what the OpenAPI document says about one route (./route-docs.ts holds them all;
// ./events-doc.ts and ./webhooks-doc.ts hold some routes' own).
import type * as z from 'zod';

export interface RouteDoc {
  summary: string;
  description?: string;
  tag: 'Orders' | 'Collections' | 'Indexer' | 'Webhooks';
  query: z.ZodObject;
  body?: { schema: z.ZodType; example: unknown };
  response: { status: 200 | 201; data: z.ZodType; example: unknown };
  /** failure statuses the route answers besides those of every route (429, 500, 503) */
  failures: number[];
  /** needs X-Looks-Api-Key when the deployment sets WRITE_API_KEYS */
  writeKey?: boolean;
  /** needs an API key (X-Looks-Api-Key) always: webhook endpoints belong to one */
  apiKey?: boolean;
  /** reads the chain: answers 503 on a deployment without RPC_URL (x-requires-chain) */
  requiresChain?: boolean;
}

export type RouteDocs = Record<string, Partial<Record<'GET' | 'POST', RouteDoc>>>;
