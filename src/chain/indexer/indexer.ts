// The chain indexer: follows the exchange, WETH and the known collections in batches of
// blocks up to head - confirmations and keeps every order's status equal to what the chain says
// (spec 3, with the precedence of src/domain/order-status-rules.ts), plus sales, nonces, token
// ownership and supply.
//
// Per batch: check the last indexed block is still on the chain (else roll back to the fork and
// re-index), fetch the logs with one eth_getLogs (raw JSON, events.ts), decode them, find the live orders they may have
// changed, read those orders' chain facts at the batch's last block, derive their statuses, and
// write everything plus the cursor as one transaction (batch-script.ts). The cursor lives in the
// database, so a restarted indexer resumes after the last committed batch. Only the instance
// holding the advisory lock (indexer-lock.ts) writes.
import type { JsonRpcProvider } from 'ethers';
import type { Database } from '../../db/database.js';
import type { SqlRunner } from '../../db/sql-runner.js';
import type { Network } from '../../domain/networks.js';
import { floorLockSql, floorTimeCatchUpSql } from '../../db/floor-sql.js';
import { orderStatusChanges, type OrderEndingEvent } from '../../domain/order-status-changes.js';
import type { OrderStatusName } from '../../domain/order-status.js';
import { affectedKeys, findAffectedOrders } from './affected-orders.js';
import { buildBatchScript, saleOf, type BlockRef, type SaleRow } from './batch-script.js';
import { fetchBatchLogs } from './batch-logs.js';
import { decodeLog, type ChainEvent, type FillEvent } from './events.js';
import type { IndexerRuntime } from './indexer-state.js';
import { createLogFetcher, type LogFetcherOptions } from './log-fetcher.js';
import { tryIndexerLock, type IndexerLock } from './indexer-lock.js';
import { readOrderFacts } from './order-facts.js';
import { backfillStep, type BackfillStep } from './collection-backfill.js';
import { buildUndoScript } from './undo-script.js';
import { buildSettleScript, findUnsettledOrders, ORDER_WRITE_LOCK_SQL, settleOrdersSql, withUnsettled } from './unsettled-orders.js';

/** The parent of block 0: never replaced, so a rollback can always reach "nothing indexed". */
const BEFORE_GENESIS = '0x' + '0'.repeat(64);

export interface IndexerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export type IndexerEvent =
  | {
      type: 'orderStatusChanged';
      orderHash: string;
      collection: string;
      signer: string;
      isOrderAsk: boolean;
      oldStatus: OrderStatusName;
      newStatus: OrderStatusName;
      blockNumber: number;
      /** true when the change undoes blocks replaced by a reorg */
      reorg: boolean;
    }
  | { type: 'sale'; sale: SaleRow }
  | { type: 'reorg'; forkBlock: number; replacedUpTo: number };

export interface IndexerOptions {
  db: Database;
  /** createIndexerProvider(): a JsonRpcProvider with cacheTimeout -1 and batchStallTime 0 */
  provider: JsonRpcProvider;
  network: Network;
  /** first block to index when the database has no cursor yet */
  startBlock: number;
  /** blocks below the head that are left alone (0 = index the head) */
  confirmations: number;
  /** most blocks per batch (one eth_getLogs, one transaction) */
  batchSize: number;
  now: () => Date;
  logger?: IndexerLogger;
  /** told about each committed change (subscriptions); errors thrown here are logged, not fatal */
  onEvent?: (event: IndexerEvent) => void;
  /** cursor row name; one database follows one chain */
  stream?: string;
  /** batch ends kept for reorg detection: those within this many blocks of the cursor (and at least 8) */
  keepBlocks?: number;
  /** test seam (submission race tests): after a batch's reads, before its write; unset in production */
  beforeWrite?: (batch: { from: number; to: number }) => Promise<void>;
  /** told the timestamp of each committed batch's last block (the market clock) */
  onBlockTime?: (unixSeconds: number) => void;
  /** told the cursor's block after each commit that moved it: a batch, or a rollback to the fork */
  onCursor?: (block: number) => void;
  /** updated with lease, head and batch times (indexerStatus, /readyz, metrics) */
  runtime?: IndexerRuntime;
  /** eth_getLogs retries, backoff and initial span (log-fetcher.ts) */
  logs?: LogFetcherOptions;
  /** accounts per WETH topic list (batch-logs.ts) */
  wethTopicChunk?: number;
  /** blocks per collection backfill chunk (collection-backfill.ts), run between live batches */
  backfillChunkBlocks?: number;
}

export interface BatchResult {
  from: number;
  to: number;
  /** consumed events in the batch */
  events: number;
  /** set when the batch began by rolling back a reorg to this block */
  rolledBackTo?: number;
}

export interface BackfillProgress {
  from: number;
  to: number;
  /** last block committed */
  current: number;
  events: number;
  elapsedMs: number;
}

export class IndexerError extends Error {}
/** The chain moved while a batch was being read; nothing was written and the next tick retries. */
export class ChainMovedError extends IndexerError {}

const endsOrders = (e: ChainEvent): e is ChainEvent & OrderEndingEvent =>
  e.kind === 'TakerBid' || e.kind === 'TakerAsk' || e.kind === 'CancelMultipleOrders' || e.kind === 'CancelAllOrders';

const noopLogger: IndexerLogger = { info() {}, warn() {}, error() {}, debug() {} };

type CursorRow = { block_number: string; block_hash: string; chain_id: number };
interface Cursor extends BlockRef {
  chainId: number;
}

export function createIndexer(opts: IndexerOptions) {
  const { db, provider, network } = opts;
  const logger = opts.logger ?? noopLogger;
  const stream = opts.stream ?? 'main';
  const keepBlocks = opts.keepBlocks ?? 128;
  const runtime = opts.runtime;
  const logFetcher = createLogFetcher(provider, { ...opts.logs, onRetry: (r) => logger.warn({ from: r.from, to: r.to, attempt: r.attempt, err: r.err }, 'eth_getLogs failed; retrying') });
  if (!network.exchange || !network.weth) throw new IndexerError('the network needs the exchange and WETH addresses');
  if (opts.batchSize < 1) throw new IndexerError('batchSize must be at least 1');

  let lock: IndexerLock | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let loop: Promise<void> | null = null;
  let stopping = false;
  let wake: (() => void) | null = null;

  /** One batch at a time per instance, whoever asks (start loop, tick, backfill). */
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  async function withLock<T>(fn: (session: SqlRunner) => Promise<T>): Promise<T | null> {
    if (lock) return fn(lock.session);
    const acquired = await tryIndexerLock(db.sql);
    if (!acquired) return null;
    lock = acquired;
    try {
      return await fn(acquired.session);
    } finally {
      lock = null;
      await acquired.release();
    }
  }

  async function hashAt(n: number): Promise<string | null> {
    if (n < 0) return BEFORE_GENESIS;
    return (await provider.getBlock(n))?.hash ?? null;
  }

  async function readCursor(s: SqlRunner): Promise<Cursor | null> {
    const [row] = await s.query<CursorRow>('SELECT block_number::text AS block_number, block_hash, chain_id FROM indexer_cursor WHERE stream = $1', [stream]);
    if (!row) return null;
    const cursor = { number: Number(row.block_number), hash: row.block_hash, chainId: row.chain_id };
    if (cursor.chainId !== network.chainId) {
      throw new IndexerError(`this database indexes chain ${cursor.chainId}, not ${network.chainId}`);
    }
    return cursor;
  }

  /** null when the cursor block is still on the chain; else the highest kept batch end that is. */
  async function findFork(s: SqlRunner, cursor: Cursor): Promise<BlockRef | null> {
    if (cursor.number < 0 || (await hashAt(cursor.number)) === cursor.hash) return null;
    const kept = await s.query<{ number: string; hash: string }>(
      // the table's column, not the text output column of the same name (which sorts '98' above '199')
      'SELECT number::text AS number, hash FROM indexed_blocks WHERE number < $1 ORDER BY indexed_blocks.number DESC',
      [cursor.number],
    );
    for (const b of kept) {
      const n = Number(b.number);
      if ((await hashAt(n)) === b.hash) return { number: n, hash: b.hash };
    }
    throw new IndexerError(`reorg deeper than the ${kept.length} kept batch ends below block ${cursor.number}; re-index from an earlier start block`);
  }

  async function rollBack(s: SqlRunner, cursor: Cursor, fork: BlockRef): Promise<void> {
    const restored = opts.onEvent
      ? await s.query<{ order_hash: string; old_status: OrderStatusName; current: OrderStatusName; collection_address: string; signer: string; is_order_ask: boolean }>(
          `SELECT DISTINCT ON (j.order_hash) j.order_hash, j.old_status::text AS old_status, o.status::text AS current,
                  o.collection_address, o.signer, o.is_order_ask
           FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
           WHERE j.block_number > $1 ORDER BY j.order_hash, j.id`,
          [fork.number],
        )
      : [];
    await s.exec(buildUndoScript({ stream, expectedCursor: cursor.number, fork, now: opts.now(), standardStrategies: network.strategies.standardSale }));
    opts.onCursor?.(fork.number);
    logger.warn({ forkBlock: fork.number, replacedUpTo: cursor.number }, 'chain reorganisation: rolled back to the fork block');
    emit({ type: 'reorg', forkBlock: fork.number, replacedUpTo: cursor.number });
    for (const r of restored) {
      if (r.current === r.old_status) continue;
      emit({
        type: 'orderStatusChanged',
        orderHash: r.order_hash,
        collection: r.collection_address,
        signer: r.signer,
        isOrderAsk: r.is_order_ask,
        oldStatus: r.current,
        newStatus: r.old_status,
        blockNumber: fork.number,
        reorg: true,
      });
    }
  }

  function emit(e: IndexerEvent) {
    if (!opts.onEvent) return;
    try {
      opts.onEvent(e);
    } catch (err) {
      logger.error({ err }, 'indexer onEvent listener failed');
    }
  }

  /** Indexes the next batch (at most up to `limitTo`); null when there is nothing to index yet. */
  async function step(s: SqlRunner, startBlock: number, limitTo?: number): Promise<BatchResult | null> {
    let cursor = await readCursor(s);
    let rolledBackTo: number | undefined;
    if (cursor) {
      const fork = await findFork(s, cursor);
      if (fork) {
        await rollBack(s, cursor, fork);
        rolledBackTo = fork.number;
        cursor = { ...fork, chainId: cursor.chainId };
      }
    }
    const t0 = performance.now();
    // 'latest' rather than eth_blockNumber: the head's timestamp comes with it (lag in seconds)
    const headBlock = await provider.getBlock('latest');
    if (!headBlock) throw new ChainMovedError('the node has no latest block');
    const head = headBlock.number;
    if (runtime) {
      runtime.headBlock = head;
      runtime.headTimestamp = headBlock.timestamp;
      runtime.headSeenAt = opts.now();
    }
    const from = cursor ? cursor.number + 1 : startBlock;
    let to = Math.min(from + opts.batchSize - 1, head - opts.confirmations);
    if (limitTo !== undefined) to = Math.min(to, limitTo);
    if (to < from) {
      if (cursor) await settleAtCursor(s, cursor);
      return rolledBackTo === undefined ? null : { from, to: from - 1, events: 0, rolledBackTo };
    }

    let base: BlockRef;
    if (cursor) base = { number: cursor.number, hash: cursor.hash };
    else {
      const hash = await hashAt(from - 1);
      if (!hash) throw new ChainMovedError(`block ${from - 1} is not on the chain`);
      base = { number: from - 1, hash };
    }
    const toBlock = to === head ? headBlock : await provider.getBlock(to);
    if (!toBlock?.hash) throw new ChainMovedError(`block ${to} is not on the chain any more`);
    // The market clock at this batch: never before the block being committed (src/services/market-clock.ts).
    const now = new Date(Math.max(opts.now().getTime(), toBlock.timestamp * 1000));
    const nowSec = BigInt(Math.floor(now.getTime() / 1000));

    const collectionRows = await s.query<{ address: string; type: 'ERC721' | 'ERC1155' }>('SELECT address, type::text AS type FROM collections');
    const collections = new Map(collectionRows.map((r) => [r.address, r.type]));
    // WETH logs only matter for accounts with bids that can still be shown live.
    const bidders = (
      await s.query<{ signer: string }>(
        `SELECT DISTINCT signer FROM orders WHERE NOT is_order_ask AND status NOT IN ('EXECUTED', 'CANCELLED') AND end_time >= $1::bigint`,
        [nowSec.toString()],
      )
    ).map((r) => r.signer);
    const logs = await fetchBatchLogs(
      logFetcher,
      { exchange: network.exchange!, weth: network.weth!, collections: [...collections.keys()], bidders },
      from,
      to,
      opts.wethTopicChunk,
    );
    // Logs of a chain other than the one `to` and the base belong to: retry rather than guess.
    if (logs.some((l) => l.removed || (l.blockNumber === to && l.blockHash !== toBlock.hash))) {
      throw new ChainMovedError(`the chain changed while blocks ${from}-${to} were read`);
    }
    if ((await hashAt(base.number)) !== base.hash) throw new ChainMovedError(`block ${base.number} was replaced while blocks ${from}-${to} were read`);

    const sources = { exchange: network.exchange!, weth: network.weth!, collections: new Set(collections.keys()) };
    const events = logs.map((l) => decodeLog(l, sources)).filter((e): e is ChainEvent => e !== null);

    // Re-derive the stored statuses of the orders these events may have changed, from chain state
    // at the batch's last block. Fills and cancels of the batch count as facts too; the script
    // applies them first, and a status never overrides a stronger one (src/domain/order-status.ts).
    const t1 = performance.now();
    const unsettled = await findUnsettledOrders(s, to);
    const orders = withUnsettled(await findAffectedOrders(s, affectedKeys(events, network, collections), nowSec), unsettled);
    const facts = await readOrderFacts(provider, network, orders, to);
    const t2 = performance.now();
    const derived = orderStatusChanges(orders, events.filter(endsOrders), facts).map((c) => ({ hash: c.order.hash, status: c.status }));

    const fills = events.filter((e): e is FillEvent => (e.kind === 'TakerBid' || e.kind === 'TakerAsk') && collections.has(e.collection));
    const lastEvent = events.at(-1);
    const blockTimes = new Map<number, Date>([[to, new Date(toBlock.timestamp * 1000)]]);
    const timed = new Set(fills.map((f) => f.blockNumber));
    if (lastEvent) timed.add(lastEvent.blockNumber);
    await Promise.all(
      [...timed].filter((n) => !blockTimes.has(n)).map(async (n) => {
        const b = await provider.getBlock(n);
        if (!b) throw new ChainMovedError(`block ${n} is not on the chain any more`);
        blockTimes.set(n, new Date(b.timestamp * 1000));
      }),
    );

    await opts.beforeWrite?.({ from, to });
    const t3 = performance.now();
    const settle = settleOrdersSql(unsettled.hashes);
    await s.exec(
      // the lock first: no order insert interleaves with the batch's writes (unsettled-orders.ts)
      `${ORDER_WRITE_LOCK_SQL};\n` +
      buildBatchScript({
        stream,
        chainId: network.chainId,
        expectedCursor: cursor ? cursor.number : null,
        base,
        from,
        to: { number: to, hash: toBlock.hash },
        toTimestamp: toBlock.timestamp,
        lastEvent: lastEvent ? { block: lastEvent.blockNumber, timestamp: Math.floor(blockTimes.get(lastEvent.blockNumber)!.getTime() / 1000) } : undefined,
        events,
        knownCollections: collections,
        blockTimes,
        derived,
        now,
        standardStrategies: network.strategies.standardSale,
        keepBlocks,
      }) +
      (settle ? `\n${settle};` : ''),
    );
    opts.onBlockTime?.(toBlock.timestamp);
    opts.onCursor?.(to);
    if (runtime) runtime.lastBatchAt = opts.now();
    const ms = (a: number, b: number) => Math.round(b - a);
    logger.debug(
      { from, to, logs: logs.length, events: events.length, rederived: orders.length, changed: derived.length, ms: { logs: ms(t0, t1), facts: ms(t1, t2), write: ms(t3, performance.now()) } },
      'indexed blocks',
    );

    if (opts.onEvent) {
      const changes = await s.query<{ order_hash: string; old_status: OrderStatusName; new_status: OrderStatusName; block_number: string; collection_address: string; signer: string; is_order_ask: boolean }>(
        `SELECT j.order_hash, j.old_status::text AS old_status, j.new_status::text AS new_status, j.block_number::text AS block_number,
                o.collection_address, o.signer, o.is_order_ask
         FROM order_status_changes j JOIN orders o ON o.hash = j.order_hash
         WHERE j.block_number BETWEEN $1 AND $2 ORDER BY j.id`,
        [from, to],
      );
      for (const c of changes) {
        emit({
          type: 'orderStatusChanged',
          orderHash: c.order_hash,
          collection: c.collection_address,
          signer: c.signer,
          isOrderAsk: c.is_order_ask,
          oldStatus: c.old_status,
          newStatus: c.new_status,
          blockNumber: Number(c.block_number),
          reorg: false,
        });
      }
      for (const f of fills) emit({ type: 'sale', sale: saleOf(f, blockTimes.get(f.blockNumber)!) });
    }
    return { from, to, events: events.length, ...(rolledBackTo === undefined ? {} : { rolledBackTo }) };
  }

  /** No block to index: orders submitted since the last batch are evaluated at the cursor block. */
  async function settleAtCursor(s: SqlRunner, cursor: Cursor): Promise<void> {
    const unsettled = await findUnsettledOrders(s, cursor.number);
    if (!unsettled.hashes.length) return;
    const facts = await readOrderFacts(provider, network, unsettled.stale, cursor.number);
    // the stored status never holds time (EXPIRED is read at the market clock, order-status.ts)
    const changes = orderStatusChanges(unsettled.stale, [], facts);
    await opts.beforeWrite?.({ from: cursor.number + 1, to: cursor.number });
    const script = buildSettleScript({
      stream,
      cursor: cursor.number,
      derived: changes.map((c) => ({ hash: c.order.hash, status: c.status })),
      hashes: unsettled.hashes,
      now: opts.now(),
      standardStrategies: network.strategies.standardSale,
    });
    if (script) await s.exec(script);
    for (const { order: o, status } of changes) {
      emit({ type: 'orderStatusChanged', orderHash: o.hash, collection: o.collection, signer: o.signer, isOrderAsk: o.isOrderAsk, oldStatus: o.status, newStatus: status, blockNumber: cursor.number, reorg: false });
    }
  }

  /** Writes the floor changes that time alone made up to the market clock (src/db/floor-sql.ts). */
  async function catchUpFloors(s: SqlRunner): Promise<void> {
    await s.exec([floorLockSql(), floorTimeCatchUpSql(Math.floor(opts.now().getTime() / 1000), network.strategies.standardSale)].join(';\n') + ';');
  }

  function backfillChunk(s: SqlRunner, collection?: string): Promise<BackfillStep> {
    return backfillStep({ session: s, provider, fetcher: logFetcher, network, chunkBlocks: opts.backfillChunkBlocks ?? 2000 }, collection);
  }

  /**
   * Runs `collection`'s queued backfill (requestCollectionBackfill) to its end, chunk by chunk,
   * each chunk between live batches; null when another instance holds the lease (it runs the
   * job instead). Waits for the live indexer to follow the collection first (tick() does that).
   */
  async function backfillCollection(collection: string, onProgress?: (step: BackfillStep) => void): Promise<BackfillStep | null> {
    for (;;) {
      const r = await exclusive(() => withLock((s) => backfillChunk(s, collection)));
      if (r === null) return null;
      onProgress?.(r);
      if (r.state === 'none' || r.state === 'finished') return r;
      if (r.state === 'waiting') {
        const t = await tick();
        if (t === null) return r; // caught up and still not followed: another instance, or no cursor yet
      }
    }
  }

  /** Time-driven floor changes up to now; false when another instance holds the lease. */
  async function recordTimeFloors(): Promise<boolean> {
    return (await exclusive(() => withLock(async (s) => (await catchUpFloors(s), true)))) ?? false;
  }

  /** Indexes the next batch up to head - confirmations; null when caught up or another instance is active. */
  function tick(): Promise<BatchResult | null> {
    return exclusive(() => withLock((s) => step(s, opts.startBlock))).then((r) => r ?? null);
  }

  /** Batches until caught up with head - confirmations; null when another instance is active. */
  function runUntilCaughtUp(): Promise<{ batches: number; events: number; cursor: number | null } | null> {
    return exclusive(() =>
      withLock(async (s) => {
        let batches = 0;
        let events = 0;
        for (;;) {
          const r = await step(s, opts.startBlock);
          if (!r) break;
          batches++;
          events += r.events;
        }
        return { batches, events, cursor: (await readCursor(s))?.number ?? null };
      }),
    );
  }

  /**
   * Indexes blocks `from`..`to` (capped at head - confirmations). On an empty database the cursor
   * starts at `from`; otherwise the range continues the cursor (blocks already indexed are skipped,
   * and a gap after the cursor is refused: skipping blocks would lose their effects).
   */
  function backfill(from: number, to: number, onProgress?: (p: BackfillProgress) => void): Promise<{ cursor: number; events: number } | null> {
    return exclusive(() =>
      withLock(async (s) => {
        const cursor = await readCursor(s);
        if (cursor && from > cursor.number + 1) {
          throw new IndexerError(`the database is indexed up to block ${cursor.number}; a backfill must start at or before ${cursor.number + 1}`);
        }
        const started = performance.now();
        let events = 0;
        let current = cursor?.number ?? from - 1;
        while (current < to) {
          const r = await step(s, from, to);
          if (!r) break;
          events += r.events;
          current = r.to;
          onProgress?.({ from, to, current, events, elapsedMs: performance.now() - started });
        }
        return { cursor: current, events };
      }),
    );
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  }

  /** Follows the chain in the background: stand-by while another instance holds the lock. */
  function start(pollMs = 1000): void {
    if (loop) return;
    stopping = false;
    if (runtime) runtime.running = true;
    loop = (async () => {
      let standby = false;
      while (!stopping) {
        try {
          if (!lock) {
            const acquired = await tryIndexerLock(db.sql);
            if (!acquired) {
              if (!standby) logger.info({}, 'another indexer is active; standing by');
              standby = true;
              await sleep(pollMs);
              continue;
            }
            if (stopping) {
              await acquired.release();
              break;
            }
            lock = acquired;
            standby = false;
            if (runtime) runtime.holdsLease = true;
            logger.info({}, 'indexer active');
          }
          const session = lock.session;
          const r = await exclusive(() => step(session, opts.startBlock));
          // One backfill chunk per turn: backfills progress while the live indexer keeps up.
          const b = await exclusive(() => backfillChunk(session));
          if (b.state === 'progress' || b.state === 'finished') {
            logger.info({ collection: b.job.collection, from: b.from, to: b.to, upTo: b.job.toBlock, transfers: b.transfers, sales: b.sales, finished: b.state === 'finished' }, 'collection backfill');
          }
          if (!r) await exclusive(() => catchUpFloors(session));
          if (runtime) runtime.lastError = null;
          if (!r && b.state !== 'progress' && !stopping) await sleep(pollMs);
        } catch (err) {
          // The connection may be the problem: give the lock up and start over after a pause.
          logger[err instanceof ChainMovedError ? 'warn' : 'error']({ err }, 'indexer batch failed; retrying');
          if (runtime) {
            runtime.lastError = (err as Error).message ?? String(err);
            runtime.holdsLease = false;
          }
          const held = lock;
          lock = null;
          await held?.release();
          if (!stopping) await sleep(pollMs);
        }
      }
      const held = lock;
      lock = null;
      if (runtime) {
        runtime.holdsLease = false;
        runtime.running = false;
      }
      await held?.release();
    })();
  }

  async function stop(): Promise<void> {
    stopping = true;
    wake?.();
    await loop;
    loop = null;
  }

  return { tick, runUntilCaughtUp, backfill, backfillCollection, recordTimeFloors, start, stop };
}

export type Indexer = ReturnType<typeof createIndexer>;
