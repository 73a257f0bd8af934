// GET /api/v1/orders: v1 query parameters -> the `orders` GraphQL field.
import type { Context } from '../../context.js';
import { parseOrderQuery, type OrderQuery } from '../../domain/order-query.js';
import type { RestOrdersQueryVariables } from '../../gql/graphql.js';
import { RestOrdersDocument } from '../documents.js';
import { fail, ok } from '../envelope.js';
import { runDocument } from '../execute.js';
import { listParam, objectParam, type Query } from '../query-string.js';

function toVariables(q: OrderQuery): RestOrdersQueryVariables {
  const f = q.filter;
  const str = (v: bigint | undefined) => (v === undefined ? undefined : v.toString());
  return {
    filter: {
      hash: f.hash,
      isOrderAsk: f.isOrderAsk,
      collection: f.collection,
      tokenId: str(f.tokenId),
      signer: f.signer,
      strategy: f.strategy,
      currency: f.currency,
      nonce: str(f.nonce),
      price: f.priceMin !== undefined || f.priceMax !== undefined ? { min: str(f.priceMin), max: str(f.priceMax) } : undefined,
      startTime: f.startTime === undefined ? undefined : Number(f.startTime),
      endTime: f.endTime === undefined ? undefined : Number(f.endTime),
      status: f.statuses,
    },
    sort: q.sort,
    first: q.first,
    after: q.cursor,
  };
}

export async function listOrders(query: Query, ctx: Context): Promise<Response> {
  const price = objectParam(query, 'price');
  const pagination = objectParam(query, 'pagination');
  const parsed = parseOrderQuery({
    hash: query.hash,
    isOrderAsk: query.isOrderAsk,
    collection: query.collection,
    tokenId: query.tokenId,
    signer: query.signer,
    strategy: query.strategy,
    currency: query.currency,
    nonce: query.nonce,
    priceMin: price.min,
    priceMax: price.max,
    startTime: query.startTime,
    endTime: query.endTime,
    status: listParam(query, 'status'),
    sort: query.sort,
    first: pagination.first,
    cursor: pagination.cursor,
  });
  if (!parsed.ok) {
    const first = parsed.problems[0]!;
    const message = parsed.problems.length === 1 ? `Invalid ${first.field}: ${first.message}` : `Invalid request: ${parsed.problems.length} problems`;
    return fail(400, message, parsed.problems);
  }
  const data = await runDocument(RestOrdersDocument, toVariables(parsed.value), ctx);
  return ok(data.orders.edges.map((e) => e.node));
}
