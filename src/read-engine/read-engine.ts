// Executes a query document with the read engine: every root field the planner can render
// (./plan-query.ts) is answered by ONE SQL statement that returns finished JSON text; resolver-only
// fields below them are resolved in place (./islands.ts); root fields it does not render run
// through the ordinary executor at the same time, and the response is the texts joined in
// selection order. Byte for byte what the resolvers answer (test/read-engine/); wherever it cannot
// promise that (argument or variable errors, an unknown cursor, a value it cannot render, any
// database error, a query over the complexity limit) the ordinary executor answers instead, and
// raises the errors as before. A query shape is planned once: later requests bind their values
// and clock into its statement (./statement-template.ts).
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  execute,
  getVariableValues,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Context } from '../context.js';
import type { OrderQuery } from '../domain/order-query.js';
import { readDb } from '../services/deps.js';
import { UNRENDERABLE } from './json-sql.js';
import { freeInputs } from './free-inputs.js';
import { IslandFailed, resolveIslands } from './islands.js';
import { isRootPlanned, QueryPlan, type Island } from './plan-query.js';
import { sentStatement, shapeOf, statementFor, type Shape } from './query-shapes.js';
import { templateKey, type FreeInput, type PlannedStatement } from './statement-template.js';

type Execute = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** What a request of a shape needs beside its statement: the root keys its columns answer, the islands under them. */
interface Columns {
  keys: string[];
  islands: Island[];
}

/** What a document's text alone says: its operation, and which root fields the engine may answer. */
interface DocumentPlan {
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  /** root response key -> its nodes, in selection order */
  roots: [string, FieldNode[]][];
  /** the same document without the rendered root fields, per set of rendered keys */
  rest: Map<string, DocumentNode>;
  /** per schema: the inputs that may be bound rather than shape the statement (./free-inputs.ts) */
  free: WeakMap<GraphQLSchema, FreeInput[]>;
  /** per app (its deps: network, configuration): the document's shapes by template key */
  shapes: WeakMap<object, Map<string, Shape<Columns>>>;
}

const plans = new WeakMap<DocumentNode, DocumentPlan | null>();

/** Only a query whose root selection is plain fields takes part (the first operation: the complexity plugin's). */
function planDocument(document: DocumentNode): DocumentPlan | null {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.operation !== 'query' || operation.directives?.length) return null;
  const roots = new Map<string, FieldNode[]>();
  for (const sel of operation.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD || sel.directives?.length) return null;
    const key = sel.alias?.value ?? sel.name.value;
    roots.set(key, [...(roots.get(key) ?? []), sel]);
  }
  if (![...roots.values()].some(rootPlanned)) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return { operation, fragments, roots: [...roots], rest: new Map(), free: new WeakMap(), shapes: new WeakMap() };
}

function freeOf(plan: DocumentPlan, schema: GraphQLSchema): FreeInput[] {
  let free = plan.free.get(schema);
  if (!free) plan.free.set(schema, (free = freeInputs(schema, plan.operation)));
  return free;
}

function restDocument(plan: DocumentPlan, document: DocumentNode, rendered: ReadonlySet<string>): DocumentNode {
  const id = [...rendered].join(',');
  let doc = plan.rest.get(id);
  if (!doc) {
    const selections = plan.operation.selectionSet.selections.filter((s) => !rendered.has((s as FieldNode).alias?.value ?? (s as FieldNode).name.value));
    const operation = { ...plan.operation, selectionSet: { ...plan.operation.selectionSet, selections } };
    doc = { ...document, definitions: document.definitions.map((d) => (d === plan.operation ? operation : d)) };
    plan.rest.set(id, doc);
  }
  return doc;
}

function withinLimits(shape: Shape<Columns>, args: ExecutionArgs, ctx: Context): boolean {
  const config = ctx.services.deps.config;
  if (shape.cost === undefined) {
    try {
      shape.cost = complexityFromQuery(args.document, { schema: args.schema, variables: (args.variableValues ?? {}) as Record<string, unknown>, ctx });
    } catch {
      shape.cost = null;
    }
  }
  const cost = shape.cost;
  const over = (max: number | undefined, value: number) => typeof max === 'number' && max < value;
  return cost !== null && !over(config.maxQueryComplexity, cost.complexity) && !over(config.maxQueryDepth, cost.depth);
}

/** Two plannings' columns and islands (the islands' field nodes are the document's own). */
const sameColumns = (a: Columns, b: Columns) =>
  a.keys.length === b.keys.length &&
  a.keys.every((k, i) => k === b.keys[i]) &&
  a.islands.length === b.islands.length &&
  a.islands.every((x, i) => {
    const y = b.islands[i]!;
    return x.type === y.type && x.key === y.key && x.nodes.length === y.nodes.length && x.nodes.every((n, j) => n === y.nodes[j]);
  });

/** Executes `args` with the engine where it can, `ordinary` elsewhere. */
export async function executeWithEngine(args: ExecutionArgs, ordinary: Execute): Promise<ExecutionResult> {
  const text = await answer(args, ordinary);
  return text === null ? ordinary(args) : jsonResult(text);
}

/**
 * The engine's answer to a query (the response's JSON text), when it plans at least one root
 * field; root fields it does not plan run through graphql-js's executor beside its statement, as
 * yoga's would run them. Null where yoga must answer the whole request instead: every case where
 * executeWithEngine falls back, and any error among the other root fields (yoga masks and
 * reports errors). For the read lane (src/http/read-lane.ts).
 */
export function answerWithEngine(args: ExecutionArgs): Promise<string | null> {
  return answer(args, execute);
}

/** Whether the engine plans some root field of the document (the lane admits only those). */
export function plansSomeRoot(document: DocumentNode): boolean {
  return documentPlan(document) !== null;
}

function documentPlan(document: DocumentNode): DocumentPlan | null {
  let plan = plans.get(document);
  if (plan === undefined) plans.set(document, (plan = planDocument(document)));
  return plan;
}

/** The document's root fields the engine renders, planned for `variables` at `now`, as one statement. */
async function planRoots(args: ExecutionArgs, plan: DocumentPlan, variables: Record<string, unknown>, now: Date, ctx: Context): Promise<PlannedStatement<Columns> | null> {
  const deps = ctx.services.deps;
  const query = new QueryPlan(args.schema, { schema: args.schema, fragments: plan.fragments, variables }, now, deps.network.strategies, deps.network, deps.config.media.baseUrl);
  // planned in selection order (aliases and parameters number the same way for the same request)
  const columns: { key: string; sql: string }[] = [];
  for (const [key, nodes] of plan.roots) {
    if (!rootPlanned(nodes)) continue;
    const sql = await query.rootField(nodes, ctx);
    if (sql !== null) columns.push({ key, sql });
  }
  if (!columns.length) return null;
  return sentStatement(`SELECT ${columns.map((c, i) => `${c.sql} AS r${i}`).join(', ')}`, query, { keys: columns.map((c) => c.key), islands: query.islands });
}

/** The response text, or null: `ordinary` answers the whole document. */
async function answer(args: ExecutionArgs, ordinary: Execute): Promise<string | null> {
  const plan = documentPlan(args.document);
  const ctx = args.contextValue as Context;
  if (!plan || !ctx.services.deps.config.readEngine) return null;
  if (args.operationName != null && args.operationName !== plan.operation.name?.value) return null;
  const variables = getVariableValues(args.schema, plan.operation.variableDefinitions ?? [], (args.variableValues ?? {}) as Record<string, unknown>);
  if (variables.errors) return null;
  const inputs = variables.coerced as Record<string, unknown>;
  const deps = ctx.services.deps;
  const free = freeOf(plan, args.schema);
  const shape = shapeOf(plan.shapes, deps, templateKey(inputs, free));
  if (!withinLimits(shape, args, ctx)) return null;

  const statement = await statementFor(shape, ctx, free, inputs, (v, now) => planRoots(args, plan, v, now, ctx), sameColumns);
  if (!statement) return null;
  const { keys, islands } = statement.payload;
  const rendered = new Set(keys);
  // the other root fields start now, so their first statements join the engine's in one batch
  const rest = rendered.size < plan.roots.length ? Promise.resolve(ordinary({ ...args, document: restDocument(plan, args.document, rendered) })).catch(() => null) : null;
  // through the request's statement batch (src/db/statement-batch.ts)
  let failed = false;
  const [row] = await ctx.sql.query<Record<string, string | null>>(statement.text, statement.values, statement.name).catch((err: unknown) => {
    failed = true;
    ctx.services.readFallbacks.record('database-error', err);
    return [null];
  });
  // answered by the executor after all: the others finish first (no statement of this request outlives it)
  const fallback = async () => {
    await rest;
    return null;
  };
  // an order looked up on a replica that has not replayed it yet: the resolver reads the primary
  const readsReplica = readDb(deps) !== deps.db;
  let texts = keys.map((_k, i) => row?.[`r${i}`] ?? null);
  // something below a root field could not be rendered as the resolvers would: they answer it all
  const unrenderable = texts.some((t) => t === null || t.includes(UNRENDERABLE));
  if (unrenderable || (readsReplica && texts.includes('null'))) {
    if (!failed) ctx.services.readFallbacks.record(unrenderable ? 'unrenderable' : 'replica-behind');
    return fallback();
  }
  try {
    if (islands.length) texts = await resolveIslands(texts as string[], islands, args, plan.operation);
  } catch (err) {
    if (err instanceof IslandFailed) {
      ctx.services.readFallbacks.record('island-failed', err);
      return fallback();
    }
    throw err;
  }
  const others = rest && (await rest);
  // anything that went wrong among the others: their errors and null-bubbling are the executor's
  if (rest && (!others || others.errors?.length || !others.data)) return null;
  const byKey = new Map(keys.map((k, i) => [k, texts[i]!]));
  let text = '{"data":{';
  plan.roots.forEach(([key], i) => {
    const value = byKey.get(key) ?? JSON.stringify((others!.data as Record<string, unknown>)[key]);
    text += `${i ? ',' : ''}"${key}":${value}`;
  });
  return `${text}}}`;
}

/** A root key the engine plans: one field name (merged nodes), not __typename. */
function rootPlanned(nodes: FieldNode[]): boolean {
  const name = nodes[0]!.name.value;
  return nodes.every((n) => n.name.value === name) && name !== '__typename' && isRootPlanned(name);
}

/**
 * An execution result carrying its own serialization: yoga writes `result.stringify(result)`
 * (its hook for precompiled executors); plugins that read `data` get it parsed on demand.
 */
function jsonResult(text: string): ExecutionResult {
  let parsed: ExecutionResult | undefined;
  return {
    get data() {
      return (parsed ??= JSON.parse(text) as ExecutionResult).data;
    },
    stringify: () => text,
  } as ExecutionResult;
}

/**
 * A page of orders as a JSON array, each order with the fields `node` selects (the REST list:
 * GET /api/v1/orders), from a query parsed once by the caller; null where the resolvers must
 * answer instead (engine off, a value it cannot render, an unknown cursor, a database error).
 * The schema is the caller's: the engine sits below src/schema/.
 */
export async function renderOrderList(schema: GraphQLSchema, ctx: Context, q: OrderQuery, node: OrderListNode): Promise<string | null> {
  const deps = ctx.services.deps;
  if (!deps.config.readEngine) return null;
  const inputs = q as unknown as Record<string, unknown>;
  const shape = shapeOf(listShapes(node), deps, templateKey(inputs, ORDER_QUERY_FREE));
  const plan = async (v: Record<string, unknown>, now: Date) => {
    const query = new QueryPlan(schema, { schema, fragments: node.fragments, variables: {} }, now, deps.network.strategies, deps.network, deps.config.media.baseUrl);
    const sql = query.orderList(node.nodes, v as unknown as OrderQuery);
    return sentStatement(`SELECT ${sql} AS r0`, query, { islands: query.islands.length });
  };
  const statement = await statementFor(shape, ctx, ORDER_QUERY_FREE, inputs, plan, (a, b) => a.islands === b.islands);
  if (!statement) return null;
  const [row] = await ctx.sql.query<{ r0: string | null }>(statement.text, statement.values, statement.name).catch((err: unknown) => {
    ctx.services.readFallbacks.record('database-error', err);
    return [undefined];
  });
  if (row === undefined) return null;
  const text = row?.r0 ?? null;
  const unrenderable = text === null || text.includes(UNRENDERABLE);
  if (unrenderable) ctx.services.readFallbacks.record('unrenderable');
  return unrenderable || statement.payload.islands ? null : text;
}

type OrderListNode = { nodes: readonly FieldNode[]; fragments: Record<string, FragmentDefinitionNode> };

/** The parts of a parsed order query a list's statement binds rather than branches on. */
const ORDER_QUERY_FREE: readonly FreeInput[] = [
  { path: 'filter.hash', kind: 'Hash' },
  { path: 'filter.collection', kind: 'Address' },
  { path: 'filter.tokenId', kind: 'Uint256' },
  { path: 'filter.signer', kind: 'Address' },
  { path: 'filter.strategy', kind: 'Address' },
  { path: 'filter.currency', kind: 'Address' },
  { path: 'filter.nonce', kind: 'Uint256' },
  { path: 'filter.priceMin', kind: 'Uint256' },
  { path: 'filter.priceMax', kind: 'Uint256' },
  { path: 'filter.startTime', kind: 'Uint256' },
  { path: 'filter.endTime', kind: 'Uint256' },
  { path: 'cursor', kind: 'Hash' },
  { path: 'before', kind: 'Hash' },
];

const orderListShapes = new WeakMap<OrderListNode, WeakMap<object, Map<string, Shape<{ islands: number }>>>>();
function listShapes(node: OrderListNode) {
  let shapes = orderListShapes.get(node);
  if (!shapes) orderListShapes.set(node, (shapes = new WeakMap()));
  return shapes;
}

/** The field nodes at a path of a document's operation, and its fragments (for renderOrderList). */
export function selectionAt(document: DocumentNode, path: readonly string[]) {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  let nodes: readonly FieldNode[] = [];
  let sets = [operation.selectionSet];
  for (const name of path) {
    nodes = sets.flatMap((s) => s.selections.filter((f): f is FieldNode => f.kind === Kind.FIELD && f.name.value === name));
    sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  }
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return { nodes, fragments };
}
