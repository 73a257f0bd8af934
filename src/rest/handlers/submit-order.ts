// POST /api/v1/orders (201 with the stored Order, spec 2.2) and POST /api/v1/orders/validate
// (200 with the dry run). The body is the MakerOrder of spec 2.3. Shape problems are listed
// here, all at once; everything else is decided by the createOrder/validateOrder fields.
import type { Context } from '../../context.js';
import { parseMakerOrderInput, type ParsedMakerOrderInput } from '../../domain/maker-order-input.js';
import type { OrderProblem } from '../../domain/order-problems.js';
import type { MakerOrderInput } from '../../gql/graphql.js';
import { requireWriteKey } from '../../schema/admin-guard.js';
import { RestCreateOrderDocument, RestValidateOrderDocument } from '../documents.js';
import { fail, ok } from '../envelope.js';
import { runDocument } from '../execute.js';
import type { Query } from '../query-string.js';
import { readJsonBody } from '../read-json-body.js';

const asFieldProblems = (problems: OrderProblem[]) => problems.map((p) => ({ field: p.field ?? 'order', code: p.code, message: p.message }));

function refused(message: string, problems: OrderProblem[]): Response {
  return fail(400, message, asFieldProblems(problems));
}

/** The parsed body as GraphQL variables: canonical strings, params exactly as sent (their form decides their ABI type). */
function toVariables(p: ParsedMakerOrderInput, raw: Record<string, unknown>): MakerOrderInput {
  return {
    isOrderAsk: p.isOrderAsk,
    signer: p.signer,
    collection: p.collection,
    price: p.price.toString(),
    tokenId: p.tokenId === null ? null : p.tokenId.toString(),
    amount: p.amount.toString(),
    strategy: p.strategy,
    currency: p.currency,
    nonce: p.nonce.toString(),
    startTime: Number(p.startTime),
    endTime: Number(p.endTime),
    minPercentageToAsk: Number(p.minPercentageToAsk),
    params: Array.isArray(raw.params) ? (raw.params as MakerOrderInput['params']) : [],
    signature: p.signature,
  };
}

async function parseBody(request: Request, ctx: Context): Promise<{ input: MakerOrderInput } | { problems: OrderProblem[] }> {
  const body = await readJsonBody(request, ctx.services.deps.config.maxBodyBytes);
  const parsed = parseMakerOrderInput(body);
  if (!parsed.ok) return { problems: parsed.problems };
  return { input: toVariables(parsed.value, body as Record<string, unknown>) };
}

export async function createOrder(_query: Query, ctx: Context, request: Request): Promise<Response> {
  requireWriteKey(ctx); // 401 before looking at the body
  const body = await parseBody(request, ctx);
  if ('problems' in body) return refused(body.problems[0]!.message, body.problems);
  const { createOrder: result } = await runDocument(RestCreateOrderDocument, { input: body.input }, ctx);
  if (result.__typename === 'OrderRejected') return refused(result.message, result.problems as OrderProblem[]);
  return ok(result.order, 201);
}

export async function validateOrder(_query: Query, ctx: Context, request: Request): Promise<Response> {
  const body = await parseBody(request, ctx);
  if ('problems' in body) return ok({ hash: null, signer: null, valid: false, problems: body.problems });
  const { validateOrder: result } = await runDocument(RestValidateOrderDocument, { input: body.input }, ctx);
  return ok(result);
}
