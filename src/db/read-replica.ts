// Read replicas: reads of the order book, collections, stats and listing rewards may go
// to a PostgreSQL streaming replica (DATABASE_REPLICA_URL) through its own pool and PrismaClient;
// writes, nonces, the per-nonce cap and the indexer always use the primary (they read
// services.deps.db; only readDb() below ever returns the replica).
//
// Why not @prisma/extension-read-replicas: it routes every read of one client, including the
// reads the submission path must do on the primary (nonces, duplicates, the cap rule), unless
// each is wrapped in $primary(). Here the read services opt in instead, so a new query stays on
// the primary unless someone decides otherwise.
//
// Consistency rule, the one clients see (docs/operations.md, "Deploying"):
//   - an order fetched by hash is never missing because of lag: a miss on the replica is asked
//     again on the primary (read your own write: POST, then GET from any instance);
//   - lists, collections and stats may lag the primary, by at most DATABASE_REPLICA_MAX_LAG_MS
//     plus one probe interval: a probe compares the replica's replayed WAL position with the
//     primary's, and while the replica is further behind (or unreachable) reads go to the primary.
import { openDatabase, type Database } from './database.js';

export interface ReplicaLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export interface ReadReplica {
  db: Database;
  /** true while the replica has replayed what the primary had committed maxLagMs ago */
  usable(): boolean;
  /** the last probe: replica behind by this many WAL bytes, or why it is not used */
  state(): { usable: boolean; lagBytes: number | null; reason: string | null };
  close(): Promise<void>;
}

export interface ReadReplicaOptions {
  url: string;
  primary: Database;
  poolSize?: number;
  /** staleness the lists may show before reads go back to the primary */
  maxLagMs: number;
  /** how often the positions are compared */
  probeMs: number;
  logger?: ReplicaLogger;
  onQuery?: (sql: string) => void;
}

/** 'X/Y' (pg_lsn as text) to a byte position. */
export const lsnToBigInt = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

export async function openReadReplica(opts: ReadReplicaOptions): Promise<ReadReplica> {
  const db = await openDatabase({ databaseUrl: opts.url, poolSize: opts.poolSize, onQuery: opts.onQuery });
  const logger = opts.logger ?? { warn: () => {}, info: () => {} };
  // Recent primary positions with the time they were read; the replica is fresh when it has
  // replayed the newest one that is at least maxLagMs old.
  const samples: { at: number; lsn: bigint }[] = [];
  let usable = false;
  let lagBytes: number | null = null;
  let reason: string | null = 'not probed yet';
  let stopped = false;

  function set(next: boolean, why: string | null) {
    if (next !== usable) {
      if (next) logger.info({ replica: db.describe }, 'read replica in use');
      else logger.warn({ replica: db.describe, reason: why }, 'read replica not used: reads go to the primary');
    }
    usable = next;
    reason = why;
  }

  async function probe() {
    const now = Date.now();
    try {
      const [p] = await opts.primary.sql.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      samples.push({ at: now, lsn: lsnToBigInt(p!.lsn) });
    } catch {
      return; // the primary is the problem; readiness reports it
    }
    // Keep as the first sample the newest one at least maxLagMs old (or the oldest, early on:
    // stricter than needed, never looser).
    while (samples.length > 1 && samples[1]!.at <= now - opts.maxLagMs) samples.shift();
    try {
      const [r] = await db.sql.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
      if (!r?.lsn) return set(false, 'not a streaming replica (pg_last_wal_replay_lsn() is null)');
      const replayed = lsnToBigInt(r.lsn);
      const latest = samples.at(-1)!.lsn;
      lagBytes = Number(latest > replayed ? latest - replayed : 0n);
      if (replayed < samples[0]!.lsn) return set(false, `replica more than ${opts.maxLagMs} ms behind (${lagBytes} bytes)`);
      set(true, null);
    } catch (err) {
      set(false, `replica unreachable: ${(err as Error).message}`);
    }
  }

  await probe();
  let timer: NodeJS.Timeout | null = null;
  const loop = () => {
    timer = setTimeout(async () => {
      await probe();
      if (!stopped) loop();
    }, opts.probeMs);
    timer.unref();
  };
  loop();

  return {
    db,
    usable: () => usable,
    state: () => ({ usable, lagBytes, reason }),
    close: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await db.close();
    },
  };
}
