// Orders submitted while the indexer was at work. A submission checks the chain at a
// block B and stores B with the order (orders.chain_checked_block). An event after B that the
// indexer applies could be missed by that order: its batch may have scanned for affected orders
// before the row was committed. So every batch also takes the unsettled orders it can see:
//   * B < the batch's last block: re-derived from the chain at that block, like an affected order;
//   * B >= the batch's last block: its checks already saw every block of the batch;
// and settles them (chain_checked_block = NULL) in the batch's transaction. A row committed after
// the scan stays unsettled for the next batch. Later blocks reach a settled row through the usual
// affected-order scan, which sees it from then on. Nonce facts (cancels, minimum nonces, fills)
// need no chain read: the batch script and submit_orders serialise on ORDER_WRITE_LOCK_SQL, so the
// SQL of one sees what the other committed.
import type { SqlRunner } from '../../db/sql-runner.js';
import { TERMINAL_STATUSES, type OrderStatusName } from '../../domain/order-status.js';
import type { LiveOrder } from './order-facts.js';
import { LIVE_ORDER_COLUMNS, toLiveOrder, type LiveOrderRow } from './affected-orders.js';
import { sqlHex, sqlInt } from '../../db/sql-literals.js';
import { cursorGuardSql, recordFloorsSql, setStatusSql } from './status-sql.js';

/**
 * The batch script's first statement: the exclusive side of the lock submit_orders takes shared
 * (key 72707372 per database, migration 20261123100000_order_submission).
 */
export const ORDER_WRITE_LOCK_SQL = 'SELECT pg_advisory_xact_lock(72707372, hashtext(current_database()))';

export interface UnsettledOrders {
  /** live orders whose checks read an earlier block than the batch's last: re-derive them */
  stale: LiveOrder[];
  /** every unsettled order seen, to settle in the batch's transaction */
  hashes: string[];
}

type Row = LiveOrderRow & { checked: string };

export async function findUnsettledOrders(sql: SqlRunner, batchEnd: number): Promise<UnsettledOrders> {
  const rows = await sql.query<Row>(
    `SELECT ${LIVE_ORDER_COLUMNS}, o.chain_checked_block::text AS checked
     FROM orders o JOIN collections c ON c.address = o.collection_address
     WHERE o.chain_checked_block IS NOT NULL`,
  );
  const terminal = new Set<string>(TERMINAL_STATUSES);
  return {
    stale: rows
      .filter((r) => Number(r.checked) < batchEnd && !terminal.has(r.status))
      .map(toLiveOrder),
    hashes: rows.map((r) => r.hash),
  };
}

/** Settles exactly the orders the batch saw (a row inserted since stays for the next batch). */
export function settleOrdersSql(hashes: readonly string[]): string | null {
  if (!hashes.length) return null;
  for (const h of hashes) if (!/^0x[0-9a-f]{64}$/.test(h)) throw new Error(`not an order hash: ${h}`);
  return `UPDATE orders SET chain_checked_block = NULL WHERE hash IN (${hashes.map((h) => `'${h}'`).join(', ')})`;
}

/** The affected orders plus the stale unsettled ones, each once. */
export function withUnsettled(affected: readonly LiveOrder[], unsettled: UnsettledOrders): LiveOrder[] {
  const seen = new Set(affected.map((o) => o.hash));
  return [...affected, ...unsettled.stale.filter((o) => !seen.has(o.hash))];
}

/**
 * With no new block to index, the unsettled orders still get evaluated at the cursor block (a
 * quiet chain may not mine for a while): their statuses journaled at that block, the floors, and
 * the settling, in one transaction that fails if the cursor moved meanwhile.
 */
export function buildSettleScript(input: {
  stream: string;
  cursor: number;
  derived: readonly { hash: string; status: OrderStatusName }[];
  hashes: readonly string[];
  now: Date;
  standardStrategies: readonly string[];
}): string | null {
  const settle = settleOrdersSql(input.hashes);
  if (!settle) return null;
  const out = [ORDER_WRITE_LOCK_SQL, cursorGuardSql(input.stream, input.cursor)];
  const byStatus = new Map<OrderStatusName, string[]>();
  for (const d of input.derived) byStatus.set(d.status, [...(byStatus.get(d.status) ?? []), sqlHex(d.hash)]);
  for (const [status, hashes] of byStatus) out.push(setStatusSql(`hash IN (${hashes.join(', ')})`, status, input.cursor));
  // journal rows at the cursor block: this pass's and the last batch's (whose floors are recorded
  // already; a floor point is only written when the floor differs from the last one)
  if (byStatus.size) out.push(recordFloorsSql(`j.block_number = ${sqlInt(input.cursor)}`, input.now, input.standardStrategies));
  out.push(settle);
  return out.join(';\n') + ';';
}
