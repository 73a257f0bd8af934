// GET /api/v1/collections/search?q&limit: the collections a search finds, best first, in the
// envelope, through the `searchCollections` GraphQL field as the read engine renders it (the
// ranking: src/services/collection-search.ts).
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, parse, type DocumentNode } from 'graphql';
import type { Context } from '../../context.js';
import { parseCollectionSearch } from '../../domain/collection-search-query.js';
import { badRequest } from '../../domain/errors.js';
import { executeWithEngine } from '../../read-engine/read-engine.js';
import { CollectionFieldsFragment } from '../documents.js';
import { ok, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import type { Query } from '../query-string.js';
import { cleanQueryValues, CollectionSearchQuery, problemsFrom } from '../request-schemas.js';

const text = parse(`
  query RestCollectionSearch($query: String!, $first: Int) {
    searchCollections(query: $query, first: $first) {
      ...RestCollectionFields
    }
  }
`);
/** Its own document beside src/rest/documents.ts, with the v1 collection fields of that file. */
export const RestCollectionSearchDocument = { ...text, definitions: [...text.definitions, ...(CollectionFieldsFragment as DocumentNode).definitions] } as TypedDocumentNode<
  { searchCollections: Record<string, unknown>[] },
  { query: string; first: number }
>;

export async function searchCollections(query: Query, ctx: Context): Promise<RestReply> {
  const checked = CollectionSearchQuery.safeParse(cleanQueryValues({ q: query.q, limit: query.limit }));
  if (!checked.success) throw badRequest(problemsFrom(checked.error));
  // the rules the schema cannot say (a NUL character), with the parameters' names
  const search = parseCollectionSearch({ query: checked.data.q, first: checked.data.limit === undefined ? null : Number(checked.data.limit) }, { query: 'q', first: 'limit' });
  if (!search.ok) throw badRequest(search.problems);
  const data = await runDocument(RestCollectionSearchDocument, { query: search.value.text, first: search.value.first }, ctx, (args) => executeWithEngine(args, execute));
  return ok(data.searchCollections);
}
