// Everything one batch of blocks changes, as one SQL script applied in one transaction together
// with the cursor: a crash or a failed statement leaves the database exactly at the previous batch.
// Exchange events are applied in log order (the first terminal status wins); NFT transfers as
// summed balance deltas; then the statuses re-derived from chain state at the batch's last block
// (journaled at that block); then floors, the orders the batch's last block expired
// (expiry-sql.ts), cursor and pruning.
import type { OrderStatusName } from '../../domain/order-status.js';
import { ZERO_ADDRESS } from '../../domain/address.js';
import type { ChainEvent, FillEvent, MetadataUpdateEvent, NftTransferEvent } from './events.js';
import { recordSaleLiteralSql, type SaleRecord } from '../../db/sale-sql.js';
import { sqlHex, sqlInt, sqlList, sqlName } from '../../db/sql-literals.js';
import { cursorGuardSql, floorCatchUpSql, recordFloorsSql, setStatusSql } from './status-sql.js';
import { expireOrdersSql } from './expiry-sql.js';

export interface BlockRef {
  number: number;
  hash: string;
}

export interface BatchScriptInput {
  stream: string;
  chainId: number;
  /** the cursor row's block number as read before the batch; null when there is no row yet */
  expectedCursor: number | null;
  /** the block the batch starts after; stored as a rollback target on the first batch */
  base: BlockRef;
  from: number;
  to: BlockRef;
  /** unix seconds of block `to` (the market clock reads it from the cursor) */
  toTimestamp: number;
  /** the block of the batch's last consumed event and its timestamp (indexerStatus) */
  lastEvent?: { block: number; timestamp: number };
  /** consumed events of [from, to], in log order */
  events: readonly ChainEvent[];
  knownCollections: ReadonlyMap<string, 'ERC721' | 'ERC1155'>;
  blockTimes: ReadonlyMap<number, Date>;
  /** statuses re-derived from chain state at `to` */
  derived: readonly { hash: string; status: OrderStatusName }[];
  /** the market clock at this batch (never before block `to`): floors are recorded at it */
  now: Date;
  standardStrategies: readonly string[];
  /** batch ends kept for reorg detection: those within this many blocks of `to`, and at least 8 */
  keepBlocks: number;
}

export interface SaleRow extends SaleRecord {
  orderHash: string;
  strategy: string;
}

/** The sale a fill records: TakerBid fills a maker ask (maker sells), TakerAsk a maker bid (maker buys). */
export function saleOf(e: FillEvent, timestamp: Date): SaleRow {
  const isTakerAsk = e.kind === 'TakerAsk';
  return {
    collection: e.collection,
    tokenId: e.tokenId,
    amount: e.amount,
    price: e.price,
    currency: e.currency,
    buyer: isTakerAsk ? e.maker : e.taker,
    seller: isTakerAsk ? e.taker : e.maker,
    orderHash: e.orderHash,
    strategy: e.strategy,
    isTakerAsk,
    blockNumber: BigInt(e.blockNumber),
    txHash: e.txHash,
    logIndex: e.logIndex,
    timestamp,
  };
}

function nonceEventsSql(signer: string, kind: 'EXECUTED' | 'CANCELLED' | 'MIN_NONCE', nonces: readonly bigint[], e: ChainEvent): string {
  const rows = nonces.map(
    (n) => `(${sqlHex(signer)}, '${kind}'::"NonceEventKind", ${sqlInt(n)}, ${sqlInt(e.blockNumber)}, ${sqlHex(e.txHash)}, ${sqlInt(e.logIndex)})`,
  );
  return `INSERT INTO nonce_events (signer, kind, nonce, block_number, tx_hash, log_index) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`;
}

function deadNoncesSql(signer: string, nonces: readonly bigint[], reason: 'EXECUTED' | 'CANCELLED'): string {
  const rows = nonces.map((n) => `(${sqlHex(signer)}, ${sqlInt(n)}, '${reason}'::"DeadNonceReason")`);
  return `INSERT INTO dead_nonces (signer, nonce, reason) VALUES ${rows.join(', ')} ON CONFLICT (signer, nonce) DO NOTHING`;
}

function exchangeEventSql(e: ChainEvent, input: BatchScriptInput): string[] {
  switch (e.kind) {
    case 'TakerBid':
    case 'TakerAsk': {
      const out = [
        setStatusSql(`hash = ${sqlHex(e.orderHash)}`, 'EXECUTED', e.blockNumber, e),
        // the fill used the maker's nonce: every sibling on it dies (looksrare-v1-facts.md)
        nonceEventsSql(e.maker, 'EXECUTED', [e.orderNonce], e),
        deadNoncesSql(e.maker, [e.orderNonce], 'EXECUTED'),
        setStatusSql(`signer = ${sqlHex(e.maker)} AND nonce = ${sqlInt(e.orderNonce)}`, 'CANCELLED', e.blockNumber, e),
      ];
      // sales reference collections: a fill in a collection the service does not know changes
      // order and nonce state only
      const time = input.blockTimes.get(e.blockNumber);
      if (input.knownCollections.has(e.collection) && time) out.push(recordSaleLiteralSql(saleOf(e, time)));
      return out;
    }
    case 'CancelMultipleOrders': {
      const nonces = [...new Set(e.nonces)];
      if (!nonces.length) return [];
      return [
        nonceEventsSql(e.user, 'CANCELLED', nonces, e),
        deadNoncesSql(e.user, nonces, 'CANCELLED'),
        setStatusSql(`signer = ${sqlHex(e.user)} AND nonce IN (${sqlList(nonces.map(sqlInt))})`, 'CANCELLED', e.blockNumber, e),
      ];
    }
    case 'CancelAllOrders':
      return [
        nonceEventsSql(e.user, 'MIN_NONCE', [e.newMinNonce], e),
        `INSERT INTO signer_nonce_state (signer, min_nonce, updated_at) VALUES (${sqlHex(e.user)}, ${sqlInt(e.newMinNonce)}, CURRENT_TIMESTAMP)
ON CONFLICT (signer) DO UPDATE SET min_nonce = GREATEST(signer_nonce_state.min_nonce, EXCLUDED.min_nonce), updated_at = CURRENT_TIMESTAMP`,
        setStatusSql(`signer = ${sqlHex(e.user)} AND nonce < ${sqlInt(e.newMinNonce)}`, 'CANCELLED', e.blockNumber, e),
      ];
    default:
      return [];
  }
}

/**
 * A metadata update queues the tokens it names for a read (src/services/metadata-queue.ts): one
 * token gets a row if it has none; a range (EIP-4906 BatchMetadataUpdate, often 0..2^256-1)
 * queues the tokens of the range the index knows. Nothing to undo on a reorg: a read is idempotent.
 */
function metadataUpdateSql(e: MetadataUpdateEvent): string {
  const c = sqlHex(e.collection);
  const journal = `INSERT INTO metadata_update_journal (block_number, collection_address, from_token_id, to_token_id) VALUES (${sqlInt(e.blockNumber)}, ${c}, ${sqlInt(e.fromId)}, ${sqlInt(e.toId)});\n`;
  if (e.fromId === e.toId) {
    return `${journal}INSERT INTO token_metadata (collection_address, token_id, due_at) VALUES (${c}, ${sqlInt(e.fromId)}, CURRENT_TIMESTAMP)
ON CONFLICT (collection_address, token_id) DO UPDATE SET due_at = CURRENT_TIMESTAMP`;
  }
  return `${journal}UPDATE token_metadata SET due_at = CURRENT_TIMESTAMP WHERE collection_address = ${c} AND token_id BETWEEN ${sqlInt(e.fromId)} AND ${sqlInt(e.toId)}`;
}

/** The token_transfers rows of transfer events, in their order (the event log's triggers number them so). */
export function transferRowsSql(events: readonly NftTransferEvent[]): string {
  const rows = events.flatMap((e) => e.ids.map(
    (id, i) =>
      `(${sqlHex(e.collection)}, ${sqlInt(id)}, ${sqlHex(e.from)}, ${sqlHex(e.to)}, ${sqlInt(e.amounts[i]!)}, ${sqlInt(e.blockNumber)}, ${sqlHex(e.txHash)}, ${sqlInt(e.logIndex)}, ${i})`,
  ));
  return `INSERT INTO token_transfers (collection_address, token_id, from_address, to_address, amount, block_number, tx_hash, log_index, batch_index)
VALUES ${rows.join(',\n')} ON CONFLICT DO NOTHING`;
}

/**
 * token_balances deltas and collection_supply for the batch's NFT transfers, after their
 * token_transfers rows (all of them first unless `rowsWritten`: the batch script writes each
 * event's rows in log order among the exchange events).
 */
export function transfersSql(transfers: readonly NftTransferEvent[], rowsWritten = false): string[] {
  if (!transfers.length) return [];
  const deltas = new Map<string, { c: string; t: bigint; o: string; d: bigint }>();
  const minted = new Map<string, bigint>();
  const add = (c: string, t: bigint, o: string, d: bigint) => {
    if (o === ZERO_ADDRESS) return;
    const key = `${c}|${t}|${o}`;
    const cur = deltas.get(key) ?? { c, t, o, d: 0n };
    cur.d += d;
    deltas.set(key, cur);
  };
  for (const e of transfers) {
    e.ids.forEach((id, i) => {
      const amount = e.amounts[i]!;
      add(e.collection, id, e.from, -amount);
      add(e.collection, id, e.to, amount);
      // a mint comes from the zero address, a burn goes to it
      const m = (e.from === ZERO_ADDRESS ? amount : 0n) - (e.to === ZERO_ADDRESS ? amount : 0n);
      minted.set(e.collection, (minted.get(e.collection) ?? 0n) + m);
    });
  }
  const out = rowsWritten ? [] : [transferRowsSql(transfers)];
  const changed = [...deltas.values()].filter((x) => x.d !== 0n);
  if (changed.length) {
    const values = changed.map((x) => `(${sqlHex(x.c)}, ${sqlInt(x.t)}::numeric, ${sqlHex(x.o)}, ${sqlInt(x.d)}::numeric)`).join(', ');
    out.push(
      `INSERT INTO token_balances (collection_address, token_id, owner, balance, updated_at)
SELECT c, t, o, d, CURRENT_TIMESTAMP FROM (VALUES ${values}) v(c, t, o, d)
ON CONFLICT (collection_address, token_id, owner)
DO UPDATE SET balance = token_balances.balance + EXCLUDED.balance, updated_at = CURRENT_TIMESTAMP`,
      `DELETE FROM token_balances WHERE balance = 0 AND (collection_address, token_id, owner) IN (
  SELECT c, t, o FROM (VALUES ${values}) v(c, t, o, d))`,
    );
  }
  const supply = [...minted].map(([c, m]) => `(${sqlHex(c)}, ${sqlInt(m)}::numeric)`).join(', ');
  out.push(
    `INSERT INTO collection_supply (collection_address, total_supply, count_owners, updated_at)
SELECT v.c, v.m, (SELECT COUNT(DISTINCT b.owner) FROM token_balances b WHERE b.collection_address = v.c AND b.balance > 0), CURRENT_TIMESTAMP
FROM (VALUES ${supply}) v(c, m)
ON CONFLICT (collection_address)
DO UPDATE SET total_supply = collection_supply.total_supply + EXCLUDED.total_supply, count_owners = EXCLUDED.count_owners, updated_at = CURRENT_TIMESTAMP`,
  );
  return out;
}

export function buildBatchScript(input: BatchScriptInput): string {
  const { stream, to } = input;
  const out: string[] = [cursorGuardSql(stream, input.expectedCursor), floorCatchUpSql(input.now, input.standardStrategies)];

  const transfers: NftTransferEvent[] = [];
  for (const e of input.events) {
    if (e.kind === 'Transfer' || e.kind === 'TransferSingle' || e.kind === 'TransferBatch') {
      transfers.push(e);
      out.push(transferRowsSql([e]));
    } else if (e.kind === 'MetadataUpdate') out.push(metadataUpdateSql(e));
    // the collection's own document is read again at the worker's next pass (src/services/contract-metadata.ts)
    else if (e.kind === 'ContractURIUpdated')
      out.push(`INSERT INTO collection_metadata (collection_address, contract_due_at) VALUES (${sqlHex(e.collection)}, CURRENT_TIMESTAMP)
ON CONFLICT (collection_address) DO UPDATE SET contract_due_at = CURRENT_TIMESTAMP`);
    else out.push(...exchangeEventSql(e, input));
  }
  out.push(...transfersSql(transfers, true));

  const byStatus = new Map<OrderStatusName, string[]>();
  for (const d of input.derived) byStatus.set(d.status, [...(byStatus.get(d.status) ?? []), sqlHex(d.hash)]);
  for (const [status, hashes] of byStatus) out.push(setStatusSql(`hash IN (${hashes.join(', ')})`, status, to.number));

  out.push(recordFloorsSql(`j.block_number BETWEEN ${sqlInt(input.from)} AND ${sqlInt(to.number)}`, input.now, input.standardStrategies));

  // The first batch that followed a collection says where its backfill must stop.
  if (input.knownCollections.size) {
    out.push(
      `UPDATE collections SET indexed_from_block = ${sqlInt(input.from)} WHERE indexed_from_block IS NULL AND address IN (${[...input.knownCollections.keys()].map(sqlHex).join(', ')})`,
    );
  }

  // after every status change of the batch, before the cursor it reads its lower bound from
  out.push(expireOrdersSql({ stream, block: to.number, timestamp: input.toTimestamp }));

  if (input.expectedCursor === null) {
    out.push(`INSERT INTO indexed_blocks (number, hash) VALUES (${sqlInt(input.base.number)}, ${sqlHex(input.base.hash)}) ON CONFLICT (number) DO UPDATE SET hash = EXCLUDED.hash`);
  }
  out.push(
    `INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash, block_timestamp, last_event_block, last_event_timestamp, updated_at)
VALUES (${sqlName(stream)}, ${sqlInt(input.chainId)}, ${sqlInt(to.number)}, ${sqlHex(to.hash)}, ${sqlInt(input.toTimestamp)},
  ${input.lastEvent ? sqlInt(input.lastEvent.block) : 'NULL'}, ${input.lastEvent ? sqlInt(input.lastEvent.timestamp) : 'NULL'}, CURRENT_TIMESTAMP)
ON CONFLICT (stream) DO UPDATE SET chain_id = EXCLUDED.chain_id, block_number = EXCLUDED.block_number,
  block_hash = EXCLUDED.block_hash, block_timestamp = EXCLUDED.block_timestamp,
  last_event_block = COALESCE(EXCLUDED.last_event_block, indexer_cursor.last_event_block),
  last_event_timestamp = COALESCE(EXCLUDED.last_event_timestamp, indexer_cursor.last_event_timestamp), updated_at = CURRENT_TIMESTAMP`,
    `INSERT INTO indexed_blocks (number, hash, block_timestamp) VALUES (${sqlInt(to.number)}, ${sqlHex(to.hash)}, ${sqlInt(input.toTimestamp)})
ON CONFLICT (number) DO UPDATE SET hash = EXCLUDED.hash, block_timestamp = EXCLUDED.block_timestamp`,
    // Pruning: a reorg deeper than the kept batch ends cannot be undone anyway, so journal rows
    // below the oldest kept one are never needed again.
    `DELETE FROM indexed_blocks WHERE number < ${sqlInt(to.number - input.keepBlocks)}
  AND number NOT IN (SELECT number FROM indexed_blocks ORDER BY number DESC LIMIT 8)`,
    `DELETE FROM order_status_changes WHERE block_number < (SELECT MIN(number) FROM indexed_blocks)`,
    `DELETE FROM token_transfers WHERE block_number < (SELECT MIN(number) FROM indexed_blocks)`,
    `DELETE FROM metadata_update_journal WHERE block_number < (SELECT MIN(number) FROM indexed_blocks)`,
  );
  return out.join(';\n') + ';';
}
