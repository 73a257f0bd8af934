// DDL that takes a lock writers need (ALTER TABLE takes ACCESS EXCLUSIVE) must not wait for it
// behind a long read: PostgreSQL queues every later request for the table behind the waiting
// ALTER, so the whole book would stop until the read ends. Such DDL runs under a short
// lock_timeout instead; when it gives up (lock_not_available, or a deadlock with the service's
// own transactions) it is rolled back and tried again a little later, so writers wait at most
// one lock_timeout per try and go on in between.

export interface LockRetryOptions {
  /** lock_timeout of each try (ms); 0: wait for the locks as long as it takes, in one try */
  lockTimeoutMs: number;
  /** stop trying after this long (ms) and fail with the last error */
  retryForMs: number;
}

/** lock_not_available (lock_timeout passed), deadlock_detected */
const BUSY = new Set(['55P03', '40P01']);

export const isBusyLockError = (err: unknown) => BUSY.has((err as { code?: string } | null)?.code ?? '');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pause that doubles per try up to 2 s, jittered so instances that collided do not collide again. */
const backoffMs = (tries: number) => Math.min(2000, 50 * 2 ** tries) * (0.5 + Math.random());

/** The statement that bounds lock waits for the rest of the transaction (LOCAL) or the session. */
export const lockTimeoutSql = (ms: number, scope: 'LOCAL' | 'SESSION') => `SET ${scope} lock_timeout = ${Math.max(0, Math.floor(ms))}`;

/** The last busy error of a statement that never got its locks, with what to look at. */
export class LocksStayedBusy extends Error {
  readonly code: string;
  constructor(last: Error & { code?: string }, tries: number, opts: LockRetryOptions) {
    super(
      `${last.message} (tried ${tries} times in ${Math.round(opts.retryForMs / 1000)} s with lock_timeout ${opts.lockTimeoutMs} ms: ` +
        'a long transaction holds a table it changes; see pg_stat_activity and pg_locks)',
    );
    this.code = last.code ?? '';
  }
}

/**
 * Runs `attempt` (which must leave nothing behind when it fails: a transaction rolled back, or a
 * single statement) until it succeeds, trying again only when its locks were busy.
 */
export async function retryWhileLocksBusy(opts: LockRetryOptions, attempt: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + opts.retryForMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusyLockError(err) || opts.lockTimeoutMs === 0) throw err;
      if (Date.now() >= deadline) throw new LocksStayedBusy(err as Error, tries, opts);
      await sleep(backoffMs(tries));
    }
  }
}
