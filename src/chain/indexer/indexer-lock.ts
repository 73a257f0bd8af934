// One active indexer per database: a session-level PostgreSQL advisory lock, taken with
// pg_try_advisory_lock on a dedicated connection and held for as long as that connection lives.
// The indexer writes its batches through that same connection, so an instance whose connection
// died (and with it the lock, which another instance may now hold) cannot write anything more.
// If the process dies, PostgreSQL ends its session and releases the lock; a standby takes over on
// its next attempt. On PGlite (one process, one session) the lock is re-entrant and always granted.
import type { SqlRunner } from '../../db/sql-runner.js';

/**
 * An arbitrary constant all instances agree on (the migration lock is 72_707_369). Advisory locks
 * are server-wide, so the second key is the database: two databases on one server (two
 * deployments, parallel test files) each get their own indexer.
 */
export const INDEXER_LOCK_ID = 72_707_371;
const LOCK_ARGS = '$1::int, hashtext(current_database())';

export interface IndexerLock {
  /** the connection holding the lock; the indexer's writes go through it */
  session: SqlRunner;
  release(): Promise<void>;
}

/** The lock and its connection, or null when another session holds it. */
export function tryIndexerLock(sql: SqlRunner): Promise<IndexerLock | null> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let signalRelease!: () => void;
    const released = new Promise<void>((r) => (signalRelease = r));
    const held = sql.withSession(async (session) => {
      const [row] = await session.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_ARGS}) AS locked`, [INDEXER_LOCK_ID]);
      if (!row?.locked) {
        settled = true;
        resolve(null);
        return;
      }
      settled = true;
      resolve({
        session,
        release: async () => {
          signalRelease();
          await held.catch(() => {});
        },
      });
      await released;
      // On a dead connection this fails, and the lock is gone with the session anyway.
      await session.query(`SELECT pg_advisory_unlock(${LOCK_ARGS})`, [INDEXER_LOCK_ID]).catch(() => {});
    });
    held.catch((err) => {
      if (!settled) reject(err);
    });
  });
}
