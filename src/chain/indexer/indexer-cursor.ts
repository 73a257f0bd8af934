// Where the indexer stands: its cursor row (indexer_cursor, one per stream), and the chain's hash
// of a block to compare it with.
import type { JsonRpcProvider } from 'ethers';
import type { SqlRunner } from '../../db/sql-runner.js';
import type { BlockRef } from './batch-script.js';
import type { IndexerContext } from './indexer-context.js';
import { IndexerError } from './indexer-errors.js';

/** The parent of block 0: never replaced, so a rollback can always reach "nothing indexed". */
const BEFORE_GENESIS = '0x' + '0'.repeat(64);

export interface Cursor extends BlockRef {
  chainId: number;
}

type CursorRow = { block_number: string; block_hash: string; chain_id: number };

export async function readCursor(ctx: IndexerContext, s: SqlRunner): Promise<Cursor | null> {
  const [row] = await s.query<CursorRow>('SELECT block_number::text AS block_number, block_hash, chain_id FROM indexer_cursor WHERE stream = $1', [ctx.stream]);
  if (!row) return null;
  const cursor = { number: Number(row.block_number), hash: row.block_hash, chainId: row.chain_id };
  if (cursor.chainId !== ctx.network.chainId) {
    throw new IndexerError(`this database indexes chain ${cursor.chainId}, not ${ctx.network.chainId}`);
  }
  return cursor;
}

/** The hash the chain has at block `n` now; null when the node has no such block. */
export async function blockHashAt(provider: JsonRpcProvider, n: number): Promise<string | null> {
  if (n < 0) return BEFORE_GENESIS;
  return (await provider.getBlock(n))?.hash ?? null;
}
