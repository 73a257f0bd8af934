// Activity: pages of the market event log (docs/activity.md) for the resolvers and the v1 events
// route. The read engine plans the same page as SQL (./activity-sql.ts holds the shared predicate).
import type { ActivityQuery, MarketEventType } from '../domain/activity-query.js';
import type { OrderStatusName } from '../domain/order-status.js';
import { activityCursorSql, activityFilterSql, activityScanOrder } from './activity-sql.js';
import type { ServiceDeps } from './deps.js';
import { Params } from './order-page-sql.js';

/** One event as the API shows it: decimals and ids as text (uint256 and bigint exact). */
export interface MarketEventRow {
  id: string;
  type: MarketEventType;
  cause: string | null;
  collectionAddress: string;
  tokenId: string | null;
  orderHash: string | null;
  fromAddress: string | null;
  toAddress: string | null;
  price: string | null;
  amount: string | null;
  oldStatus: OrderStatusName | null;
  newStatus: OrderStatusName | null;
  blockNumber: string | null;
  txHash: string | null;
  logIndex: number | null;
  retractsId: string | null;
  /** TRAIT_FLOOR_CHANGE only: the trait value whose floor moved */
  traitType: string | null;
  traitValue: string | null;
  createdAt: Date;
}

export interface ActivityPage {
  events: MarketEventRow[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount?: number;
}

interface Queryable {
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
}

/** The API columns of the market_events row `e` (MarketEventRow). */
export const ACTIVITY_COLUMNS = `e.id::text AS "id", e.type::text AS "type", e.cause::text AS "cause", e.collection_address AS "collectionAddress",
  e.token_id::text AS "tokenId", e.order_hash AS "orderHash", e.from_address AS "fromAddress", e.to_address AS "toAddress",
  e.price::text AS "price", e.amount::text AS "amount", e.old_status::text AS "oldStatus", e.new_status::text AS "newStatus",
  e.block_number::text AS "blockNumber", e.tx_hash AS "txHash", e.log_index AS "logIndex", e.retracts_id::text AS "retractsId",
  e.trait_type AS "traitType", e.trait_value AS "traitValue", e.created_at AS "createdAt"`;

/** A request's statement batch reads rows as JSON, where a timestamp is text. */
const withDates = (rows: MarketEventRow[]) => rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt) }));

export function createActivityService(deps: ServiceDeps) {
  /** One page, newest first, with Relay's pageInfo rules (src/read-engine/plan-query.ts keeps the same). */
  async function listActivity(q: ActivityQuery, opts: { count?: boolean; sql?: Queryable } = {}): Promise<ActivityPage> {
    const sql = opts.sql ?? deps.db.sql;
    const p = new Params();
    const counted = activityFilterSql(q.filter, p, 'e');
    const where = [...counted, ...activityCursorSql(q, p, 'e')];
    const rows = sql.query<MarketEventRow>(
      `SELECT ${ACTIVITY_COLUMNS} FROM market_events e WHERE ${where.join(' AND ')} ORDER BY ${activityScanOrder('e', q.fromEnd)} LIMIT ${q.first + 1}`,
      p.values,
    );
    const count = opts.count
      ? (() => {
          const cp = new Params();
          return sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM market_events e WHERE ${activityFilterSql(q.filter, cp, 'e').join(' AND ')}`, cp.values);
        })()
      : undefined;
    const [found, counts] = await Promise.all([rows.then(withDates), count]);
    const more = found.length > q.first;
    const events = found.slice(0, q.first);
    if (q.fromEnd) events.reverse();
    const page: ActivityPage = {
      events,
      hasNextPage: q.fromEnd ? q.before !== undefined : more,
      hasPreviousPage: q.fromEnd ? more : q.after !== undefined,
    };
    if (counts) page.totalCount = Number(counts[0]!.n);
    return page;
  }

  /** Events by id, in the order asked; null where none has it. */
  async function eventsById(ids: readonly string[], sql: Queryable = deps.db.sql): Promise<(MarketEventRow | null)[]> {
    const rows = withDates(await sql.query<MarketEventRow>(`SELECT ${ACTIVITY_COLUMNS} FROM market_events e WHERE e.id = ANY($1::bigint[])`, [ids]));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  return { listActivity, eventsById };
}

export type ActivityService = ReturnType<typeof createActivityService>;
