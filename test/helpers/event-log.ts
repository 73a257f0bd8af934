// The market event log in tests.
import type { Database } from '../../src/db/database.js';
import { VISIBILITY_HORIZON_SQL } from '../../src/services/market-event-log.js';

/**
 * Waits until the event is below the visibility horizon: a transaction of the test database still
 * running (a pool's, a concurrent write) can hold it back a moment, and readers wait for it too.
 */
export async function untilBelowHorizon(db: Database, id: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [r] = await db.sql.query<{ below: boolean }>(`SELECT tx_id < ${VISIBILITY_HORIZON_SQL} AS below FROM market_events WHERE id = $1::bigint`, [id]);
    if (r?.below || Date.now() > deadline) return;
    await new Promise((res) => setTimeout(res, 20));
  }
}
