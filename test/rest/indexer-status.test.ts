// Where the indexer is (GraphQL, REST, /readyz, /metrics), the `hash` filter of
// GET /api/v1/orders, and the market clock seen through the API (EXPIRED by the latest block time
// when the chain is ahead of the server's clock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { insertOrderBook, type BookOrder } from '../fixtures/order-book.js';
import { FIXED_NOW } from '../helpers/test-app.js';
import { backendName, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
let t: TestDatabase;
let app: Running;
let book: BookOrder[];
/** a live VALID order ending an hour after the wall clock: the chain is two hours ahead */
let endsBeforeChainTime: BookOrder;
const CHAIN_AHEAD = 7200;

const rest = async (path: string) => {
  const res = await app.yoga.fetch(`http://test${path}`);
  return { status: res.status, body: JSON.parse(await res.text()) };
};
const gql = async (query: string, variables: Record<string, unknown> = {}) => {
  const res = await app.yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as { data?: any; errors?: unknown[] };
};

beforeAll(async () => {
  t = await openTestDatabase();
  await migrate(t.db.sql);
  const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' });
  book = await insertOrderBook(t.db, config.network, NOW);
  // an indexer (another instance) committed block 1234, mined two hours after our wall clock
  await t.db.sql.query(
    `INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash, block_timestamp, last_event_block, last_event_timestamp)
     VALUES ('main', $1, 1234, $2, $3, 1200, $4)`,
    [config.network.chainId, '0x' + 'ab'.repeat(32), NOW + CHAIN_AHEAD, NOW + CHAIN_AHEAD - 300],
  );
  const hash = '0x' + '77'.repeat(32);
  const base = book.find((o) => o.status === 'VALID' && o.endTime > BigInt(NOW + CHAIN_AHEAD))!;
  const row = await t.db.prisma.order.findUniqueOrThrow({ where: { hash: base.hash } });
  const { id: _id, ...rest } = row;
  await t.db.prisma.order.create({ data: { ...rest, hash, endTime: BigInt(NOW + 3600), paramsList: rest.paramsList as string[] } });
  endsBeforeChainTime = { ...base, hash, endTime: BigInt(NOW + 3600) };
  app = await boot(config, createLogger('silent'), { db: t.db, indexer: false, now: () => FIXED_NOW });
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});

describe(`indexer status and the market clock (${backendName})`, () => {
  it('indexerStatus reports the committed block, its time and the last event; head unknown without RPC', async () => {
    const r = await gql('{ indexerStatus { chainId headBlock indexedBlock indexedBlockTimestamp confirmations lagBlocks lagSeconds lastEventBlock lastEventTimestamp running holdsLease } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.indexerStatus).toEqual({
      chainId: 1,
      headBlock: null,
      indexedBlock: 1234,
      indexedBlockTimestamp: NOW + CHAIN_AHEAD,
      confirmations: 3,
      lagBlocks: null,
      lagSeconds: null,
      lastEventBlock: 1200,
      lastEventTimestamp: NOW + CHAIN_AHEAD - 300,
      running: false,
      holdsLease: false,
    });
  });

  it('GET /api/v1/indexer/status is the same in the v1 envelope, and /readyz carries it', async () => {
    const r = await rest('/api/v1/indexer/status');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, data: { chainId: 1, indexedBlock: 1234, holdsLease: false } });
    const ready = await rest('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.components.indexer).toMatchObject({ status: 'off', required: false, indexedBlock: 1234, lastEventBlock: 1200 });
    expect(ready.body.components.indexer).not.toHaveProperty('lastError');
  });

  it('exports the position as Prometheus gauges, leaving out what is unknown', async () => {
    const text = await (await app.yoga.fetch('http://test/metrics')).text();
    expect(text).toMatch(/^indexer_indexed_block\{chain_id="1"\} 1234$/m);
    expect(text).toMatch(/^indexer_holds_lease\{chain_id="1"\} 0$/m);
    expect(text).toMatch(new RegExp(`^indexer_last_event_timestamp_seconds\\{chain_id="1"\\} ${NOW + CHAIN_AHEAD - 300}$`, 'm'));
    expect(text).not.toMatch(/^indexer_head_block\{/m);
    expect(text).not.toMatch(/^indexer_lag_blocks\{/m);
  });

  it('GET /api/v1/orders?hash= returns that order alone, nothing for an unknown hash, 400 for a malformed one', async () => {
    const target = book[17]!;
    const one = await rest(`/api/v1/orders?hash=${target.hash.toUpperCase().replace('0X', '0x')}`);
    expect(one.status).toBe(200);
    expect(one.body.data.map((o: { hash: string }) => o.hash)).toEqual([target.hash]);
    const none = await rest(`/api/v1/orders?hash=0x${'0'.repeat(64)}`);
    expect(none.body.data).toEqual([]);
    const bad = await rest('/api/v1/orders?hash=0x1234');
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toMatch(/hash/);
    const both = await rest(`/api/v1/orders?hash=${target.hash}&isOrderAsk=${!target.isOrderAsk}`);
    expect(both.body.data).toEqual([]);
  });

  it('reads EXPIRED by the latest block time when the chain is ahead of the wall clock', async () => {
    const r = await rest(`/api/v1/orders?hash=${endsBeforeChainTime.hash}`);
    expect(r.body.data[0].status).toBe('EXPIRED');
    const g = await gql('query($h: Hash!) { order(hash: $h) { status } }', { h: endsBeforeChainTime.hash });
    expect(g.data.order.status).toBe('EXPIRED');
    const valid = await rest(`/api/v1/orders?hash=${endsBeforeChainTime.hash}&status[]=VALID`);
    expect(valid.body.data).toEqual([]);
  });
});
