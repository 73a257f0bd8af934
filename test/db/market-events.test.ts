// The market event log as the triggers write it: one event per fact, in the writer's transaction,
// on this backend, whichever code path wrote the fact (a plain INSERT, submit_orders' insert, the
// indexer's batch script); the causes of status changes; a rollback to a fork retracts each
// event above it exactly once, and the journal's pruning retracts nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBatchScript, type BatchScriptInput } from '../../src/chain/indexer/batch-script.js';
import type { ChainEvent } from '../../src/chain/indexer/events.js';
import { buildUndoScript } from '../../src/chain/indexer/undo-script.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { ZERO_ADDRESS } from '../../src/domain/address.js';
import type { OrderStatusName } from '../../src/domain/order-status.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const C = '0x' + 'C0'.repeat(20);
const SELLER = '0x' + 'A1'.repeat(20);
const BIDDER = '0x' + 'B2'.repeat(20);
const TAKER = '0x' + 'D3'.repeat(20);
const STRATEGY = '0x' + '5a'.repeat(20);
const WETH = '0x' + 'EE'.repeat(20);
const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const block = (n: number) => ({ number: n, hash: '0x' + n.toString(16).padStart(64, 'b') });
const tx = (n: number) => '0x' + n.toString(16).padStart(64, 'f');
const NOW = new Date('2026-06-01T12:00:00Z');

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
  await t.db.sql.query(`INSERT INTO collections (address, owner, type, name) VALUES ($1, $1, 'ERC721', 'c')`, [C]);
});
afterAll(() => t?.close());

interface EventRow {
  id: string;
  type: string;
  cause: string | null;
  token_id: string | null;
  order_hash: string | null;
  from_address: string | null;
  to_address: string | null;
  price: string | null;
  old_status: string | null;
  new_status: string | null;
  block_number: string | null;
  tx_hash: string | null;
  log_index: number | null;
  retracts_id: string | null;
}
const events = (after = '0') =>
  t.db.sql.query<EventRow>(
    `SELECT id::text, type::text, cause::text, token_id::text, order_hash, from_address, to_address, price::text, old_status::text, new_status::text,
            block_number::text, tx_hash, log_index, retracts_id::text FROM market_events e WHERE e.id > $1::bigint ORDER BY e.id`,
    [after],
  );
const lastId = async () => (await t.db.sql.query<{ id: string }>(`SELECT COALESCE(max(id), 0)::text AS id FROM market_events`))[0]!.id;

async function insertOrder(n: number, o: { ask: boolean; tokenId: number | null; signer: string; nonce: number; price?: bigint }) {
  await t.db.sql.query(
    `INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce, start_time, end_time,
                         min_percentage_to_ask, signature, v, r, s)
     VALUES ($1, $2, $3::numeric, $4, $5, $6, $7, 1, $8::numeric, $9::numeric, 0, 4000000000, 9800, '0x', 27, $1, $1)`,
    [hash(n), C, o.tokenId, o.ask, o.signer, STRATEGY, WETH, (o.price ?? 10n ** 18n).toString(), o.nonce],
  );
}

function batch(from: number, to: number, expectedCursor: number | null, events: ChainEvent[], derived: { hash: string; status: OrderStatusName }[] = []): string {
  const input: BatchScriptInput = {
    stream: 'test',
    chainId: 31337,
    expectedCursor,
    base: block(from - 1),
    from,
    to: block(to),
    toTimestamp: Math.floor(NOW.getTime() / 1000),
    events,
    knownCollections: new Map([[C, 'ERC721']]),
    blockTimes: new Map(events.map((e) => [e.blockNumber, new Date(NOW.getTime() + e.blockNumber * 1000)])),
    derived,
    now: NOW,
    standardStrategies: [STRATEGY],
    keepBlocks: 1000,
  };
  return buildBatchScript(input);
}

const ref = (blockNumber: number, txn: number, logIndex: number) => ({ blockNumber, blockHash: block(blockNumber).hash, txHash: tx(txn), logIndex });

describe(`market event triggers (${backendName})`, () => {
  it('writes one LIST, OFFER or COLLECTION_OFFER per new order, whoever inserts it', async () => {
    await insertOrder(1, { ask: true, tokenId: 7, signer: SELLER, nonce: 1 });
    await insertOrder(2, { ask: false, tokenId: 7, signer: BIDDER, nonce: 1, price: 5n });
    await insertOrder(3, { ask: false, tokenId: null, signer: BIDDER, nonce: 2, price: 4n });
    await insertOrder(4, { ask: true, tokenId: 8, signer: SELLER, nonce: 2 });
    await insertOrder(5, { ask: false, tokenId: 8, signer: BIDDER, nonce: 3 });
    const rows = await events();
    expect(rows.map((r) => [r.type, r.order_hash, r.token_id, r.from_address, r.to_address, r.block_number])).toEqual([
      ['LIST', hash(1), '7', SELLER, null, null],
      ['OFFER', hash(2), '7', BIDDER, null, null],
      ['COLLECTION_OFFER', hash(3), null, BIDDER, null, null],
      ['LIST', hash(4), '8', SELLER, null, null],
      ['OFFER', hash(5), '8', BIDDER, null, null],
    ]);
    expect(rows[1]!.price).toBe('5');
    // a rolled-back insert leaves no event
    await t.db.sql.withSession(async (s) => {
      await s.exec('BEGIN');
      await s.query(`INSERT INTO orders (hash, collection_address, is_order_ask, signer, strategy, currency_address, amount, price, nonce, start_time, end_time, min_percentage_to_ask, signature, v, r, s)
        SELECT $1, collection_address, is_order_ask, signer, strategy, currency_address, amount, price, 99, start_time, end_time, min_percentage_to_ask, signature, v, r, s FROM orders WHERE hash = $2`, [hash(99), hash(1)]);
      await s.exec('ROLLBACK');
    });
    expect(await events()).toHaveLength(5);
  });

  let firstBatchEnd = '';
  it('turns an indexer batch into transfers, mints, sales, cancels and causes, in log order, with their logs', async () => {
    await t.db.sql.exec(batch(100, 100, null, []));
    firstBatchEnd = await lastId();
    const script = batch(101, 110, 100, [
      { kind: 'Transfer', collection: C, from: ZERO_ADDRESS, to: SELLER, ids: [9n], amounts: [1n], ...ref(102, 1, 0) },
      // the listing of token 7 is bought: the NFT moves, then the exchange logs the fill
      { kind: 'Transfer', collection: C, from: SELLER, to: TAKER, ids: [7n], amounts: [1n], ...ref(103, 2, 3) },
      { kind: 'TakerBid', orderHash: hash(1), orderNonce: 1n, taker: TAKER, maker: SELLER, strategy: STRATEGY, currency: WETH, collection: C, tokenId: 7n, amount: 1n, price: 10n ** 18n, ...ref(103, 2, 4) },
      { kind: 'CancelMultipleOrders', user: BIDDER, nonces: [1n], ...ref(104, 3, 0) },
      { kind: 'CancelAllOrders', user: BIDDER, newMinNonce: 3n, ...ref(105, 4, 1) },
    ] as ChainEvent[], [{ hash: hash(4), status: 'ERC_APPROVAL' }]);
    await t.db.sql.exec(script);
    const rows = await events(firstBatchEnd);
    expect(rows.map((r) => [r.type, r.cause, r.order_hash, r.token_id, r.from_address, r.to_address, r.block_number, r.tx_hash, r.log_index])).toEqual([
      ['MINT', null, null, '9', ZERO_ADDRESS, SELLER, '102', tx(1), 0],
      ['TRANSFER', null, null, '7', SELLER, TAKER, '103', tx(2), 3],
      ['STATUS_CHANGE', 'EXECUTED', hash(1), '7', SELLER, null, '103', tx(2), 4],
      ['SALE', null, hash(1), '7', SELLER, TAKER, '103', tx(2), 4],
      ['CANCEL_OFFER', 'NONCE_CANCELLED', hash(2), '7', BIDDER, null, '104', tx(3), 0],
      ['CANCEL_OFFER', 'MIN_NONCE_RAISED', hash(3), null, BIDDER, null, '105', tx(4), 1],
      ['STATUS_CHANGE', 'APPROVAL_REVOKED', hash(4), '8', SELLER, null, '110', null, null],
      // the batch's moves of the collection's floor (nothing listed is live now) and best bid, last
      ['FLOOR_CHANGE', null, null, null, null, null, null, null, null],
      ['BEST_BID_CHANGE', null, hash(5), null, null, null, null, null, null],
    ]);
    expect(rows.find((r) => r.type === 'CANCEL_OFFER')).toMatchObject({ old_status: 'VALID', new_status: 'CANCELLED' });
  });

  it('names what a move back to VALID repaired, and a sibling cancelled by a fill on its nonce', async () => {
    const before = await lastId();
    await insertOrder(6, { ask: true, tokenId: 10, signer: SELLER, nonce: 5 });
    await insertOrder(7, { ask: true, tokenId: 11, signer: SELLER, nonce: 5 });
    await t.db.sql.exec(
      batch(111, 120, 110, [
        { kind: 'TakerBid', orderHash: hash(6), orderNonce: 5n, taker: TAKER, maker: SELLER, strategy: STRATEGY, currency: WETH, collection: C, tokenId: 10n, amount: 1n, price: 2n, ...ref(115, 5, 2) },
      ] as ChainEvent[], [{ hash: hash(4), status: 'VALID' }]),
    );
    const rows = (await events(before)).filter((r) => r.type !== 'LIST');
    expect(rows.map((r) => [r.type, r.cause, r.order_hash])).toEqual([
      ['STATUS_CHANGE', 'EXECUTED', hash(6)],
      ['CANCEL_LIST', 'NONCE_USED', hash(7)],
      ['SALE', null, hash(6)],
      ['STATUS_CHANGE', 'APPROVAL_RESTORED', hash(4)],
      ['FLOOR_CHANGE', null, null],
    ]);
  });

  it('retracts every event above the fork once, newest first, and keeps the events themselves', async () => {
    const before = await events();
    const above = before.filter((r) => r.block_number !== null && Number(r.block_number) > 110);
    expect(above.length).toBeGreaterThan(0);
    const rollback = buildUndoScript({ stream: 'test', expectedCursor: 120, fork: block(110), now: NOW, standardStrategies: [STRATEGY] });
    await t.db.sql.exec(rollback);
    const retractions = await events(before.at(-1)!.id);
    expect(retractions.map((r) => r.retracts_id)).toEqual(above.map((r) => r.id).reverse());
    expect(retractions.every((r) => r.type === 'RETRACTED')).toBe(true);
    expect(retractions[0]).toMatchObject({ order_hash: above.at(-1)!.order_hash, block_number: above.at(-1)!.block_number });
    expect((await events()).slice(0, before.length)).toEqual(before);
    // the facts are gone, the log says so; a deeper rollback retracts only what is still standing
    expect(await t.db.sql.query(`SELECT 1 FROM sales WHERE block_number > 110`)).toHaveLength(0);
    await t.db.sql.exec(buildUndoScript({ stream: 'test', expectedCursor: 110, fork: block(100), now: NOW, standardStrategies: [STRATEGY] }));
    const deeper = await events(retractions.at(-1)!.id);
    const between = before.filter((r) => r.block_number !== null && Number(r.block_number) > 100 && Number(r.block_number) <= 110);
    expect(deeper.map((r) => r.retracts_id)).toEqual(between.map((r) => r.id).reverse());
    const counts = await t.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM market_events GROUP BY retracts_id HAVING retracts_id IS NOT NULL AND count(*) > 1`);
    expect(counts).toHaveLength(0);
  });

  it('retracts nothing when the journal prunes old blocks', async () => {
    await t.db.sql.exec(batch(101, 105, 100, [{ kind: 'Transfer', collection: C, from: SELLER, to: TAKER, ids: [9n], amounts: [1n], ...ref(103, 9, 0) }] as ChainEvent[]));
    const before = await lastId();
    await t.db.sql.exec(`DELETE FROM token_transfers; DELETE FROM order_status_changes`);
    expect(await events(before)).toEqual([]);
  });
});

describe(`the log of a database that had history before it (${backendName})`, () => {
  it('is backfilled oldest first: orders, journaled and unexplained status changes, sales, transfers', async () => {
    const old = await openTestDatabase({ migrate: false });
    try {
      const sql = old.db.sql;
      await migrate(sql, readMigrations().filter((m) => m.name < '20261127090000'));
      await sql.query(`INSERT INTO collections (address, owner, type) VALUES ($1, $1, 'ERC721')`, [C]);
      const order = (n: number, ask: boolean, token: number | null, status: string, at: string) =>
        sql.query(
          `INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce, start_time, end_time,
                               min_percentage_to_ask, signature, v, r, s, status, created_at, updated_at)
           VALUES ($1, $2, $3::numeric, $4, $5, $6, $6, 1, 3, $7, 0, 1, 9800, '0x', 27, $1, $1, $8::"OrderStatus", $9::timestamptz, $9::timestamptz + interval '1 hour')`,
          [hash(n), C, token, ask, SELLER, STRATEGY, n, status, at],
        );
      await order(1, true, 1, 'EXECUTED', '2026-01-01T00:00:00Z');
      await order(2, false, null, 'CANCELLED', '2026-01-01T00:30:00Z');
      await order(3, true, 2, 'VALID', '2026-01-03T00:00:00Z');
      await sql.query(`INSERT INTO order_status_changes (order_hash, old_status, new_status, block_number, created_at) VALUES ($1, 'VALID', 'EXECUTED', 50, '2026-01-02T00:00:00Z')`, [hash(1)]);
      await sql.query(
        `INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash, is_taker_ask, block_number, tx_hash, log_index, timestamp)
         VALUES ($1, 1, 1, 3, $1, $2, $3, $4, false, 50, $5, 2, '2026-01-02T00:00:00Z')`,
        [C, TAKER, SELLER, hash(1), tx(1)],
      );
      await sql.query(`INSERT INTO token_transfers VALUES ($1, 1, $2, $3, 1, 50, $4, 1, 0)`, [C, SELLER, TAKER, tx(1)]);
      await migrate(sql);
      const rows = await sql.query<{ type: string; cause: string | null; order_hash: string | null; at: Date }>(
        `SELECT type::text, cause::text, order_hash, created_at AS at FROM market_events ORDER BY id`,
      );
      expect(rows.map((r) => [r.type, r.cause, r.order_hash])).toEqual([
        ['LIST', null, hash(1)],
        ['COLLECTION_OFFER', null, hash(2)],
        // the journal explains order 1; nothing explains order 2's cancel but its last update
        ['CANCEL_OFFER', 'NONCE_CANCELLED', hash(2)],
        ['TRANSFER', null, null],
        ['SALE', null, hash(1)],
        ['STATUS_CHANGE', 'EXECUTED', hash(1)],
        ['LIST', null, hash(3)],
      ]);
      // and the triggers take over from there
      await sql.query(`INSERT INTO token_transfers VALUES ($1, 2, $2, $3, 1, 51, $4, 1, 0)`, [C, ZERO_ADDRESS, TAKER, tx(2)]);
      expect((await sql.query<{ type: string }>(`SELECT type::text FROM market_events ORDER BY id DESC LIMIT 1`))[0]!.type).toBe('MINT');
    } finally {
      await old.close();
    }
  });
});
