// The fields a selection selects on an object type, in response order, with graphql-js'
// CollectFields rules (https://spec.graphql.org/October2021/#CollectFields): @skip/@include
// evaluated against the request's variables, named and inline fragments whose type condition is
// the type or an abstract type it belongs to (the schema says which, as graphql-js asks it), and
// fields of one response key merged into one entry with every node that selected it.
// graphql-js' own collectFields is internal API (@internal), hence this short copy.
import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  isAbstractType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

export interface SelectionScope {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

function included(node: { directives?: FieldNode['directives'] }, scope: SelectionScope): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, scope.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, scope.variables)?.if !== false;
}

/** Whether a fragment with this type condition applies to an object of `typeName` (graphql-js' doesFragmentConditionMatch). */
function applies(condition: string, typeName: string, schema: GraphQLSchema): boolean {
  if (condition === typeName) return true;
  const conditionType = schema.getType(condition);
  const type = schema.getType(typeName);
  return isAbstractType(conditionType) && isObjectType(type) && schema.isSubType(conditionType, type);
}

/** Response key -> the field nodes selecting it, in first-seen order. */
export function collectFields(sets: readonly (SelectionSetNode | undefined)[], typeName: string, scope: SelectionScope): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined) => {
    for (const sel of set?.selections ?? []) {
      if (!included(sel, scope)) continue;
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        const list = out.get(key);
        if (list) list.push(sel);
        else out.set(key, [sel]);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (!sel.typeCondition || applies(sel.typeCondition.name.value, typeName, scope.schema)) walk(sel.selectionSet);
      } else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const frag = scope.fragments[sel.name.value];
        if (frag && applies(frag.typeCondition.name.value, typeName, scope.schema)) walk(frag.selectionSet);
      }
    }
  };
  for (const set of sets) walk(set);
  return out;
}

/** The sub-selections of one response key's nodes, for collectFields. */
export const subSelections = (nodes: readonly FieldNode[]) => nodes.map((n) => n.selectionSet);
