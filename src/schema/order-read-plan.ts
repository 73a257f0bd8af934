// Plans what an order connection reads from the GraphQL selection: the order columns behind the
// selected Order fields and, when `collection` is selected, the collection columns behind its
// fields, so the page is one statement that moves no more data than the response holds.
// A field this table does not know (added later elsewhere) reads every column: never wrong.
// The selection walk is hand-written: graphql-js' collectFields is internal (@internal) API.
import { getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import {
  ALL_COLLECTION_COLUMNS,
  ALL_ORDER_COLUMNS,
  COLLECTION_COLUMNS,
  COLLECTION_JSON,
  jsonObjectSql,
  ORDER_COLUMNS,
  ORDER_JSON,
  type CollectionColumn,
  type ColumnSpec,
  type OrderColumn,
  type OrderReadPlan,
} from '../services/order-page-sql.js';

/** Order field -> columns its resolver reads (see ./order.ts). */
const ORDER_FIELD_COLUMNS: Record<string, readonly OrderColumn[]> = {
  __typename: [],
  hash: ['hash'],
  collectionAddress: ['collectionAddress'],
  tokenId: ['tokenId'],
  isOrderAsk: ['isOrderAsk'],
  signer: ['signer'],
  strategy: ['strategy'],
  currencyAddress: ['currencyAddress'],
  amount: ['amount'],
  price: ['price'],
  priceEth: ['price'],
  nonce: ['nonce'],
  startTime: ['startTime'],
  endTime: ['endTime'],
  minPercentageToAsk: ['minPercentageToAsk'],
  params: ['params'],
  status: ['status', 'endTime'],
  signature: ['signature'],
  v: ['v'],
  r: ['r'],
  s: ['s'],
  // the join, plus the address for the loader if a caller's row comes without it
  collection: ['collectionAddress'],
};

/** Collection field -> columns (./collection.ts); stats and orders only need the address. */
const COLLECTION_FIELD_COLUMNS: Record<string, readonly CollectionColumn[]> = {
  __typename: [],
  stats: ['address'],
  orders: ['address'],
  ...Object.fromEntries(Object.keys(COLLECTION_COLUMNS).map((k) => [k, [k as CollectionColumn]])),
};

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

// ---------------------------------------------------------------------------------------------
// The JSON plan: when everything selected under an order connection is a column PostgreSQL can
// render (./../services/order-page-sql.ts ORDER_JSON, COLLECTION_JSON), each edge comes back as
// its final JSON text. Planned once per operation shape (src/schema/order-json-path.ts caches it
// per parsed document). Only plain selections qualify: no fragments, no directives, no arguments
// below the connection, each response key once; anything else is answered the ordinary way.

/** A connection field's JSON plan: its selections in order, and each edge as one SQL text expression. */
export interface OrderJsonShape {
  connection: readonly ({ key: string; kind: 'edges' | '__typename' } | { key: string; kind: 'pageInfo'; fields: readonly { key: string; name: PageInfoField }[] })[];
  /** SQL text of one edge's JSON, with NOW_SECONDS where the clock goes */
  edgeSql: string;
  /** the collection is selected: join it */
  join: boolean;
}

const PAGE_INFO_FIELDS = ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor', '__typename'] as const;
export type PageInfoField = (typeof PAGE_INFO_FIELDS)[number];

/** The plain fields of a selection set, in order, or null if anything else is there. */
function plainFields(set: SelectionSetNode | undefined): FieldNode[] | null {
  if (!set) return null;
  const keys = new Set<string>();
  const out: FieldNode[] = [];
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD || sel.directives?.length) return null;
    const key = sel.alias?.value ?? sel.name.value;
    if (keys.has(key)) return null;
    keys.add(key);
    out.push(sel);
  }
  return out;
}

const keyOf = (f: FieldNode) => f.alias?.value ?? f.name.value;

/** Scalar leaves only (no arguments, no sub-selection), each rendered by `table`; null otherwise. */
function renderLeaves(set: SelectionSetNode | undefined, table: Record<string, string>, nested?: (f: FieldNode) => string | null): string | null {
  const fields = plainFields(set);
  if (!fields?.length) return null;
  const parts: { key: string; sql: string }[] = [];
  for (const f of fields) {
    if (f.arguments?.length) return null;
    let sql: string | null | undefined;
    if (f.selectionSet) sql = nested?.(f);
    else sql = Object.hasOwn(table, f.name.value) ? table[f.name.value] : null;
    if (!sql) return null;
    parts.push({ key: keyOf(f), sql });
  }
  return jsonObjectSql(parts);
}

/** The JSON plan of an order connection field (Query.orders), or null when it does not qualify. */
export function orderJsonShape(field: FieldNode): OrderJsonShape | null {
  const fields = plainFields(field.selectionSet);
  if (!fields?.length) return null;
  let join = false;
  let edgeSql: string | null = null;
  const connection: OrderJsonShape['connection'][number][] = [];
  for (const f of fields) {
    if (f.arguments?.length) return null;
    const key = keyOf(f);
    if (f.name.value === '__typename' && !f.selectionSet) connection.push({ key, kind: '__typename' });
    else if (f.name.value === 'pageInfo') {
      const info = plainFields(f.selectionSet);
      if (!info?.length || info.some((i) => i.selectionSet || i.arguments?.length || !(PAGE_INFO_FIELDS as readonly string[]).includes(i.name.value))) return null;
      connection.push({ key, kind: 'pageInfo', fields: info.map((i) => ({ key: keyOf(i), name: i.name.value as PageInfoField })) });
    } else if (f.name.value === 'edges' && edgeSql === null) {
      const edgeTable: Record<string, string> = { __typename: `'"OrderEdge"'`, cursor: ORDER_JSON.hash! };
      edgeSql = renderLeaves(f.selectionSet, edgeTable, (edgeField) =>
        edgeField.name.value !== 'node'
          ? null
          : renderLeaves(edgeField.selectionSet, ORDER_JSON, (orderField) => {
              if (orderField.name.value !== 'collection') return null;
              join = true;
              return renderLeaves(orderField.selectionSet, COLLECTION_JSON);
            }),
      );
      if (edgeSql === null) return null;
      connection.push({ key, kind: 'edges' });
    } else return null;
  }
  // without edges there is nothing to render (the ordinary path answers pageInfo alone)
  return edgeSql === null ? null : { connection, edgeSql, join };
}
