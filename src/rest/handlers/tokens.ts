// GET /api/v1/tokens?collection&tokenId (looksrare-v1-facts.md "Events and tokens routes"): one
// token in the envelope, or null, through the `token` GraphQL field as the read engine renders it,
// shaped as v1 answered it: tokenURI, imageURI, isExplicit, isAnimated, flag and attributes with
// their counts, beside this service's own fields (image, owners, best ask and bid, last sale, rarity).
import { badRequest } from '../../domain/errors.js';
import { execute, parse, type DocumentNode } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Context } from '../../context.js';
import { normalizeAddress } from '../../domain/address.js';
import { executeWithEngine } from '../../read-engine/read-engine.js';
import { OrderFieldsFragment } from '../documents.js';
import { ok, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import type { Query } from '../query-string.js';
import { cleanQueryValues, problemsFrom, TokensQuery } from '../request-schemas.js';

const text = parse(`
  query RestToken($collection: Address!, $tokenId: Uint256!) {
    token(collection: $collection, tokenId: $tokenId) {
      collectionAddress
      tokenId
      tokenURI: metadata { tokenURI }
      name
      description
      image
      animationURL
      collection { isExplicit }
      attributes { traitType value displayType count: tokenCount }
      rarity { rank score }
      owners { owner balance }
      bestAsk { ...RestOrderFields }
      bestBid { ...RestOrderFields }
      lastSale { price amount currencyAddress buyer seller txHash timestamp }
      listedAt
    }
  }
`);
/** Its own document beside src/rest/documents.ts, with the v1 order fields of that file. */
export const RestTokenDocument = { ...text, definitions: [...text.definitions, ...(OrderFieldsFragment as DocumentNode).definitions] } as TypedDocumentNode<
  { token: Record<string, unknown> | null },
  { collection: string; tokenId: string }
>;

export async function getToken(query: Query, ctx: Context): Promise<RestReply> {
  const checked = TokensQuery.safeParse(cleanQueryValues({ collection: query.collection, tokenId: query.tokenId }));
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  const variables = { collection: normalizeAddress(checked.data.collection)!, tokenId: checked.data.tokenId };
  const data = await runDocument(RestTokenDocument, variables, ctx, (args) => executeWithEngine(args, execute));
  return ok(data.token === null ? null : v1Token(data.token));
}

/** v1's token fields from the GraphQL answer: flag NO_IMAGE when there is no image (v1's moderation flags are not ours to set). */
function v1Token(t: Record<string, unknown>): Record<string, unknown> {
  const { tokenURI, collection, animationURL, ...rest } = t as { tokenURI: { tokenURI: string | null } | null; collection: { isExplicit: boolean }; animationURL: string | null; image: string | null };
  return {
    ...rest,
    tokenURI: tokenURI?.tokenURI ?? null,
    imageURI: rest.image,
    animationURI: animationURL,
    isExplicit: collection.isExplicit,
    isAnimated: animationURL !== null,
    flag: rest.image === null ? 'NO_IMAGE' : 'NONE',
  };
}
