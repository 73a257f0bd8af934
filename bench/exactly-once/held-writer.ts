// An operator's SQL in the middle of the market: a transaction that takes its id, holds on for up
// to 1.5 s while the service commits other events, then appends a TRANSFER and commits. Its event
// gets a higher id than events committed meanwhile but sorts before them (its transaction is
// older), and no bus message announces it: the streams must wait at the visibility horizon and
// pick it up by their poll (docs/activity.md, "Streaming and resuming"). Without it the service's
// short transactions commit in id order and the log's reading order never differs from the ids'.
import type pg from 'pg';
import type { prng } from '../../src/demo/prng.js';

export function startHeldWriter(pool: pg.Pool, collection: string, rnd: ReturnType<typeof prng>, holdMs = 1500) {
  let stopped = false;
  let written = 0;
  const loop = (async () => {
    while (!stopped) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_current_xact_id()');
        await new Promise((r) => setTimeout(r, rnd.int(100, holdMs)));
        const from = `0x${rnd.int(1, 9).toString().repeat(40)}`;
        await client.query(
          `INSERT INTO market_events (type, collection_address, token_id, from_address, to_address, amount, created_at)
           VALUES ('TRANSFER', $1, $2, $3, $4, 1, clock_timestamp())`,
          [collection, rnd.int(1, 1000), from, `0x${'a'.repeat(40)}`],
        );
        await client.query('COMMIT');
        written++;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
      await new Promise((r) => setTimeout(r, rnd.int(0, 2000)));
    }
  })();
  return {
    /** events appended so far */
    written: () => written,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
