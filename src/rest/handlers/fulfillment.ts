// GET /api/v1/orders/fulfillment: how a taker fills one live order, in the v1 envelope. Amounts
// are decimal strings, as everywhere in /api/v1; the shape is GraphQL's `fulfillment`.
import { badRequest } from '../../domain/errors.js';
import type { Context } from '../../context.js';
import type { Transaction } from '../../domain/fulfillment.js';
import type { Fulfillment } from '../../services/fulfillment.js';
import { ok, type RestReply } from '../envelope.js';
import type { Query } from '../query-string.js';
import { cleanQueryValues, FulfillmentQuery, problemsFrom } from '../request-schemas.js';

const transactionJson = (t: Transaction) => ({ to: t.to, data: t.data, value: t.value.toString() });

export function fulfillmentToJson(f: Fulfillment) {
  const t = f.takerOrder;
  return {
    orderHash: f.orderHash,
    blockNumber: f.blockNumber,
    function: f.function,
    takerOrder: { isOrderAsk: t.isOrderAsk, taker: t.taker, price: t.price.toString(), tokenId: t.tokenId.toString(), minPercentageToAsk: Number(t.minPercentageToAsk), params: t.params },
    transaction: transactionJson(f.transaction),
    steps: f.steps.map((s) => ({ code: s.code, message: s.message, transaction: s.transaction && transactionJson(s.transaction) })),
    ready: f.ready,
  };
}

export async function getFulfillment(query: Query, ctx: Context): Promise<RestReply> {
  const checked = FulfillmentQuery.safeParse(cleanQueryValues({ hash: query.hash, taker: query.taker, tokenId: query.tokenId, payWith: query.payWith }));
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  const q = checked.data;
  const f = await ctx.services.fulfillment.fulfillment({ hash: q.hash, taker: q.taker, tokenId: q.tokenId === undefined ? null : BigInt(q.tokenId), payWith: q.payWith ?? null });
  return ok(fulfillmentToJson(f));
}
