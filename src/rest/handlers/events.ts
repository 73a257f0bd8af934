// GET /api/v1/events: v1 query parameters -> Query.activity, answered by the read engine where
// it can, then reshaped into the v1 event objects (looksrare-v1-facts.md "Events and tokens routes").
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, Kind, parse, type DocumentNode } from 'graphql';
import type { Context } from '../../context.js';
import { logTypesOfV1, parseActivityArgs, v1TypeOf, type MarketEventType } from '../../domain/activity-query.js';
import { normalizeAddress } from '../../domain/address.js';
import { badRequest } from '../../domain/errors.js';
import { executeWithEngine } from '../../read-engine/read-engine.js';
import { schema } from '../../schema/index.js';
import { CollectionFieldsFragment, OrderFieldsFragment } from '../documents.js';
import { ok, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import { objectParam, type Query } from '../query-string.js';
import { cleanQueryValues, EventsQuery, problemsFrom } from '../request-schemas.js';

interface EventsData {
  activity: {
    edges: {
      node: {
        eventId: string;
        type: MarketEventType;
        from: string | null;
        to: string | null;
        txHash: string | null;
        createdAt: number;
        collectionAddress: string;
        tokenId: string | null;
        collection: Record<string, unknown>;
        order: Record<string, unknown> | null;
      };
    }[];
  };
}

const EVENTS_DOCUMENT = {
  kind: Kind.DOCUMENT,
  definitions: [
    ...parse(`
      query RestEvents($filter: ActivityFilterInput, $first: Int, $after: String) {
        activity(filter: $filter, first: $first, after: $after) {
          edges { node { eventId type from to txHash createdAt collectionAddress tokenId collection { ...RestCollectionFields } order { ...RestOrderFields } } }
        }
      }`).definitions,
    ...(OrderFieldsFragment as DocumentNode).definitions,
    ...(CollectionFieldsFragment as DocumentNode).definitions,
  ],
} as DocumentNode as TypedDocumentNode<EventsData, Record<string, unknown>>;

/** The activity parser names GraphQL arguments; the client sent v1 parameters. */
const PARAMETER: Record<string, string> = { first: 'pagination[first]', after: 'pagination[cursor]' };

/**
 * The GraphQL cost limit guards documents clients write. This one is the route's own, and its
 * page is bounded (150 events, each with its collection and order: about 7,500 by the GraphQL
 * cost rules, over the default limit), so it runs without it.
 */
function withoutCostLimit(ctx: Context): Context {
  const deps = ctx.services.deps;
  return { ...ctx, services: { ...ctx.services, deps: { ...deps, config: { ...deps.config, maxQueryComplexity: Number.MAX_SAFE_INTEGER } } } };
}

export async function listEvents(query: Query, ctx: Context): Promise<RestReply> {
  const checked = EventsQuery.safeParse(cleanQueryValues({ ...query, pagination: objectParam(query, 'pagination') }));
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  const q = checked.data;
  const address = (a: string | undefined) => (a === undefined ? undefined : normalizeAddress(a)!);
  const args = {
    collection: address(q.collection),
    tokenId: q.tokenId,
    from: address(q.from),
    to: address(q.to),
    types: logTypesOfV1(q.type),
    first: q.pagination?.first === undefined ? undefined : Number(q.pagination.first),
    after: q.pagination?.cursor,
  };
  const parsed = parseActivityArgs(args);
  if (!parsed.ok) throw badRequest(parsed.problems.map((p) => ({ ...p, field: PARAMETER[p.field] ?? p.field })));

  const { first, after, ...filter } = args;
  const variables = { filter, first, after };
  const own = withoutCostLimit(ctx);
  const result = await executeWithEngine({ schema, document: EVENTS_DOCUMENT, variableValues: variables, contextValue: own }, execute);
  // errors are reported as every route reports them (masked, with the code's status)
  const data = result.errors?.length ? await runDocument(EVENTS_DOCUMENT, variables, own) : (result.data as unknown as EventsData);
  return ok(
    data.activity.edges.map(({ node: e }) => ({
      id: Number(e.eventId),
      type: v1TypeOf(e.type),
      from: e.from,
      to: e.to,
      hash: e.txHash,
      createdAt: new Date(e.createdAt * 1000).toISOString(),
      collection: e.collection,
      token: e.tokenId === null ? null : { collectionAddress: e.collectionAddress, tokenId: e.tokenId },
      order: e.order,
    })),
  );
}
