// The fields of a small object type that is not a read type (TokenOwner, DepthLevel,
// OrderFillability, ...): each selected field rendered from one SQL expression, aliases, fragments
// and __typename as graphql-js collects them; a nested object's expression is built from the nodes
// selecting it (its own sub-selection). A field with no expression leaves the root field to its
// resolvers.
// This file imports only a type from ./plan-query.ts.
import type { FieldNode } from 'graphql';
import { jsonLiteral, jsonObjectSql } from './json-sql.js';
import { collectFields, subSelections } from './selection.js';
import type { Planner } from './read-type.js';

export function objectFieldsSql(
  p: Planner,
  nodes: readonly FieldNode[],
  typename: string,
  render: Record<string, string | ((nodes: readonly FieldNode[]) => string)>,
): string {
  const parts: { key: string; sql: string }[] = [];
  for (const [key, f] of collectFields(subSelections(nodes), typename, p.scope)) {
    const name = f[0]!.name.value;
    const field = name === '__typename' ? jsonLiteral(typename) : render[name];
    if (field === undefined) return p.unrenderable(`${typename}.${name}`);
    const sql = typeof field === 'function' ? field(f) : field;
    parts.push({ key, sql });
  }
  return jsonObjectSql(parts);
}
