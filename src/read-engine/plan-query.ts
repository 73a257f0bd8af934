// The planner: a root field's selection, whatever it selects below, becomes one SQL expression
// that PostgreSQL evaluates to the field's final JSON text (Grafast's idea made small: each field
// declares its data in ./read-types.ts, the planner composes them). Objects are correlated
// sub-selects, order connections are keyset pages aggregated with string_agg, resolver-only
// fields are island marks resolved afterwards (./islands.ts). All root fields of a request go
// to PostgreSQL as one statement.
import type { Context } from '../context.js';
import type { CollectionOrder } from '../domain/collection-ranking.js';
import { COLLECTION_PAGE_RULES, type CollectionFilter, type CollectionQuery } from '../services/collection-discovery.js';
import { getArgumentValues, type FieldNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { parseActivityArgs, type ActivityArgs } from '../domain/activity-query.js';
import { parseOrderConnectionArgs, type OrderQuery } from '../domain/order-query.js';
import { parsePageArgs, type PageArgs } from '../domain/page-args.js';
import type { Network } from '../domain/networks.js';
import { activityCursorSql, activityFilterSql, activityScanOrder } from '../services/activity-sql.js';
import { unixSeconds } from '../services/clock-param.js';
import { filterSql, keysetSql, SORT_KEYS } from '../services/order-page-sql.js';
import type { BookParams } from '../services/token-sql.js';
import { bookParams } from '../services/tokens.js';
import { SALE_PAGE_RULES } from '../services/sale-history.js';
import {
  ISLAND_MARK_SQL,
  ISLAND_SEPARATOR_SQL,
  jsonLiteral,
  jsonObjectSql,
  orUnrenderable,
} from './json-sql.js';
import type { Page, Planner, RankKey, ReadTypeName } from './read-type.js';
import { READ_TYPES, typenameJson } from './read-types.js';
import { collectFields, subSelections, type SelectionScope } from './selection.js';
import { planAccount } from './account-reads.js';
import { planToken, planTokens } from './token-reads.js';
import { planIndexerStatus } from './indexer-status-reads.js';
import { planListingRewards } from './listing-reward-reads.js';
import { planCollectionSearch } from './collection-search-reads.js';
import { PlanParams } from './plan-params.js';

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

const DAY_SECONDS = 86_400;

/** One request's planning state: its variables, the statement's parameters, aliases, islands. */
export class QueryPlan implements Planner {
  readonly params: PlanParams;
  readonly islands: Island[] = [];
  private aliases = 0;
  /** the request's clock in seconds, as a parameter (added on first use) */
  private nowParam: string | undefined;
  /** planned from data or process state: not a template for other requests (./statement-template.ts) */
  volatile = false;

  constructor(
    readonly schema: GraphQLSchema,
    readonly scope: SelectionScope,
    /** the request's clock, read once (statsFor's and the resolvers' now); planners reach it through `params.at` only */
    now: Date,
    readonly strategies: Pick<Network['strategies'], 'standardSale' | 'collectionOffer'> = { standardSale: [], collectionOffer: [] },
    /** the addresses a fix names (Order.fillability) */
    readonly operators: Pick<Network, 'exchange' | 'transferManagerERC721' | 'transferManagerERC1155'> = { exchange: '', transferManagerERC721: '', transferManagerERC1155: '' },
    /** MEDIA_BASE_URL: hosted images' URLs */
    readonly mediaBaseUrl: string | undefined = undefined,
  ) {
    this.params = new PlanParams(now);
    this.book = bookParams((v, cast) => this.params.add(v, cast), this.nowSql, strategies);
  }

  readonly nowSql = (): string => (this.nowParam ??= this.params.at(unixSeconds, '::bigint'));
  private instants = new Map<string, string>();
  /**
   * The clock `secondsBack` seconds ago, floored to `unit` milliseconds, as a timestamptz
   * parameter, one per edge: the stats' window edges, computed here rather than by PostgreSQL for
   * every row.
   */
  readonly instantSql = (secondsBack: number, unit = 1): string => {
    const key = `${secondsBack}/${unit}`;
    let sql = this.instants.get(key);
    if (!sql) {
      sql = this.params.at((now) => new Date(Math.floor((now.getTime() - secondsBack * 1000) / unit) * unit).toISOString(), '::timestamptz');
      this.instants.set(key, sql);
    }
    return sql;
  };

  markVolatile(): void {
    this.volatile = true;
  }
  /** the clock and the network's strategy lists, for the book's SQL (src/services/token-sql.ts) */
  readonly book: BookParams;

  /**
   * Rows whose statistic is already known (by their alias): a ranked page's key, the volume of a
   * window ending now or the floor, which the row's stats read instead of computing again.
   */
  readonly rankKeys = new Map<string, RankKey>();

  /** Leaves the root field to its resolvers (a selection with no SQL rendering). */
  unrenderable(why: string): never {
    return notRenderable(why);
  }

  alias(prefix: string): string {
    return `${prefix}${++this.aliases}`;
  }

  /** The SQL text expression of a root field, or null when something below it cannot render. */
  async rootField(nodes: readonly FieldNode[], ctx: Context): Promise<string | null> {
    const name = nodes[0]!.name.value;
    const planner = ROOT_FIELDS[name];
    if (!planner) return null;
    const field = this.schema.getQueryType()!.getFields()[name]!;
    try {
      return await planner(this, nodes, this.args(field, nodes[0]!), ctx);
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

  columnsRead(type: ReadTypeName, nodes: readonly FieldNode[]): ReadonlySet<string> {
    const fields = READ_TYPES[type].fields;
    const out = new Set<string>();
    for (const fieldNodes of collectFields(subSelections(nodes), type, this.scope).values()) {
      const decl = fields[fieldNodes[0]!.name.value];
      if (decl && 'columns' in decl) for (const c of decl.columns) out.add(c);
    }
    return out;
  }

  /** An object of a read type over the row alias `t`, as JSON text. */
  object(type: ReadTypeName, nodes: readonly FieldNode[], t: string): string {
    const read = READ_TYPES[type];
    const gqlType = this.schema.getType(type) as import('graphql').GraphQLObjectType;
    const parts: { key: string; sql: string }[] = [];
    // the shared rows the selected fields read, each joined once for the whole object
    const rows = new Map<string, string>();
    for (const [key, fieldNodes] of collectFields(subSelections(nodes), type, this.scope)) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') {
        parts.push({ key, sql: typenameJson(type) });
        continue;
      }
      const decl = read.fields[name];
      if (!decl || decl.kind === 'resolver') {
        if (!read.refetch) return notRenderable(`${type}.${name}`);
        parts.push({ key, sql: this.island(type, fieldNodes, read.refetch.key(t)) });
      } else if (decl.kind === 'leaf') {
        parts.push({ key, sql: decl.json(t, this.nowSql) });
      } else if (decl.kind === 'row') {
        let r = rows.get(decl.row);
        if (r === undefined) rows.set(decl.row, (r = this.alias(decl.row[0]!)));
        parts.push({ key, sql: decl.json(this, fieldNodes, r) });
      } else if (decl.kind === 'planned') {
        parts.push({ key, sql: decl.plan(this, fieldNodes, this.args(gqlType.getFields()[name]!, fieldNodes[0]!), t) });
      } else if (decl.kind === 'object') {
        const a = this.alias(decl.type[0]!.toLowerCase());
        const inner = this.object(decl.type, fieldNodes, a);
        const from = decl.from(t, a, this.nowSql);
        parts.push({ key, sql: decl.nullable ? `COALESCE((SELECT ${orUnrenderable(inner)} ${from}), 'null')` : `(SELECT ${inner} ${from})` });
      } else {
        const args = this.args(gqlType.getFields()[name]!, fieldNodes[0]!);
        parts.push({ key, sql: this.orderConnection(fieldNodes, args, decl.pin.bind(null, t), decl.pins) });
      }
    }
    if (rows.size === 0) return jsonObjectSql(parts);
    const joins = [...rows].map(([row, r]) => `LEFT JOIN ${read.rows![row]!(t, r)}`);
    return `(SELECT ${jsonObjectSql(parts)} FROM (SELECT) ${this.alias('z')} ${joins.join(' ')})`;
  }

  private island(type: ReadTypeName, nodes: readonly FieldNode[], keySql: string): string {
    const index = this.islands.push({ type, key: nodes[0]!.alias?.value ?? nodes[0]!.name.value, nodes }) - 1;
    return `${ISLAND_MARK_SQL} || '${index}' || ${ISLAND_SEPARATOR_SQL} || ${keySql} || ${ISLAND_MARK_SQL}`;
  }

  /** An order connection (Query.orders, Collection.orders, pinned to its collection, Account.orders, to its signer). */
  orderConnection(nodes: readonly FieldNode[], args: Record<string, unknown>, pin?: (o: string) => string, pins: 'collection' | 'signer' = 'collection'): string {
    return this.connection(nodes, this.orderPage(orderQueryOf(args, pin !== undefined, pins), pin));
  }

  /** The orders of one page as a JSON array (the REST list): `[<order>,...]`. */
  orderList(nodes: readonly FieldNode[], q: OrderQuery): string {
    const page = this.orderPage(q);
    const aggregates = new Map([['e', this.edgesAggregate(page, this.object(page.type, nodes, page.o))]]);
    return this.pageJson(page, aggregates, `'[' || p.e || ']'`);
  }

  /** Sales newest first (Query.sales): the resolver's arguments and cursors (src/schema/discovery.ts). */
  saleConnection(nodes: readonly FieldNode[], args: Record<string, unknown>): string {
    const parsed = parsePageArgs(args as PageArgs, SALE_PAGE_RULES);
    if (!parsed.ok) return notRenderable('page arguments');
    const q = parsed.value;
    const s = this.alias('s');
    const counted: string[] = [];
    if (args.collection) counted.push(`${s}.collection_address = ${this.params.add(args.collection)}`);
    const at = (v: unknown) => this.params.add(new Date(Number(v) * 1000).toISOString(), '::timestamptz');
    if (args.from != null) counted.push(`${s}.timestamp >= ${at(args.from)}`);
    if (args.to != null) counted.push(`${s}.timestamp < ${at(args.to)}`);
    const where = [...counted];
    const guards: string[] = [];
    for (const side of ['after', 'before'] as const) {
      if (q[side] === undefined) continue;
      const id = this.params.add(q[side], '::bigint');
      // after the cursor: older (list order); before it: newer
      where.push(`(${s}.timestamp, ${s}.id) ${side === 'after' ? '<' : '>'} (SELECT k.timestamp, k.id FROM sales k WHERE k.id = ${id})`);
      guards.push(`EXISTS (SELECT 1 FROM sales WHERE id = ${id})`);
    }
    return this.connection(nodes, {
      type: 'Sale',
      table: 'sales',
      o: s,
      where,
      counted,
      order: q.fromEnd ? `${s}.timestamp ASC, ${s}.id ASC` : `${s}.timestamp DESC, ${s}.id DESC`,
      listOrder: `${s}.timestamp DESC, ${s}.id DESC`,
      first: q.first,
      fromEnd: q.fromEnd,
      hasPrevious: q.after !== undefined,
      hasNext: q.before !== undefined,
      cursor: `${s}.id::text`,
      guards,
    });
  }

  /**
   * Market events newest first (Query.activity): the resolver's arguments and pageInfo
   * (src/schema/activity.ts). A nested page (Collection.activity, ...) adds its parent's `pin`
   * over the events alias; `collectionPinned`: the pin names the collection.
   */
  activityConnection(nodes: readonly FieldNode[], args: Record<string, unknown>, pin?: (m: string) => string, collectionPinned = false): string {
    const filter = (args.filter ?? {}) as ActivityArgs;
    const parsed = parseActivityArgs({ ...filter, first: args.first as number | null, last: args.last as number | null, after: args.after as string | null, before: args.before as string | null }, collectionPinned);
    if (!parsed.ok) return notRenderable('activity arguments');
    const q = parsed.value;
    const m = this.alias('m');
    const counted = activityFilterSql(q.filter, this.params, m);
    if (pin) counted.unshift(pin(m));
    return this.connection(nodes, {
      type: 'MarketEvent',
      table: 'market_events',
      o: m,
      where: [...counted, ...activityCursorSql(q, this.params, m)],
      counted,
      order: activityScanOrder(m, q.fromEnd),
      listOrder: activityScanOrder(m, false),
      first: q.first,
      fromEnd: q.fromEnd,
      hasPrevious: q.after !== undefined,
      hasNext: q.before !== undefined,
      cursor: `${m}.id::text`,
      guards: [],
    });
  }

  /**
   * One keyset page of orders (src/services/order-page-sql.ts): the filter, the pin, the cursors'
   * row comparisons, the sort (reversed when paging back from the end).
   */
  private orderPage(q: OrderQuery, pin?: (o: string) => string): Page {
    const o = this.alias('o');
    const where = filterSql(q.filter, this.nowSql, this.params, o);
    if (pin) where.push(pin(o));
    const counted = [...where];
    if (q.cursor) where.push(keysetSql(q.sort, 'after', q.cursor, this.params, o));
    if (q.before) where.push(keysetSql(q.sort, 'before', q.before, this.params, o));
    const { keys, desc } = SORT_KEYS[q.sort];
    const scanDesc = desc !== (q.fromEnd === true);
    const guards = [q.cursor, q.before].filter((h): h is string => h !== undefined).map((h) => `EXISTS (SELECT 1 FROM orders WHERE hash = ${this.params.add(h)})`);
    return {
      type: 'Order',
      table: 'orders',
      o,
      where,
      counted,
      order: keys.map((k) => `${o}.${k} ${scanDesc ? 'DESC' : 'ASC'}`).join(', '),
      listOrder: keys.map((k) => `${o}.${k} ${desc ? 'DESC' : 'ASC'}`).join(', '),
      first: q.first,
      fromEnd: q.fromEnd === true,
      hasPrevious: q.cursor !== undefined,
      hasNext: q.before !== undefined,
      cursor: `${o}.hash`,
      guards,
    };
  }

  /**
   * A Relay connection over one page: the page's rows (LIMIT page size, in scan order) aggregated
   * into edges and cursors in list order; whether more exist beyond the page as an EXISTS past its
   * last row (only when pageInfo asks); totalCount as a COUNT over the filter without the cursors.
   * An unknown cursor makes it unrenderable (the resolver raises INVALID_CURSOR).
   */
  connection(nodes: readonly FieldNode[], page: Page): string {
    const { o, type } = page;
    const aggregates = new Map<string, string>();
    const parts: { key: string; sql: string }[] = [];
    for (const [key, fieldNodes] of collectFields(subSelections(nodes), `${type}Connection`, this.scope)) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') parts.push({ key, sql: typenameJson(`${type}Connection`) });
      else if (page.extra && Object.hasOwn(page.extra, name)) parts.push({ key, sql: page.extra[name]! });
      else if (name === 'totalCount') parts.push({ key, sql: `(SELECT count(*) FROM ${page.table} ${o} ${whereSql(page.counted)})::text` });
      else if (name === 'edges') {
        const agg = `e${aggregates.size}`;
        aggregates.set(agg, this.edgesAggregate(page, this.edge(fieldNodes, page)));
        parts.push({ key, sql: `'[' || p.${agg} || ']'` });
      } else if (name === 'pageInfo') {
        const more = `CASE WHEN EXISTS (SELECT 1 FROM ${page.table} ${o} ${whereSql(page.where)} ORDER BY ${page.order} OFFSET ${page.first}) THEN 'true' ELSE 'false' END`;
        const info: { key: string; sql: string }[] = [];
        for (const [infoKey, infoNodes] of collectFields(subSelections(fieldNodes), 'PageInfo', this.scope)) {
          const infoName = infoNodes[0]!.name.value;
          if (infoName === '__typename') info.push({ key: infoKey, sql: typenameJson('PageInfo') });
          else if (infoName === 'hasNextPage') info.push({ key: infoKey, sql: page.fromEnd ? jsonFlag(page.hasNext) : more });
          else if (infoName === 'hasPreviousPage') info.push({ key: infoKey, sql: page.fromEnd ? more : jsonFlag(page.hasPrevious) });
          else if (infoName === 'startCursor' || infoName === 'endCursor') {
            const order = infoName === 'startCursor' ? page.listOrder : reverse(page.listOrder);
            aggregates.set(infoName, `(array_agg(${page.cursor} ORDER BY ${order}))[1]`);
            info.push({ key: infoKey, sql: `COALESCE(to_json(p.${infoName})::text, 'null')` });
          } else notRenderable(`PageInfo.${infoName}`);
        }
        parts.push({ key, sql: jsonObjectSql(info) });
      } else notRenderable(`${type}Connection.${name}`);
    }
    return this.pageJson(page, aggregates, jsonObjectSql(parts));
  }

  /** The page's rows as one text, in list order. */
  private edgesAggregate(page: Page, item: string): string {
    return `COALESCE(string_agg(${orUnrenderable(item)}, ',' ORDER BY ${page.listOrder}), '')`;
  }

  private pageJson(page: Page, aggregates: Map<string, string>, select: string): string {
    const { o } = page;
    const sql = aggregatedSql(select, aggregates, `(SELECT * FROM ${page.table} ${o} ${whereSql(page.where)} ORDER BY ${page.order} LIMIT ${page.first}) ${o}`);
    return page.guards.length ? `CASE WHEN ${page.guards.join(' AND ')} THEN ${sql} END` : sql;
  }

  private edge(nodes: readonly FieldNode[], page: Page): string {
    const parts: { key: string; sql: string }[] = [];
    for (const [key, fieldNodes] of collectFields(subSelections(nodes), `${page.type}Edge`, this.scope)) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') parts.push({ key, sql: typenameJson(`${page.type}Edge`) });
      else if (name === 'cursor') parts.push({ key, sql: `to_json(${page.cursor})::text` });
      else if (name === 'node') parts.push({ key, sql: this.object(page.type, fieldNodes, page.o) });
      else notRenderable(`${page.type}Edge.${name}`);
    }
    return jsonObjectSql(parts);
  }

  /**
   * Collections ranked (Query.collections), same arguments and errors as the resolver
   * (src/schema/discovery.ts). By a volume or the floor the ranking is a sub-select of this
   * statement (src/services/collection-discovery.ts rankedPageQuery): the page's addresses, in
   * order, with hasNextPage and totalCount; an unknown cursor leaves the field to the resolver,
   * which raises INVALID_CURSOR. By name or change the ranking service runs first and the page's
   * addresses become a parameter. The rows render here either way.
   */
  async collectionConnection(nodes: readonly FieldNode[], args: Record<string, unknown>, ctx: Context): Promise<string> {
    const parsed = parsePageArgs(args as PageArgs, COLLECTION_PAGE_RULES);
    if (!parsed.ok) return notRenderable('page arguments');
    const q: CollectionQuery = { ...parsed.value, filter: (args.filter ?? {}) as CollectionFilter, orderBy: (args.orderBy ?? 'NAME') as CollectionOrder };
    const { first } = q;
    const discovery = ctx.services.collectionDiscovery;
    const c = this.alias('c');
    const rk = `${c}_rank`;
    const selected = collectFields(subSelections(nodes), 'CollectionConnection', this.scope);
    const counted = [...selected.values()].some((f) => f[0]!.name.value === 'totalCount');
    const rankSql = discovery.rankedPageQuery(q, (v) => this.params.add(v), this.params.at, { count: counted });
    /** `listed`: ORDER BY of the rows in list order (the ranked arrays come in scan order, reversed when paging from the end) */
    let source: { totalCount: string; hasNextPage: string; hasPreviousPage: string; listed: string; wrap: (sql: string) => string };
    let rows: string;
    if (rankSql !== null) {
      // each row's key beside its address: the statistic it was ranked by, which its stats read
      // rather than compute again (planCollectionStats)
      rows = `unnest(${rk}.addresses[1:${first}], ${rk}.keys[1:${first}]) WITH ORDINALITY AS ${c}_(address, k, i)`;
      this.rankKeys.set(c, q.orderBy === 'FLOOR' ? { floor: `${c}_.k` } : { volume: { seconds: q.orderBy === 'VOLUME_24H' ? DAY_SECONDS : 7 * DAY_SECONDS, sql: `${c}_.k` } });
      const more = `CASE WHEN cardinality(${rk}.addresses) > ${first} THEN 'true' ELSE 'false' END`;
      source = {
        totalCount: `${rk}.total::text`,
        hasNextPage: q.fromEnd ? jsonFlag(q.before !== undefined) : more,
        hasPreviousPage: q.fromEnd ? more : jsonFlag(q.after !== undefined),
        listed: `${c}_.i${q.fromEnd ? ' DESC' : ''}`,
        wrap: (sql) => `(SELECT CASE WHEN ${rk}.found_after AND ${rk}.found_before THEN ${sql} END FROM (${rankSql}) ${rk})`,
      };
    } else {
      // ranked in JavaScript from the data: this page's statement is no other request's
      this.markVolatile();
      const ranked = await discovery.rankCollectionPage(q).catch((e) => notRenderable(`ranking: ${e.message}`));
      rows = `unnest(${this.params.add(ranked.addresses, '::text[]')}) WITH ORDINALITY AS ${c}_(address, i)`;
      source = {
        totalCount: `'${ranked.totalCount}'`,
        hasNextPage: jsonFlag(ranked.hasNextPage),
        hasPreviousPage: jsonFlag(ranked.hasPreviousPage),
        listed: `${c}_.i`,
        wrap: (sql) => sql,
      };
    }
    // one primary-key probe per address (fenced: joined, the planner hashed every collection)
    rows += ` CROSS JOIN LATERAL (SELECT * FROM collections k WHERE k.address = ${c}_.address OFFSET 0) ${c}`;
    const aggregates = new Map<string, string>();
    const parts: { key: string; sql: string }[] = [];
    const edgeFields = (fieldNodes: readonly FieldNode[]) => {
      const edge: { key: string; sql: string }[] = [];
      for (const [key, f] of collectFields(subSelections(fieldNodes), 'CollectionEdge', this.scope)) {
        const name = f[0]!.name.value;
        if (name === '__typename') edge.push({ key, sql: typenameJson('CollectionEdge') });
        else if (name === 'cursor') edge.push({ key, sql: `to_json(${c}.address)::text` });
        else if (name === 'node') edge.push({ key, sql: this.object('Collection', f, c) });
        else notRenderable(`CollectionEdge.${name}`);
      }
      return jsonObjectSql(edge);
    };
    for (const [key, fieldNodes] of selected) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') parts.push({ key, sql: typenameJson('CollectionConnection') });
      else if (name === 'totalCount') parts.push({ key, sql: source.totalCount });
      else if (name === 'edges') {
        const agg = `e${aggregates.size}`;
        aggregates.set(agg, `COALESCE(string_agg(${orUnrenderable(edgeFields(fieldNodes))}, ',' ORDER BY ${source.listed}), '')`);
        parts.push({ key, sql: `'[' || p.${agg} || ']'` });
      } else if (name === 'pageInfo') {
        const info: { key: string; sql: string }[] = [];
        for (const [infoKey, infoNodes] of collectFields(subSelections(fieldNodes), 'PageInfo', this.scope)) {
          const infoName = infoNodes[0]!.name.value;
          if (infoName === '__typename') info.push({ key: infoKey, sql: typenameJson('PageInfo') });
          else if (infoName === 'hasNextPage') info.push({ key: infoKey, sql: source.hasNextPage });
          else if (infoName === 'hasPreviousPage') info.push({ key: infoKey, sql: source.hasPreviousPage });
          else if (infoName === 'startCursor' || infoName === 'endCursor') {
            aggregates.set(infoName, `(array_agg(${c}.address ORDER BY ${infoName === 'startCursor' ? source.listed : reverse(source.listed)}))[1]`);
            info.push({ key: infoKey, sql: `COALESCE(to_json(p.${infoName})::text, 'null')` });
          } else notRenderable(`PageInfo.${infoName}`);
        }
        parts.push({ key, sql: jsonObjectSql(info) });
      } else notRenderable(`CollectionConnection.${name}`);
    }
    return source.wrap(aggregatedSql(jsonObjectSql(parts), aggregates, rows));
  }

  /**
   * One row of a read type by its key, or null (`COALESCE(..., 'null')`). `keyType`: the key
   * column's SQL type, given where the reads below the row are worth planning for the key's value:
   * below the row the key is then the parameter itself, not the row's column, so PostgreSQL plans
   * the row's own reads for that value. Through the column it planned a collection's asks for an
   * average collection, and on a hot one (2,558 live asks) sorted every ask after a bitmap scan
   * instead of reading the price index in order (11.6 against 1.3 ms at 100k orders). The
   * parameter is cast to the column's type wherever it appears: PostgreSQL types a parameter from
   * its first use, and as text it would compare a `char` key as text, past its index.
   */
  byKey(type: ReadTypeName, nodes: readonly FieldNode[], column: string, value: unknown, keyType?: string): string {
    const t = this.alias(type[0]!.toLowerCase());
    let inner = this.object(type, nodes, t);
    let key = this.params.add(value);
    if (keyType) {
      key = `${key}::${keyType}`;
      inner = inner.replace(new RegExp(`\\b${t}\\.${column}\\b`, 'g'), `(${key})`);
    }
    return `COALESCE((SELECT ${orUnrenderable(inner)} FROM ${READ_TYPES[type].table} ${t} WHERE ${t}.${column} = ${key}), 'null')`;
  }
}

/**
 * `select` over one row of aggregates of `from` (`p.<key>` in `select` reads `aggregates[key]`),
 * as one scalar sub-select. The aggregates are written into the select itself rather than read
 * from a sub-select of them: one copy fewer of each aggregated text. That matters most where a
 * backend returns its heap to the kernel after every statement (src/db/database.ts raises the
 * thresholds on this pool's connections; a pooler in front may hand out others): pgbench of the
 * offer board's statement, 2,100 against 1,300 statements/s on fresh backends, 2,140-2,340
 * against 2,130-2,220 on raised ones. A select without aggregates still gets its one row from an
 * aggregate over the rows.
 */
function aggregatedSql(select: string, aggregates: ReadonlyMap<string, string>, from: string): string {
  let used = false;
  const inlined = select.replace(/\bp\.(\w+)\b/g, (whole, key: string) => {
    const agg = aggregates.get(key);
    if (agg === undefined) return whole;
    used = true;
    return `(${agg})`;
  });
  return used ? `(SELECT ${inlined} FROM ${from})` : `(SELECT ${select} FROM (SELECT count(*) FROM ${from}) p)`;
}

/** An ORDER BY list with every direction turned. */
const reverse = (order: string) => order.split(', ').map((k) => (k.endsWith(' DESC') ? k.slice(0, -5) + ' ASC' : k.endsWith(' ASC') ? k.slice(0, -4) + ' DESC' : `${k} DESC`)).join(', ');
const jsonFlag = (b: boolean) => (b ? `'true'` : `'false'`);
const whereSql = (and: readonly string[]) => (and.length ? `WHERE ${and.join(' AND ')}` : '');

/** The connection's arguments parsed as the resolver parses them (a pinned connection ignores the filter it pins). */
function orderQueryOf(args: Record<string, unknown>, pinned: boolean, pins: 'collection' | 'signer'): OrderQuery {
  // the pin's own predicate replaces the filter it pins: an empty value leaves it unset
  const parsed =
    pinned && pins === 'signer'
      ? parseOrderConnectionArgs({ ...args, filter: { ...((args.filter ?? {}) as object), signer: '' } })
      : parseOrderConnectionArgs(args, pinned ? '' : undefined);
  return parsed.ok ? parsed.value : notRenderable('order query');
}

type RootPlanner = (plan: QueryPlan, nodes: readonly FieldNode[], args: Record<string, unknown>, ctx: Context) => string | Promise<string>;

/** Query fields the engine renders; any other root field is resolved as before. */
const ROOT_FIELDS: Record<string, RootPlanner> = {
  __typename: () => jsonLiteral('Query'),
  orders: (plan, nodes, args) => plan.orderConnection(nodes, args),
  order: (plan, nodes, args) => plan.byKey('Order', nodes, 'hash', args.hash),
  collection: (plan, nodes, args) => plan.byKey('Collection', nodes, 'address', args.address, 'varchar'),
  sales: (plan, nodes, args) => plan.saleConnection(nodes, args),
  activity: (plan, nodes, args) => plan.activityConnection(nodes, args),
  collections: (plan, nodes, args, ctx) => plan.collectionConnection(nodes, args, ctx),
  searchCollections: planCollectionSearch,
  token: planToken,
  tokens: planTokens,
  account: planAccount,
  listingRewards: planListingRewards,
  indexerStatus: planIndexerStatus,
};

export const isRootPlanned = (name: string) => Object.hasOwn(ROOT_FIELDS, name);
