// Query.searchCollections: collections by name, symbol or address, best first (the ranking:
// src/services/collection-search.ts; the read engine answers it in one statement).
import { COLLECTION_SEARCH_RULES, collectionSearchOf } from '../domain/collection-search-query.js';
import { builder } from './builder.js';
import { Collection } from './collection.js';

builder.queryFields((t) => ({
  searchCollections: t.field({
    type: [Collection],
    description:
      `Collections whose name or symbol matches the query, best first: the collection whose address it is (any letter case), ` +
      `then a name or symbol equal to it, one starting with it, then close spellings (trigram similarity); ` +
      `verified collections first among equally good matches, then by 24h volume. ` +
      `query: 1..${COLLECTION_SEARCH_RULES.maxLength} characters after trimming; first: 1..${COLLECTION_SEARCH_RULES.max}.`,
    args: {
      query: t.arg.string({ required: true }),
      first: t.arg.int({ required: false, defaultValue: COLLECTION_SEARCH_RULES.defaultSize }),
    },
    complexity: (args) => ({ field: 5, multiplier: Math.min(args.first ?? COLLECTION_SEARCH_RULES.defaultSize, COLLECTION_SEARCH_RULES.max) }),
    resolve: (_root, args, ctx) => ctx.services.collectionSearch.searchCollections(collectionSearchOf(args), ctx.sql),
  }),
}));
