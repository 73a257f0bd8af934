// The fast path for the hottest GraphQL shape, the order book page (`orders { edges { node {
// ... collection { ... } } } }`): when a query is that connection alone and everything below
// it is a column (./order-read-plan.ts orderJsonShape), PostgreSQL renders each edge as its
// final JSON text in the same one statement the ordinary path sends, and the response is those
// texts joined: no result objects, no field resolvers, no JSON.stringify of 50 orders. The shape
// is planned once per parsed document (yoga caches parsing, so a repeated query is the same
// DocumentNode). The answer is byte-identical to the ordinary path's
// (test/services/order-read-paths.test.ts); anything it does not promise, it leaves to the
// ordinary path: other shapes, backward pages, argument or complexity errors, an unknown
// cursor, a value it cannot render exactly, any database error.
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  getArgumentValues,
  getVariableValues,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { parseOrderQuery } from '../domain/order-query.js';
import { NOW_SECONDS } from '../services/order-page-sql.js';
import { nowSeconds } from '../services/deps.js';
import { orderJsonShape, type OrderJsonShape } from './order-read-plan.js';

interface Planned {
  operation: OperationDefinitionNode;
  field: FieldNode;
  key: string;
  shape: OrderJsonShape;
  /**
   * Complexity and depth by `first`: in a rendered shape only Query.orders has a complexity that
   * depends on an argument (its multiplier, `first`; ./order.ts); every field below it has the
   * default. So the plugin's figure for this document is a function of `first` alone.
   */
  costs: Map<unknown, { complexity: number; depth: number }>;
}

/** A document qualifies when it is one query whose only selection is a plain `orders` field. */
function plan(schema: GraphQLSchema, document: DocumentNode): Planned | null {
  if (document.definitions.length !== 1) return null;
  const operation = document.definitions[0]!;
  if (operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== 'query' || operation.directives?.length) return null;
  if (operation.variableDefinitions?.some((v) => v.directives?.length)) return null;
  const [field, ...more] = operation.selectionSet.selections;
  if (more.length || field?.kind !== Kind.FIELD || field.name.value !== 'orders' || field.directives?.length) return null;
  if (!schema.getQueryType()?.getFields().orders) return null;
  const shape = orderJsonShape(field);
  return shape && { operation, field, key: field.alias?.value ?? field.name.value, shape, costs: new Map() };
}

/** The order-book fast path as a yoga plugin (register it with the schema's plugins). */
export function useOrderJsonPath(): Plugin {
  const planned = new WeakMap<DocumentNode, Planned | null>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      let p = planned.get(args.document);
      if (p === undefined) planned.set(args.document, (p = plan(args.schema, args.document)));
      if (!p) return;
      const found = p;
      setExecuteFn(async (a: ExecutionArgs) => (await answer(found, a).catch(() => null)) ?? (executeFn(a) as Promise<ExecutionResult>));
    },
  };
}

/** The response from SQL, or null to let the ordinary path answer. */
async function answer(p: Planned, args: ExecutionArgs): Promise<ExecutionResult | null> {
  // an operation name the document does not have is the executor's error to raise
  if (args.operationName != null && args.operationName !== p.operation.name?.value) return null;
  const ctx = args.contextValue as Context;
  const config = ctx.services.deps.config;
  const variables = getVariableValues(args.schema, p.operation.variableDefinitions ?? [], args.variableValues ?? {});
  if (variables.errors) return null;
  const a = getArgumentValues(args.schema.getQueryType()!.getFields().orders!, p.field, variables.coerced) as Record<string, unknown> & {
    filter?: Record<string, unknown> & { price?: { min?: unknown; max?: unknown } | null };
  };
  if (a.last != null || a.before != null) return null;
  // Same limits as the complexity plugin's (src/schema/builder.ts); over them, the ordinary
  // path raises the error.
  let cost = p.costs.get(a.first);
  if (!cost) {
    const { complexity, depth } = complexityFromQuery(args.document, { schema: args.schema, variables: args.variableValues ?? {}, ctx });
    if (p.costs.size > 200) p.costs.clear();
    p.costs.set(a.first, (cost = { complexity, depth }));
  }
  const over = (max: number | undefined, value: number) => typeof max === 'number' && max < value;
  if (over(config.maxQueryComplexity, cost.complexity) || over(config.maxQueryDepth, cost.depth)) return null;
  const f = a.filter ?? {};
  const parsed = parseOrderQuery({ ...f, priceMin: f.price?.min, priceMax: f.price?.max, sort: a.sort as string, first: a.first as number, cursor: a.after as string });
  if (!parsed.ok) return null;
  const now = nowSeconds(ctx.services.deps).toString();
  const readPlan = { orderColumns: [{ sql: p.shape.edgeSql.replaceAll(NOW_SECONDS, now), key: 'json' }, { sql: 'o.hash', key: 'hash' }], collectionColumns: p.shape.join ? [] : null };
  const page = await ctx.services.orders.listOrderPage(parsed.value, readPlan, ctx.sql);
  const edges: string[] = [];
  for (const row of page.orders) {
    if (typeof row.json !== 'string') return null;
    edges.push(row.json);
  }
  let text = `{"data":{"${p.key}":{`;
  p.shape.connection.forEach((c, i) => {
    if (i) text += ',';
    if (c.kind === 'edges') text += `"${c.key}":[${edges.join(',')}]`;
    else if (c.kind === '__typename') text += `"${c.key}":"OrderConnection"`;
    else if (c.kind === 'pageInfo') {
      const info: Record<string, unknown> = {};
      for (const { key, name } of c.fields) {
        if (name === 'hasNextPage') info[key] = page.hasNextPage;
        else if (name === 'hasPreviousPage') info[key] = page.hasPreviousPage;
        else if (name === 'startCursor') info[key] = page.orders[0]?.hash ?? null;
        else if (name === 'endCursor') info[key] = page.orders.at(-1)?.hash ?? null;
        else info[key] = 'PageInfo';
      }
      text += `"${c.key}":${JSON.stringify(info)}`;
    }
  });
  text += '}}}';
  return jsonResult(text);
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
