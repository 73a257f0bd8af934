// The planner: a root field's selection, whatever it selects below, becomes one SQL expression
// that PostgreSQL evaluates to the field's final JSON text (Grafast's idea made small: each field
// declares its data in ./read-types.ts, the planner composes them). Objects are correlated
// sub-selects, order connections are keyset pages aggregated with string_agg, resolver-only
// fields are island marks resolved afterwards (./islands.ts). All root fields of a request go
// to PostgreSQL as one statement.
import { getArgumentValues, type FieldNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { parseOrderQuery, type OrderQuery, type RawOrderQuery } from '../domain/order-query.js';
import { filterSql, keysetSql, Params, SORT_KEYS } from '../services/order-page-sql.js';
import {
  ISLAND_MARK_SQL,
  ISLAND_SEPARATOR_SQL,
  jsonLiteral,
  jsonObjectSql,
  orUnrenderable,
} from './json-sql.js';
import { READ_TYPES, typenameJson, type ReadTypeName } from './read-types.js';
import { collectFields, subSelections, type SelectionScope } from './selection.js';

/** A resolver-only field under a row of `type`: resolved per parent key after the statement. */
export interface Island {
  type: ReadTypeName;
  key: string;
  nodes: readonly FieldNode[];
}

/** Thrown where a selection has no SQL rendering: its root field is left to the resolvers. */
class NotRenderable extends Error {}
const notRenderable = (why: string): never => {
  throw new NotRenderable(why);
};

/** One request's planning state: its variables, the statement's parameters, aliases, islands. */
export class QueryPlan {
  readonly params = new Params();
  readonly islands: Island[] = [];
  private aliases = 0;
  /** the request's clock in seconds, as a parameter (added on first use) */
  private nowParam: string | undefined;

  constructor(
    readonly schema: GraphQLSchema,
    readonly scope: SelectionScope,
    private readonly nowSeconds: bigint,
  ) {}

  readonly nowSql = (): string => (this.nowParam ??= this.params.add(this.nowSeconds.toString(), '::bigint'));

  alias(prefix: string): string {
    return `${prefix}${++this.aliases}`;
  }

  /** The SQL text expression of a root field, or null when something below it cannot render. */
  rootField(nodes: readonly FieldNode[]): string | null {
    const name = nodes[0]!.name.value;
    const planner = ROOT_FIELDS[name];
    if (!planner) return null;
    const field = this.schema.getQueryType()!.getFields()[name]!;
    try {
      return planner(this, nodes, this.args(field, nodes[0]!));
    } catch (err) {
      if (err instanceof NotRenderable) return null;
      throw err;
    }
  }

  args(field: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> {
    try {
      return getArgumentValues(field, node, this.scope.variables);
    } catch {
      // the resolver path raises the argument error
      return notRenderable('arguments');
    }
  }

  /** An object of a read type over the row alias `t`, as JSON text. */
  object(type: ReadTypeName, nodes: readonly FieldNode[], t: string): string {
    const read = READ_TYPES[type];
    const gqlType = this.schema.getType(type) as import('graphql').GraphQLObjectType;
    const parts: { key: string; sql: string }[] = [];
    for (const [key, fieldNodes] of collectFields(subSelections(nodes), type, this.scope)) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') {
        parts.push({ key, sql: typenameJson(type) });
        continue;
      }
      const decl = read.fields[name];
      if (!decl || decl.kind === 'resolver') {
        parts.push({ key, sql: this.island(type, fieldNodes, read.refetch.key(t)) });
      } else if (decl.kind === 'leaf') {
        parts.push({ key, sql: decl.json(t, this.nowSql) });
      } else if (decl.kind === 'object') {
        const a = this.alias(decl.type === 'Order' ? 'o' : 'c');
        const inner = this.object(decl.type, fieldNodes, a);
        const from = decl.from(t, a, this.nowSql);
        parts.push({ key, sql: decl.nullable ? `COALESCE((SELECT ${orUnrenderable(inner)} ${from}), 'null')` : `(SELECT ${inner} ${from})` });
      } else {
        const args = this.args(gqlType.getFields()[name]!, fieldNodes[0]!);
        parts.push({ key, sql: this.orderConnection(fieldNodes, args, decl.pin.bind(null, t)) });
      }
    }
    return jsonObjectSql(parts);
  }

  private island(type: ReadTypeName, nodes: readonly FieldNode[], keySql: string): string {
    const index = this.islands.push({ type, key: nodes[0]!.alias?.value ?? nodes[0]!.name.value, nodes }) - 1;
    return `${ISLAND_MARK_SQL} || '${index}' || ${ISLAND_SEPARATOR_SQL} || ${keySql} || ${ISLAND_MARK_SQL}`;
  }

  /**
   * An order connection (Query.orders, Collection.orders): the keyset page of
   * src/services/order-page-sql.ts (page size + 1 rows, the extra one says whether more exist),
   * numbered in scan order, aggregated into edges and pageInfo; totalCount as a COUNT over the
   * same filter. An unknown cursor makes it unrenderable (the resolver raises INVALID_CURSOR).
   */
  orderConnection(nodes: readonly FieldNode[], args: Record<string, unknown>, pin?: (o: string) => string): string {
    const q = orderQueryOf(args, pin !== undefined);
    const o = this.alias('o');
    const page = this.orderPage(q, o, pin);
    const { n, listOrder, aggregates } = page;
    const parts: { key: string; sql: string }[] = [];
    for (const [key, fieldNodes] of collectFields(subSelections(nodes), 'OrderConnection', this.scope)) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') parts.push({ key, sql: typenameJson('OrderConnection') });
      else if (name === 'totalCount') {
        parts.push({ key, sql: `(SELECT count(*) FROM orders ${o} ${whereSql(page.counted)})::text` });
      } else if (name === 'edges') {
        const edge = this.edge(fieldNodes, o);
        const agg = `e${aggregates.size}`;
        aggregates.set(agg, `COALESCE(string_agg(${orUnrenderable(edge)}, ',' ORDER BY ${listOrder}) FILTER (WHERE ${n} <= ${q.first}), '')`);
        parts.push({ key, sql: `'[' || p.${agg} || ']'` });
      } else if (name === 'pageInfo') {
        const more = `CASE WHEN p.rows > ${q.first} THEN 'true' ELSE 'false' END`;
        const info: { key: string; sql: string }[] = [];
        for (const [infoKey, infoNodes] of collectFields(subSelections(fieldNodes), 'PageInfo', this.scope)) {
          const infoName = infoNodes[0]!.name.value;
          if (infoName === '__typename') info.push({ key: infoKey, sql: typenameJson('PageInfo') });
          else if (infoName === 'hasNextPage') info.push({ key: infoKey, sql: q.fromEnd ? jsonFlag(q.before !== undefined) : more });
          else if (infoName === 'hasPreviousPage') info.push({ key: infoKey, sql: q.fromEnd ? more : jsonFlag(q.cursor !== undefined) });
          else if (infoName === 'startCursor' || infoName === 'endCursor') {
            const first = (infoName === 'startCursor') !== (q.fromEnd === true);
            aggregates.set(infoName, `(array_agg(${o}.hash ORDER BY ${n}${first ? '' : ' DESC'}) FILTER (WHERE ${n} <= ${q.first}))[1]`);
            info.push({ key: infoKey, sql: `COALESCE(to_json(p.${infoName})::text, 'null')` });
          } else notRenderable(`PageInfo.${infoName}`);
        }
        parts.push({ key, sql: jsonObjectSql(info) });
      } else notRenderable(`OrderConnection.${name}`);
    }
    return page.json(jsonObjectSql(parts));
  }

  /** The orders of one page as a JSON array (the REST list): `[<order>,...]`. */
  orderList(nodes: readonly FieldNode[], q: OrderQuery): string {
    const o = this.alias('o');
    const page = this.orderPage(q, o);
    page.aggregates.set('e', `COALESCE(string_agg(${orUnrenderable(this.object('Order', nodes, o))}, ',' ORDER BY ${page.listOrder}) FILTER (WHERE ${page.n} <= ${q.first}), '')`);
    return page.json(`'[' || p.e || ']'`);
  }

  /**
   * One keyset page of orders (src/services/order-page-sql.ts: page size + 1 rows, the extra one
   * says whether more exist), numbered `n_` in scan order, for aggregates over `o`; `json` wraps
   * the aggregated row `p` in the page's statement, unrenderable for an unknown cursor.
   */
  private orderPage(q: OrderQuery, o: string, pin?: (o: string) => string) {
    const where = filterSql(q.filter, this.nowSeconds, this.params, o);
    if (pin) where.push(pin(o));
    const counted = [...where];
    const cursors = [q.cursor, q.before].filter((h): h is string => h !== undefined);
    if (q.cursor) where.push(keysetSql(q.sort, 'after', q.cursor, this.params, o));
    if (q.before) where.push(keysetSql(q.sort, 'before', q.before, this.params, o));
    const { keys, desc } = SORT_KEYS[q.sort];
    const scanDesc = desc !== (q.fromEnd === true);
    const order = keys.map((k) => `${o}.${k} ${scanDesc ? 'DESC' : 'ASC'}`).join(', ');
    const n = `${o}.n_`;
    const aggregates = new Map<string, string>();
    const json = (select: string) => {
      aggregates.set('rows', 'count(*)');
      const page =
        `SELECT ${[...aggregates].map(([k, v]) => `${v} AS ${k}`).join(', ')} FROM (` +
        `SELECT ${o}.*, row_number() OVER (ORDER BY ${order}) AS n_ FROM (` +
        `SELECT * FROM orders ${o} ${whereSql(where)} ORDER BY ${order} LIMIT ${q.first + 1}) ${o}) ${o}`;
      const sql = `(SELECT ${select} FROM (${page}) p)`;
      if (!cursors.length) return sql;
      const known = cursors.map((h) => `EXISTS (SELECT 1 FROM orders WHERE hash = ${this.params.add(h)})`).join(' AND ');
      return `CASE WHEN ${known} THEN ${sql} END`;
    };
    // list order: scan order forward, its reverse when paging back from the end
    return { n, listOrder: q.fromEnd ? `${n} DESC` : n, aggregates, counted, json };
  }

  private edge(nodes: readonly FieldNode[], o: string): string {
    const parts: { key: string; sql: string }[] = [];
    for (const [key, fieldNodes] of collectFields(subSelections(nodes), 'OrderEdge', this.scope)) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') parts.push({ key, sql: typenameJson('OrderEdge') });
      else if (name === 'cursor') parts.push({ key, sql: `to_json(${o}.hash)::text` });
      else if (name === 'node') parts.push({ key, sql: this.object('Order', fieldNodes, o) });
      else notRenderable(`OrderEdge.${name}`);
    }
    return jsonObjectSql(parts);
  }

  /** One row of a read type by its key, or null (`COALESCE(..., 'null')`). */
  byKey(type: ReadTypeName, nodes: readonly FieldNode[], column: string, value: unknown): string {
    const t = this.alias(type === 'Order' ? 'o' : 'c');
    const inner = this.object(type, nodes, t);
    return `COALESCE((SELECT ${orUnrenderable(inner)} FROM ${READ_TYPES[type].table} ${t} WHERE ${t}.${column} = ${this.params.add(value)}), 'null')`;
  }
}

const jsonFlag = (b: boolean) => (b ? `'true'` : `'false'`);
const whereSql = (and: readonly string[]) => (and.length ? `WHERE ${and.join(' AND ')}` : '');

/** The connection's arguments parsed as the resolver parses them (src/schema/order.ts). */
function orderQueryOf(args: Record<string, unknown>, pinned: boolean): OrderQuery {
  const f = (args.filter ?? {}) as Record<string, unknown> & { price?: { min?: unknown; max?: unknown } | null };
  const raw: RawOrderQuery = {
    ...f,
    priceMin: f.price?.min,
    priceMax: f.price?.max,
    // a pinned connection (Collection.orders) ignores filter.collection: the pin replaces it
    collection: pinned ? undefined : f.collection,
    sort: args.sort,
    first: args.first,
    cursor: args.after,
    last: args.last,
    before: args.before,
  };
  const parsed = parseOrderQuery(raw);
  return parsed.ok ? parsed.value : notRenderable('order query');
}

type RootPlanner = (plan: QueryPlan, nodes: readonly FieldNode[], args: Record<string, unknown>) => string;

/** Query fields the engine renders; any other root field is resolved as before. */
const ROOT_FIELDS: Record<string, RootPlanner> = {
  __typename: () => jsonLiteral('Query'),
  orders: (plan, nodes, args) => plan.orderConnection(nodes, args),
  order: (plan, nodes, args) => plan.byKey('Order', nodes, 'hash', args.hash),
  collection: (plan, nodes, args) => plan.byKey('Collection', nodes, 'address', args.address),
};

export const isRootPlanned = (name: string) => Object.hasOwn(ROOT_FIELDS, name);
