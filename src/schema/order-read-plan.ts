// Plans what an order connection reads from the GraphQL selection: the order columns behind the
// selected Order fields and, when `collection` is selected, the collection columns behind its
// fields, so the page is one statement that moves no more data than the response holds.
// A field this table does not know (added later elsewhere) reads every column: never wrong.
// The selection walk is hand-written: graphql-js' collectFields is internal (@internal) API.
import { getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { ReadType } from '../read-engine/read-type.js';
import { COLLECTION_TYPE, ORDER_TYPE } from '../read-engine/read-types.js';
import {
  ALL_COLLECTION_COLUMNS,
  ALL_ORDER_COLUMNS,
  COLLECTION_COLUMNS,
  ORDER_COLUMNS,
  type CollectionColumn,
  type ColumnSpec,
  type OrderColumn,
  type OrderReadPlan,
} from '../services/order-page-sql.js';

/** Field -> columns its resolver reads, from the read type's declaration (src/read-engine/read-types.ts). */
const fieldColumns = <C extends string>(type: ReadType<C>): Record<string, readonly C[]> => ({
  __typename: [],
  ...Object.fromEntries(Object.entries(type.fields).map(([name, f]) => [name, 'columns' in f ? f.columns : []])),
});
const ORDER_FIELD_COLUMNS = fieldColumns<OrderColumn>(ORDER_TYPE);
const COLLECTION_FIELD_COLUMNS = fieldColumns<CollectionColumn>(COLLECTION_TYPE);

type Info = Pick<GraphQLResolveInfo, 'fragments' | 'variableValues'>;

function included(node: FieldNode | { directives?: FieldNode['directives'] }, info: Info): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, node, info.variableValues);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, info.variableValues);
  return include?.if !== false;
}

/** Every field node selected directly in these selection sets, through fragments, by field name. */
function fieldsOf(sets: readonly (SelectionSetNode | undefined)[], info: Info, out = new Map<string, FieldNode[]>()): Map<string, FieldNode[]> {
  for (const set of sets) {
    for (const sel of set?.selections ?? []) {
      if (!included(sel, info)) continue;
      if (sel.kind === Kind.FIELD) {
        const list = out.get(sel.name.value);
        if (list) list.push(sel);
        else out.set(sel.name.value, [sel]);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        fieldsOf([sel.selectionSet], info, out);
      } else {
        const frag = info.fragments[sel.name.value];
        if (frag) fieldsOf([frag.selectionSet], info, out);
      }
    }
  }
  return out;
}

const subsets = (nodes: readonly FieldNode[] | undefined) => (nodes ?? []).map((n) => n.selectionSet);

function columnsFor<K extends string>(fields: Iterable<string>, table: Record<string, readonly K[]>, specs: Record<K, ColumnSpec>, all: readonly ColumnSpec[], always: K[]): readonly ColumnSpec[] {
  const keys = new Set<K>(always);
  for (const f of fields) {
    const cols = table[f];
    if (!cols) return all;
    for (const c of cols) keys.add(c);
  }
  return [...keys].map((k) => specs[k]);
}

/** The read plan of the connection field being resolved (`info` of Query.orders / Collection.orders). */
export function orderReadPlan(info: GraphQLResolveInfo): OrderReadPlan {
  const connection = fieldsOf(subsets(info.fieldNodes), info);
  const node = fieldsOf(subsets(connection.get('edges')).flatMap((s) => subsets(fieldsOf([s], info).get('node'))), info);
  // `hash` is every edge's cursor.
  const orderColumns = columnsFor(node.keys(), ORDER_FIELD_COLUMNS, ORDER_COLUMNS, ALL_ORDER_COLUMNS, ['hash']);
  const collection = node.get('collection');
  const collectionColumns = collection
    ? columnsFor(fieldsOf(subsets(collection), info).keys(), COLLECTION_FIELD_COLUMNS, COLLECTION_COLUMNS, ALL_COLLECTION_COLUMNS, [])
    : null;
  return { orderColumns, collectionColumns, count: connection.has('totalCount') };
}
