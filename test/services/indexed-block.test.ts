// The indexed-block mark on two real databases, one standing in for a read replica: it takes the
// cursor's block from a poll or from the indexer's word after a commit, follows the cursor down
// after a reorg, is the lower of the primary's and the replica's cursors while the replica serves
// reads, releases every waiter at once when the block arrives, and tells a waiter whose bound ran
// out. No chain node: transactions cannot be waited for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { ReadReplica } from '../../src/db/read-replica.js';
import { createIndexedBlockService, CURSOR_SQL } from '../../src/services/indexed-block.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const network = loadConfig({ SEED: '0' }).network;
let primary: TestDatabase;
let replicaDb: TestDatabase;
let replicaUsable = false;
const replica = { db: undefined as unknown as Database, usable: () => replicaUsable } as ReadReplica;

async function setCursor(db: Database, block: number) {
  const hash = '0x' + block.toString(16).padStart(64, '0');
  await db.sql.exec(
    `INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash) VALUES ('main', ${network.chainId}, ${block}, '${hash}')
     ON CONFLICT (stream) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash;`,
  );
}

beforeAll(async () => {
  [primary, replicaDb] = await Promise.all([openTestDatabase(), openTestDatabase()]);
  replica.db = replicaDb.db;
});
afterAll(async () => {
  await primary?.close();
  await replicaDb?.close();
});

describe(`the indexed-block mark (${backendName})`, () => {
  it('is null without a cursor, then the cursor block; the indexer may raise it between polls', async () => {
    const mark = createIndexedBlockService({ db: primary.db, network, chain: null });
    await mark.refresh();
    expect(mark.current()).toBeNull();
    await setCursor(primary.db, 40);
    expect(mark.current()).toBeNull(); // not polled yet: it lags, it never guesses
    await mark.refresh();
    expect(mark.current()).toBe(40);
    mark.committed(41);
    expect(mark.current()).toBe(41);
    // a reorg rolled the cursor back: the mark follows it down
    await setCursor(primary.db, 35);
    await mark.refresh();
    expect(mark.current()).toBe(35);
    expect(mark.canWaitForTransactions()).toBe(false);
  });

  it('is the lower of the two cursors while the replica serves reads', async () => {
    const mark = createIndexedBlockService({ db: primary.db, replica, network, chain: null });
    await setCursor(primary.db, 60);
    await setCursor(replicaDb.db, 58);
    replicaUsable = true;
    await mark.refresh();
    expect(mark.current()).toBe(58);
    replicaUsable = false; // reads go to the primary again
    expect(mark.current()).toBe(60);
  });

  it('releases every waiter on one poll when the block arrives, and bounds the others', async () => {
    // the primary, counting the poll's statements
    let polls = 0;
    const sql = primary.db.sql;
    const counted = { ...primary.db, sql: { ...sql, query: ((text: string, params?: unknown[], name?: string) => (text === CURSOR_SQL && polls++, sql.query(text, params, name))) as typeof sql.query } } as Database;
    const mark = createIndexedBlockService({ db: counted, network, chain: null });
    await setCursor(primary.db, 70);
    await mark.refresh();
    polls = 0;
    const waits = [71, 71, 72, 72, 72].map((b) => mark.waitFor(b, 5000));
    const short = mark.waitFor(1000, 150);
    expect(await mark.waitFor(70, 0)).toBe(true); // already there: at once
    await new Promise((r) => setTimeout(r, 350));
    await setCursor(primary.db, 72);
    expect(await Promise.all(waits)).toEqual([true, true, true, true, true]);
    expect(await short).toBe(false);
    expect(mark.current()).toBe(72);
    // six waiters over about 4 ticks of 100 ms: one statement per tick, not one per waiter per tick
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(polls).toBeLessThan(12);
    mark.stop();
  });
});
