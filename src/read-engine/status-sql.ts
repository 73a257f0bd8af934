// effectiveStatus (src/domain/order-status.ts) in SQL: the status a client sees, over the orders
// alias `t` at the request's clock `now` (seconds). Order.status renders it; Order.fillability
// reads its reason from it.
import { CHAIN_FINAL_STATUSES } from '../domain/order-status.js';

const finalStatuses = CHAIN_FINAL_STATUSES.map((s) => `'${s}'`).join(', ');

export const shownStatusSql = (t: string, now: string) =>
  `CASE WHEN ${t}.status IN (${finalStatuses}) THEN ${t}.status::text WHEN ${t}.status = 'EXPIRED' OR ${t}.end_time < ${now} THEN 'EXPIRED' ELSE ${t}.status::text END`;
