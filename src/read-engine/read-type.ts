// What a read type is, and what planning one may ask of the planner: the declarations
// (./read-types.ts and the per-type files beside it) are written against these types only, and
// the planner (./plan-query.ts) implements `Planner`, so declarations and planner do not import
// each other.
import type { FieldNode, GraphQLSchema } from 'graphql';
import type { Network } from '../domain/networks.js';
import type { BookParams } from '../services/token-sql.js';
import type { SelectionScope } from './selection.js';
import type { PlanParams } from './plan-params.js';

/** What a field reads, over the row alias `t` of its type; `now()` is the request's clock in seconds (SQL, a parameter added on first use). */
export type FieldRead<Col extends string> =
  /** a value rendered by one SQL expression */
  | { kind: 'leaf'; columns: readonly Col[]; json: (t: string, now: () => string) => string }
  /**
   * a value rendered over one of the type's shared rows (ReadType.rows), under that row's alias `r`:
   * the fields of an object that read one shared row join it once, not a sub-select each
   */
  | { kind: 'row'; row: string; json: (p: Planner, nodes: readonly FieldNode[], r: string) => string }
  /** one object of another read type: the SQL after SELECT ... (`FROM x a WHERE ...`), null allowed or not */
  | { kind: 'object'; type: ReadTypeName; columns: readonly Col[]; from: (t: string, a: string, now: () => string) => string; nullable: boolean }
  /** an order connection pinned to this row (Collection.orders; Account.orders pins the signer): a predicate over the orders alias */
  | { kind: 'orders'; columns: readonly Col[]; pin: (t: string, o: string) => string; pins?: 'collection' | 'signer' }
  /** rendered by its own planner, with the field's arguments (Collection.depth, Token.owners: ./token-reads.ts) */
  | { kind: 'planned'; columns: readonly Col[]; plan: (p: Planner, nodes: readonly FieldNode[], args: Record<string, unknown>, t: string) => string }
  /** computed by its resolver only; the engine resolves it per parent key (./islands.ts) */
  | { kind: 'resolver'; columns: readonly Col[]; reason: string };

export type ReadTypeName = 'Order' | 'Collection' | 'Sale' | 'MarketEvent' | 'Token' | 'Account' | 'AccountHolding' | 'ListingRewardCollection' | 'IndexerStatus';

export interface ReadType<Col extends string = string> {
  table: string;
  /** how the engine fetches one row of this type again to run a resolver-only field under it (none: every field renders) */
  refetch?: { field: string; arg: string; key: (t: string) => string };
  fields: Record<string, FieldRead<Col>>;
  /** rows beside the type's own that several fields read, by name: the LEFT JOIN of row `r` to the row `t` (`table r ON ...`) */
  rows?: Record<string, (t: string, r: string) => string>;
}

/** One page of a connection: rows of `table` as `o`, and what its pageInfo says. */
export interface Page {
  type: ReadTypeName;
  table: string;
  o: string;
  /** the filter and the cursors' conditions */
  where: string[];
  /** the filter alone (totalCount) */
  counted: string[];
  /** ORDER BY in scan order */
  order: string;
  /** ORDER BY in list order: the scan's, or its reverse when paging back from the end */
  listOrder: string;
  first: number;
  /** paging back from the end: the list is the scan reversed */
  fromEnd: boolean;
  hasPrevious: boolean;
  hasNext: boolean;
  /** SQL of an edge's cursor over `o` */
  cursor: string;
  /** conditions that every given cursor names a known row */
  guards: string[];
  /** fields of the connection beyond totalCount, edges and pageInfo, as JSON SQL (AccountHoldingConnection's totals) */
  extra?: Record<string, string>;
}

/** What a ranked row's key is (Planner.rankKeys): SQL of a NUMERIC value. */
export type RankKey = { volume: { seconds: number; sql: string } } | { floor: string };

/** The planner as the read types' own planners use it (./plan-query.ts QueryPlan). */
export interface Planner {
  readonly schema: GraphQLSchema;
  readonly scope: SelectionScope;
  /** the statement's parameters; a value computed from the request's clock is added with `params.at` */
  readonly params: PlanParams;
  readonly strategies: Pick<Network['strategies'], 'standardSale' | 'collectionOffer'>;
  /** the addresses a fix names (Order.fillability) */
  readonly operators: Pick<Network, 'exchange' | 'transferManagerERC721' | 'transferManagerERC1155'>;
  /** the clock and the network's strategy lists, for the book's SQL (src/services/token-sql.ts) */
  readonly book: BookParams;
  /** MEDIA_BASE_URL: hosted images' URLs (src/services/hosted-media-sql.ts) */
  readonly mediaBaseUrl: string | undefined;
  /** rows whose ranking key is one of their statistics, by alias */
  readonly rankKeys: ReadonlyMap<string, RankKey>;
  /** the request's clock in seconds, as a parameter */
  nowSql(): string;
  /** the clock `secondsBack` seconds ago, floored to `unit` milliseconds, as a timestamptz parameter */
  instantSql(secondsBack: number, unit?: number): string;
  /** the plan reads data or process state (the indexer's view): it is this request's only */
  markVolatile(): void;
  /** leaves the root field to its resolvers (a selection with no SQL rendering) */
  unrenderable(why: string): never;
  alias(prefix: string): string;
  /** one row of `type` under the alias `t` as a JSON object of the selected fields */
  object(type: ReadTypeName, nodes: readonly FieldNode[], t: string): string;
  /** the row columns the fields selected under `nodes` (an object of `type`) declare they read */
  columnsRead(type: ReadTypeName, nodes: readonly FieldNode[]): ReadonlySet<string>;
  /** a connection over `page`, its totalCount, edges and pageInfo as selected */
  connection(nodes: readonly FieldNode[], page: Page): string;
  /** an activity page, `pin` adding the parent's predicate over the events alias */
  activityConnection(nodes: readonly FieldNode[], args: Record<string, unknown>, pin?: (m: string) => string, collectionPinned?: boolean): string;
}
