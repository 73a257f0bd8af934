// POST /api/v1/orders (201 with the stored Order, spec 2.2) and POST /api/v1/orders/validate
// (200 with the dry run). The body is the MakerOrder of spec 2.3, handed to the submission service
// as read: the service parses and validates it once (shape problems are listed all at once, like
// every other problem). No GraphQL execution on this path: the JSON is built by orderToV1Json,
// byte-identical to what the createOrder/validateOrder fields answer.
import type { Context } from '../../context.js';
import type { OrderProblem } from '../../domain/order-problems.js';
import { requireWriteKey } from '../../services/api-key-guards.js';
import { OrderRejectedError } from '../../services/order-rejected.js';
import { fail, ok, type RestReply } from '../envelope.js';
import { orderToV1Json } from '../order-json.js';
import type { Query } from '../query-string.js';
import { readJsonBody } from '../read-json-body.js';

const asFieldProblems = (problems: OrderProblem[]) => problems.map((p) => ({ field: p.field ?? 'order', code: p.code, message: p.message }));
const asProblems = (problems: OrderProblem[]) => problems.map((p) => ({ code: p.code, field: p.field, message: p.message }));

export async function createOrder(_query: Query, ctx: Context, request: Request): Promise<RestReply> {
  requireWriteKey(ctx); // 401 before looking at the body
  const body = await readJsonBody(request, ctx.services.deps.config.maxBodyBytes);
  try {
    const order = await ctx.services.submissions.createOrder(body);
    return ok(orderToV1Json(order, ctx.now()), 201);
  } catch (err) {
    if (err instanceof OrderRejectedError) return fail(400, err.message, asFieldProblems(err.problems));
    throw err;
  }
}

export async function validateOrder(_query: Query, ctx: Context, request: Request): Promise<RestReply> {
  const body = await readJsonBody(request, ctx.services.deps.config.maxBodyBytes);
  const v = await ctx.services.submissions.validateOrder(body);
  // v1 clients read the recovered address as `signer`
  return ok({ hash: v.hash, signer: v.recoveredSigner, valid: v.valid, problems: asProblems(v.problems), warnings: v.warnings });
}
