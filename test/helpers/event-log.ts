// The market event log in tests.
import type { Database } from '../../src/db/database.js';

/**
 * Waits until the event is below the visibility horizon: on a shared PostgreSQL server another
 * database's transaction can hold it back a moment, and retention and readers wait for it too.
 */
export async function untilBelowHorizon(db: Database, id: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [r] = await db.sql.query<{ below: boolean }>(`SELECT tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS below FROM market_events WHERE id = $1::bigint`, [id]);
    if (r?.below || Date.now() > deadline) return;
    await new Promise((res) => setTimeout(res, 20));
  }
}
