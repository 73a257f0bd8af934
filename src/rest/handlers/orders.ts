// GET /api/v1/orders: v1 query parameters -> the `orders` GraphQL field.
import type { Context } from '../../context.js';
import { badRequest } from '../../domain/errors.js';
import { parseOrderQuery, type OrderQuery } from '../../domain/order-query.js';
import type { RestOrdersQueryVariables } from '../../gql/graphql.js';
import { renderOrderList, selectionAt } from '../../read-engine/read-engine.js';
import { schema } from '../../schema/index.js';
import { RestOrdersDocument } from '../documents.js';
import { ok, okJson, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import { listParam, objectParam, type Query } from '../query-string.js';
import { cleanQueryValues, OrdersQuery, problemsFrom } from '../request-schemas.js';

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

/** The order fields of the v1 Order (RestOrderFields), rendered by the read engine. */
const REST_ORDER = selectionAt(RestOrdersDocument, ['orders', 'edges', 'node']);

export async function listOrders(query: Query, ctx: Context): Promise<RestReply> {
  // The documented parameter schema first (the OpenAPI document is generated from it), then the
  // domain parser converts to bigints and checks cross-field rules (price[min] <= price[max]).
  const checked = OrdersQuery.safeParse(
    cleanQueryValues({ ...query, 'status[]': undefined, status: listParam(query, 'status'), price: objectParam(query, 'price'), pagination: objectParam(query, 'pagination') }),
  );
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  const q = checked.data;
  const parsed = parseOrderQuery({
    hash: q.hash,
    isOrderAsk: q.isOrderAsk,
    collection: q.collection,
    tokenId: q.tokenId,
    signer: q.signer,
    strategy: q.strategy,
    currency: q.currency,
    nonce: q.nonce,
    priceMin: q.price?.min,
    priceMax: q.price?.max,
    startTime: q.startTime,
    endTime: q.endTime,
    status: q.status,
    sort: q.sort,
    first: q.pagination?.first,
    cursor: q.pagination?.cursor,
  });
  if (!parsed.ok) throw badRequest(parsed.problems);
  // parsed once: the engine renders the list from it; the resolvers answer what it cannot
  const rendered = await renderOrderList(schema, ctx, parsed.value, REST_ORDER);
  if (rendered !== null) return okJson(rendered);
  const data = await runDocument(RestOrdersDocument, toVariables(parsed.value), ctx);
  return ok(data.orders.edges.map((e) => e.node));
}
