// The read engine's root planner for Query.searchCollections (the resolver it stands for:
// src/schema/collection-search.ts). Its rows are searchRowsSql's (src/services/collection-search.ts),
// so the ranking rule is written once; each row renders as any Collection does.
// Written against ./read-type.ts only, as the other per-type planners.
import type { FieldNode } from 'graphql';
import { parseCollectionSearch } from '../domain/collection-search-query.js';
import { searchRowsSql } from '../services/collection-search.js';
import { orUnrenderable } from './json-sql.js';
import type { Planner } from './read-type.js';

/** Query.searchCollections: the matching collections as a JSON array, best first. */
export function planCollectionSearch(p: Planner, nodes: readonly FieldNode[], args: Record<string, unknown>): string {
  const parsed = parseCollectionSearch({ query: args.query as string | null, first: args.first as number | null });
  // the resolver raises the argument error
  if (!parsed.ok) return p.unrenderable('search arguments');
  const rows = searchRowsSql(parsed.value, (v, cast) => p.params.add(v, cast), p.params.at);
  const c = p.alias('c');
  const item = p.object('Collection', nodes, c);
  return `(SELECT '[' || COALESCE(string_agg(${orUnrenderable(item)}, ',' ORDER BY ${c}.search_rank), '') || ']' FROM (${rows}) ${c})`;
}
