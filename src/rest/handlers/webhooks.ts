// /api/v1/webhooks: the webhook endpoints of the API key in X-Looks-Api-Key (docs/webhooks.md),
// the same service calls as the GraphQL fields. The router has no path parameters, so an
// endpoint is named by `id` in the body (POST) or the query (GET).
import type { Context } from '../../context.js';
import { normalizeAddress } from '../../domain/address.js';
import { badRequest } from '../../domain/errors.js';
import { requireApiKeyOwner } from '../../services/api-key-guards.js';
import { ok } from '../envelope.js';
import type { Query } from '../query-string.js';
import { readJsonBody } from '../read-json-body.js';
import { cleanQueryValues, problemsFrom } from '../request-schemas.js';
import { CreateWebhookBody, deliveryJson, endpointJson, WebhookDeliveriesQuery, WebhookIdBody } from '../webhook-schemas.js';

async function body<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } }, ctx: Context, request: Request): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(request, ctx.services.deps.config.maxBodyBytes));
  if (!parsed.success) throw badRequest(problemsFrom(parsed.error));
  return parsed.data;
}

const address = (a: string | undefined) => (a === undefined ? undefined : normalizeAddress(a)!);

export async function listWebhooks(_query: Query, ctx: Context) {
  return ok((await ctx.services.webhooks.list(requireApiKeyOwner(ctx))).map(endpointJson));
}

export async function createWebhook(_query: Query, ctx: Context, request: Request) {
  const owner = requireApiKeyOwner(ctx); // 401 before looking at the body
  const b = await body(CreateWebhookBody, ctx, request);
  const f = b.filter ?? {};
  const filter = { ...f, collection: address(f.collection), account: address(f.account), owner: address(f.owner) };
  const { endpoint, secret } = await ctx.services.webhooks.create(owner, { url: b.url, filter, after: b.after });
  return ok({ endpoint: endpointJson(endpoint), secret }, 201);
}

export async function webhookDeliveries(query: Query, ctx: Context) {
  const owner = requireApiKeyOwner(ctx);
  const checked = WebhookDeliveriesQuery.safeParse(cleanQueryValues(query));
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  const first = checked.data.first === undefined ? 20 : Number(checked.data.first);
  return ok((await ctx.services.webhooks.deliveries(owner, checked.data.id, first)).map(deliveryJson));
}

/** The POST routes that name one endpoint: pause, resume, delete, rotate-secret. */
const byId =
  <R>(run: (ctx: Context, owner: string, id: string) => Promise<R>) =>
  async (_query: Query, ctx: Context, request: Request) => {
    const owner = requireApiKeyOwner(ctx);
    const { id } = await body(WebhookIdBody, ctx, request);
    return ok(await run(ctx, owner, id));
  };

export const pauseWebhook = byId(async (ctx, owner, id) => endpointJson(await ctx.services.webhooks.pause(owner, id)));
export const resumeWebhook = byId(async (ctx, owner, id) => endpointJson(await ctx.services.webhooks.resume(owner, id)));
export const deleteWebhook = byId(async (ctx, owner, id) => ({ id: await ctx.services.webhooks.remove(owner, id) }));
export const rotateWebhookSecret = byId(async (ctx, owner, id) => {
  const { endpoint, secret } = await ctx.services.webhooks.rotateSecret(owner, id);
  return { endpoint: endpointJson(endpoint), secret };
});
