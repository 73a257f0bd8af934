// GET /api/v1/collections/attributes (a collection's trait panel, through the same GraphQL field
// as Collection.attributes, so the read engine answers it in one statement) and
// POST /api/v1/tokens/refresh (a metadata refresh, with its cooldown).
import { execute, parse } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Context } from '../../context.js';
import { normalizeAddress } from '../../domain/address.js';
import { badRequest, ServiceError } from '../../domain/errors.js';
import { executeWithEngine } from '../../read-engine/read-engine.js';
import { ok, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import type { Query } from '../query-string.js';
import { readJsonBody } from '../read-json-body.js';
import { cleanQueryValues, CollectionAttributesQuery, problemsFrom, TokenRefreshBody } from '../request-schemas.js';

export const RestTraitPanelDocument = parse(`
  query RestTraitPanel($collection: Address!) {
    collection(address: $collection) {
      attributes { traitType kind valueCount min max values { value tokenCount sharePercent listedCount floorPrice bestBidPrice } }
    }
  }
`) as TypedDocumentNode<{ collection: { attributes: unknown[] } | null }, { collection: string }>;

export async function getCollectionAttributes(query: Query, ctx: Context): Promise<RestReply> {
  const checked = CollectionAttributesQuery.safeParse(cleanQueryValues({ collection: query.collection }));
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  const collection = normalizeAddress(checked.data.collection)!;
  const data = await runDocument(RestTraitPanelDocument, { collection }, ctx, (args) => executeWithEngine(args, execute));
  if (data.collection === null) throw new ServiceError('NOT_FOUND', `no collection ${collection}`);
  return ok(data.collection.attributes);
}

export async function refreshTokenMetadata(_query: Query, ctx: Context, request: Request): Promise<RestReply> {
  const parsed = TokenRefreshBody.safeParse(await readJsonBody(request, ctx.services.deps.config.maxBodyBytes));
  if (!parsed.success) throw badRequest(problemsFrom(parsed.error));
  const answer = await ctx.services.tokenMetadata.refresh(normalizeAddress(parsed.data.collection)!, parsed.data.tokenId ?? null);
  return ok({ queued: answer.queued, tokens: answer.tokens, nextRefreshAllowedAt: Math.ceil(answer.nextRefreshAllowedAt.getTime() / 1000) });
}
