// The event log's page in SQL, one predicate list shared by the read engine's planner
// (src/read-engine/plan-query.ts) and the resolver path (./activity.ts): the filter, the cursors
// and the order (ids newest first).
import { MARKET_EVENT_TYPES, type ActivityFilter, type ActivityQuery } from '../domain/activity-query.js';
import type { Params } from './order-page-sql.js';
import { traitConditionsSql } from './trait-conditions-sql.js';

/**
 * Which events concern a collection, a token of it, an account (sender or receiver), over the
 * market_events row `e`: the part the activity pages and the stream (./market-event-log.ts) share.
 */
export function eventScopeSql(f: { collection?: string | null; tokenId?: bigint | string; account?: string | null }, p: Params, e: string): string[] {
  const and: string[] = [];
  if (f.collection) and.push(`${e}.collection_address = ${p.add(f.collection)}`);
  if (f.tokenId !== undefined) and.push(`${e}.token_id = ${p.add(f.tokenId, '::numeric')}`);
  if (f.account) {
    const a = p.add(f.account);
    and.push(`(${e}.from_address = ${a} OR ${e}.to_address = ${a})`);
  }
  return and;
}

/** The filter over the market_events row `e`, without the cursors (totalCount counts it). */
export function activityFilterSql(f: ActivityFilter, p: Params, e: string): string[] {
  const and = eventScopeSql(f, p, e);
  if (f.from) and.push(`${e}.from_address = ${p.add(f.from)}`);
  if (f.to) and.push(`${e}.to_address = ${p.add(f.to)}`);
  // validated enum values, written as literals so the planner sees them
  if (f.types.length < MARKET_EVENT_TYPES.length) and.push(`${e}.type IN (${f.types.map((t) => `'${t}'`).join(', ')})`);
  if (f.since !== undefined) and.push(`${e}.created_at >= to_timestamp(${p.add(f.since.toString(), '::bigint')})`);
  if (f.until !== undefined) and.push(`${e}.created_at < to_timestamp(${p.add(f.until.toString(), '::bigint')})`);
  if (f.attributes) and.push(...traitConditionsSql(f.attributes, `${e}.collection_address`, `${e}.token_id`, (v, cast) => p.add(v, cast)));
  // what a reorg undid is no longer activity (its RETRACTED row says so to those who ask for it)
  and.push(`NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = ${e}.id)`);
  return and;
}

/** The cursors' conditions: ids below `after`, above `before`. */
export function activityCursorSql(q: Pick<ActivityQuery, 'after' | 'before'>, p: Params, e: string): string[] {
  const and: string[] = [];
  if (q.after !== undefined) and.push(`${e}.id < ${p.add(q.after, '::bigint')}`);
  if (q.before !== undefined) and.push(`${e}.id > ${p.add(q.before, '::bigint')}`);
  return and;
}

/** ORDER BY of the scan: newest first, or oldest first when the page is taken from the end. */
export const activityScanOrder = (e: string, fromEnd: boolean) => `${e}.id ${fromEnd ? 'ASC' : 'DESC'}`;
