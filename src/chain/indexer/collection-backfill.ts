// Backfill of a collection registered after the indexer passed its history: its
// NFT transfers (ownership, supply) and the sales of its fills, from a chosen block up to the
// block before the live indexer started following it (collections.indexed_from_block, set by the
// first batch that read it). The two ranges meet exactly, so nothing is applied twice or missed.
//
// Jobs live in collection_backfills (registration inserts one; the CLI can too). The instance
// that holds the indexer lease runs them one chunk at a time between live batches, so the live
// indexer never stops; each chunk is one transaction with the job's progress, so a crash resumes
// at the next chunk. Exchange nonce and status effects need no backfill: the live indexer reads
// every exchange event, whatever the collection.
import type { JsonRpcProvider } from 'ethers';
import type { SqlRunner } from '../../db/sql-runner.js';
import { recordSaleLiteralSql } from '../../db/sale-sql.js';
import { sqlHex, sqlInt } from '../../db/sql-literals.js';
import type { Network } from '../../domain/networks.js';
import { saleOf, transfersSql } from './batch-script.js';
import { decodeLog, parseRawLog, TOPICS, type FillEvent, type NftTransferEvent } from './events.js';
import type { LogFetcher } from './log-fetcher.js';

export interface BackfillJob {
  collection: string;
  fromBlock: number;
  toBlock: number | null;
  nextBlock: number;
  finished: boolean;
}

export type BackfillStep =
  | { state: 'none' }
  /** the live indexer has not followed the collection yet: the end of the range is unknown */
  | { state: 'waiting'; job: BackfillJob }
  | { state: 'progress' | 'finished'; job: BackfillJob; from: number; to: number; transfers: number; sales: number };

type JobRow = { collection_address: string; from_block: string; to_block: string | null; next_block: string; finished: boolean; indexed_from_block: string | null };

const JOB_COLUMNS = `b.collection_address, b.from_block::text AS from_block, b.to_block::text AS to_block, b.next_block::text AS next_block,
  b.finished_at IS NOT NULL AS finished, c.indexed_from_block::text AS indexed_from_block`;

function toJob(r: JobRow): BackfillJob {
  return {
    collection: r.collection_address,
    fromBlock: Number(r.from_block),
    toBlock: r.to_block === null ? null : Number(r.to_block),
    nextBlock: Number(r.next_block),
    finished: r.finished,
  };
}

/** Queues (or re-queues from an earlier block) a backfill of `collection` from `fromBlock`. */
export async function requestCollectionBackfill(sql: SqlRunner, collection: string, fromBlock: number): Promise<void> {
  await sql.query(
    `INSERT INTO collection_backfills (collection_address, from_block, next_block) VALUES ($1, $2, $2)
     ON CONFLICT (collection_address) DO UPDATE SET from_block = EXCLUDED.from_block, next_block = EXCLUDED.from_block,
       to_block = NULL, finished_at = NULL, created_at = CURRENT_TIMESTAMP
     WHERE EXCLUDED.from_block < collection_backfills.from_block`,
    [collection, fromBlock],
  );
}

export async function readBackfillJob(sql: SqlRunner, collection: string): Promise<BackfillJob | null> {
  const [row] = await sql.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM collection_backfills b JOIN collections c ON c.address = b.collection_address WHERE b.collection_address = $1`,
    [collection],
  );
  return row ? toJob(row) : null;
}

export interface BackfillContext {
  session: SqlRunner;
  provider: JsonRpcProvider;
  fetcher: LogFetcher;
  network: Network;
  chunkBlocks: number;
}

/** Runs one chunk of the oldest unfinished job (or of `collection`'s). */
export async function backfillStep(ctx: BackfillContext, collection?: string): Promise<BackfillStep> {
  const { session: s, network } = ctx;
  const [row] = await s.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM collection_backfills b JOIN collections c ON c.address = b.collection_address
     WHERE b.finished_at IS NULL ${collection ? 'AND b.collection_address = $1' : ''} ORDER BY b.created_at, b.collection_address LIMIT 1`,
    collection ? [collection] : [],
  );
  if (!row) return { state: 'none' };
  const job = toJob(row);
  if (job.toBlock === null) {
    if (row.indexed_from_block === null) return { state: 'waiting', job };
    job.toBlock = Number(row.indexed_from_block) - 1;
  }
  const from = job.nextBlock;
  const to = Math.min(job.toBlock, from + ctx.chunkBlocks - 1);
  const c = sqlHex(job.collection);
  if (to < from) {
    await s.exec(`UPDATE collection_backfills SET to_block = ${sqlInt(job.toBlock)}, finished_at = CURRENT_TIMESTAMP WHERE collection_address = ${c}`);
    return { state: 'finished', job: { ...job, finished: true }, from, to: from - 1, transfers: 0, sales: 0 };
  }

  const [nftLogs, fillLogs] = await Promise.all([
    ctx.fetcher.getLogs({ address: job.collection, topics: [[TOPICS.Transfer, TOPICS.TransferSingle, TOPICS.TransferBatch]] }, from, to),
    // the collection is not an indexed field of TakerBid/TakerAsk: every fill is read and filtered
    ctx.fetcher.getLogs({ address: network.exchange!, topics: [[TOPICS.TakerBid, TOPICS.TakerAsk]] }, from, to),
  ]);
  const sources = { exchange: network.exchange!, weth: network.weth!, collections: new Set([job.collection]) };
  const events = [...nftLogs, ...fillLogs]
    .map(parseRawLog)
    .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
    .map((l) => decodeLog(l, sources));
  const transfers = events.filter((e): e is NftTransferEvent => e?.kind === 'Transfer' || e?.kind === 'TransferSingle' || e?.kind === 'TransferBatch');
  const fills = events.filter((e): e is FillEvent => (e?.kind === 'TakerBid' || e?.kind === 'TakerAsk') && e.collection === job.collection);
  const times = new Map<number, Date>();
  await Promise.all(
    [...new Set(fills.map((f) => f.blockNumber))].map(async (n) => {
      const b = await ctx.provider.getBlock(n);
      if (!b) throw new Error(`block ${n} is not on the chain`);
      times.set(n, new Date(b.timestamp * 1000));
    }),
  );
  const finished = to >= job.toBlock;
  const script = [
    // the job must still be where it was read (another writer, a reorg rollback)
    `DO $$ BEGIN
  IF (SELECT next_block FROM collection_backfills WHERE collection_address = ${c} AND finished_at IS NULL) IS DISTINCT FROM ${sqlInt(from)} THEN
    RAISE EXCEPTION 'collection backfill moved under this chunk';
  END IF;
END $$`,
    ...transfersSql(transfers),
    ...fills.map((f) => recordSaleLiteralSql(saleOf(f, times.get(f.blockNumber)!))),
    `UPDATE collection_backfills SET to_block = ${sqlInt(job.toBlock)}, next_block = ${sqlInt(to + 1)}${finished ? ', finished_at = CURRENT_TIMESTAMP' : ''}
WHERE collection_address = ${c}`,
  ];
  await s.exec(script.join(';\n') + ';');
  return {
    state: finished ? 'finished' : 'progress',
    job: { ...job, nextBlock: to + 1, finished },
    from,
    to,
    transfers: transfers.length,
    sales: fills.length,
  };
}
