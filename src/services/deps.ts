// What every service is built from. Passed explicitly so tests can run the same services on
// PGlite and PostgreSQL side by side, with a fixed clock.
import type { ChainReader } from '../chain/chain-reader.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { ReadReplica } from '../db/read-replica.js';
import type { IndexerRuntime } from '../chain/indexer/indexer-state.js';
import type { Network } from '../domain/networks.js';
import type { EventBus } from '../events/event-bus.js';
import type { SignatureVerifier } from './signature-pool.js';

/** Test seams for the race tests (test/chain/submission-race.test.ts); unset in production. */
export interface SubmissionHooks {
  /** after every check (chain included), before the insert */
  beforeInsert?(hash: string): Promise<void>;
}

export interface ServiceDeps {
  db: Database;
  config: Config;
  network: Network;
  /** reads chain state when RPC_URL is set; null means chain checks are skipped */
  chain: ChainReader | null;
  /** the market clock (src/services/market-clock.ts: later of wall clock and latest block); tests pin it */
  now: () => Date;
  /** this process's indexer, when it runs one (lease, head, last batch) */
  indexerRuntime?: IndexerRuntime;
  /** live events for subscriptions (in-process, or Redis with REDIS_URL) */
  events: EventBus;
  /** told about unexpected failures that were masked for the client (logged by the app) */
  onInternalError?: (err: unknown) => void;
  /** DATABASE_REPLICA_URL: reads that may lag go here while it keeps up (readDb) */
  replica?: ReadReplica;
  /** order signature verification (a worker pool from boot); unset = on the main thread */
  signatures?: SignatureVerifier;
  /** test seams between the checks and the insert of an order (race tests); unset in production */
  submissionHooks?: SubmissionHooks;
}

export const nowSeconds = (deps: Pick<ServiceDeps, 'now'>): bigint => BigInt(Math.floor(deps.now().getTime() / 1000));

/** Where a read that may lag goes: the replica while it keeps up, else the primary. Writes, nonces and the cap rule use deps.db. */
export const readDb = (deps: Pick<ServiceDeps, 'db' | 'replica'>): Database => (deps.replica?.usable() ? deps.replica.db : deps.db);
