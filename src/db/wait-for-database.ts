// PostgreSQL unreachable at boot: retry for a bounded time, then stop with one line
// that says what to do; DATABASE_WAIT_SECONDS=forever waits as long as it takes (orchestrators
// that start the database and the service together). Errors no wait can fix (bad password,
// missing database) stop at once.
import { StartupError } from '../startup-error.js';
import type { Database } from './database.js';

// SQLSTATEs that mean "reachable but refused for good": invalid_password, invalid_authorization_specification, invalid_catalog_name.
const PERMANENT = new Set(['28P01', '28000', '3D000']);

export interface WaitOptions {
  seconds: number;
  onRetry?: (attempt: number, reason: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

// pg raises an AggregateError with an empty message when every address of the host refuses.
const reasonOf = (err: unknown) => {
  const e = err as { code?: string; message?: string; errors?: { message?: string }[] };
  return (e.message || e.errors?.[0]?.message || e.code || String(err)).split('\n')[0]!;
};

export async function waitForDatabase(db: Database, opts: WaitOptions): Promise<void> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = performance.now() + opts.seconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      await db.sql.query('SELECT 1');
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      const reason = reasonOf(err);
      if (code && PERMANENT.has(code)) throw new StartupError(`${db.describe} refused the connection: ${reason}; fix DATABASE_URL`);
      if (performance.now() >= deadline) {
        throw new StartupError(
          `${db.describe} is unreachable (${reason}) after ${attempt} attempt(s) over ${opts.seconds} s; start it or fix DATABASE_URL, or set DATABASE_WAIT_SECONDS=forever to wait for it`,
        );
      }
      opts.onRetry?.(attempt, reason);
      await sleep(Math.min(250 * 2 ** Math.min(attempt - 1, 4), 2000, Math.max(0, deadline - performance.now())));
    }
  }
}
