// The indexed block this process vouches for: the highest block whose effects are committed (the
// indexer_cursor row), known without a statement per request. Every API response carries it
// (X-Indexed-Block, GraphQL extensions.indexedBlock) and reads that ask for a block or a
// transaction wait on it (src/http/consistency.ts).
//
// It may lag the cursor but never lead it: it only takes values the cursor had after a commit,
// told by this process's indexer right after its commit (`committed`, the indexer's onCursor) or
// read by a poll of indexer_cursor (every POLL_MS, every WAITING_POLL_MS while a read waits; one
// poll serves every waiter). A reorg moves the cursor back and the mark follows it down. With a
// read replica in use (DATABASE_REPLICA_URL) the mark is the lower of the primary's cursor and the
// replica's, so a read served by either reflects it.
//
// The event bus is not a source: it carries order changes and sales, not a message per batch, and
// subscribing to it would bring every event to every instance for a hint the poll gives within
// WAITING_POLL_MS.
import type { Database } from '../db/database.js';
import type { ServiceDeps } from './deps.js';

export const POLL_MS = 1000;
export const WAITING_POLL_MS = 100;
/** a transaction that is not mined yet: its receipt is asked for again after this long */
const RECEIPT_RETRY_MS = 250;

/** the poll's one statement (tests leave it out of the statements a request sends) */
export const CURSOR_SQL = 'SELECT block_number::text AS block_number FROM indexer_cursor WHERE chain_id = $1 ORDER BY block_number DESC LIMIT 1';

interface Waiter {
  block: number;
  done: (reached: boolean) => void;
}

export function createIndexedBlockService(deps: Pick<ServiceDeps, 'db' | 'replica' | 'network' | 'chain'>) {
  /** undefined: not read yet; null: no cursor */
  let primary: number | null | undefined;
  let replica: number | null | undefined;
  const waiters = new Set<Waiter>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerFast = false;
  let running = false;
  let polling: Promise<void> | null = null;
  const receipts = new Map<string, Promise<number | null>>();

  function current(): number | null {
    const p = primary ?? null;
    if (p === null || !deps.replica?.usable()) return p;
    return replica == null ? null : Math.min(p, replica);
  }

  function settle(): void {
    if (!waiters.size) return;
    const at = current();
    if (at === null) return;
    for (const w of waiters) if (w.block <= at) w.done(true);
  }

  /** This process's indexer committed: the cursor now names `block` (lower after a rollback). */
  function committed(block: number): void {
    primary = block;
    settle();
  }

  async function readCursor(db: Database): Promise<number | null> {
    const [row] = await db.sql.query<{ block_number: string }>(CURSOR_SQL, [deps.network.chainId]);
    return row ? Number(row.block_number) : null;
  }

  /** Reads the cursor now (one statement, two with a replica in use); concurrent callers share it. */
  function refresh(): Promise<void> {
    polling ??= (async () => {
      try {
        const [p, r] = await Promise.all([
          readCursor(deps.db).catch(() => primary),
          deps.replica?.usable() ? readCursor(deps.replica.db).catch(() => replica) : Promise.resolve(replica),
        ]);
        primary = p;
        replica = r;
        settle();
      } finally {
        polling = null;
      }
    })();
    return polling;
  }

  function schedule(): void {
    clearTimeout(timer);
    timer = undefined;
    timerFast = false;
    if (!running && !waiters.size) return;
    timerFast = waiters.size > 0;
    timer = setTimeout(() => void refresh().catch(() => {}).finally(schedule), timerFast ? WAITING_POLL_MS : POLL_MS);
    timer.unref?.();
  }

  /** True once the mark is at `block` or above, false when `ms` passed first. */
  function waitFor(block: number, ms: number): Promise<boolean> {
    const at = current();
    if (at !== null && at >= block) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        block,
        done: (reached) => {
          clearTimeout(deadline);
          waiters.delete(waiter);
          resolve(reached);
        },
      };
      const deadline = setTimeout(() => waiter.done(false), ms);
      waiters.add(waiter);
      if (!timerFast) schedule();
    });
  }

  /** The block of a mined transaction; null while it is not mined (or the node does not answer). */
  function transactionBlock(hash: string): Promise<number | null> {
    const chain = deps.chain;
    if (!chain) return Promise.resolve(null);
    const key = hash.toLowerCase();
    let asked = receipts.get(key);
    if (!asked) {
      // one call per hash however many reads wait for it
      asked = chain.provider
        .getTransactionReceipt(key)
        .then((r) => r?.blockNumber ?? null)
        .catch(() => null)
        .finally(() => receipts.delete(key));
      receipts.set(key, asked);
    }
    return asked;
  }

  /**
   * Waits until the transaction's block is indexed, at most `ms`: its receipt is asked for until
   * it is mined, then the mark is awaited. `reached` false: not mined, or not indexed, in time.
   */
  async function waitForTransaction(hash: string, ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      const left = deadline - performance.now();
      const block = await Promise.race([transactionBlock(hash), sleep(Math.max(0, left)).then(() => null)]);
      if (block !== null) return waitFor(block, deadline - performance.now());
      const rest = deadline - performance.now();
      if (rest <= 0) return false;
      await sleep(Math.min(RECEIPT_RETRY_MS, rest));
    }
  }

  return {
    current,
    committed,
    refresh,
    waitFor,
    waitForTransaction,
    /** whether a transaction can be waited for (a chain node is configured) */
    canWaitForTransactions: () => deps.chain !== null,
    /** polls the cursor every POLL_MS until stop() */
    start(): void {
      running = true;
      if (!timer) schedule();
    },
    stop(): void {
      running = false;
      clearTimeout(timer);
      timer = undefined;
      for (const w of waiters) w.done(false);
    },
  };
}

export type IndexedBlockService = ReturnType<typeof createIndexedBlockService>;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
