// GET /api/v1/events as v1 bots called it: newest first, the v1 event object, a cursor that pages
// through the same events as Query.activity, the v1 types and filters (a collection offer is an
// OFFER; status changes are not v1 events), a submission that shows up as a LIST at once, and
// the envelope with 400 for bad parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZERO_ADDRESS } from '../../src/domain/address.js';
import { demoCollectionAddress, DEMO_WALLETS, seedDemo } from '../../src/demo/seed-demo.js';
import { signWithEthers6, standardAsk } from '../helpers/maker-orders.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
const route = '/api/v1/events';
const C = () => demoCollectionAddress(0);
const W = DEMO_WALLETS.map((w) => w.address);

const get = async (q: string) => {
  const r = await app.rest(`${route}${q}`);
  return { status: r.status, body: r.body as { success: boolean; message: string | null; data: any[]; errors?: unknown[] } };
};

beforeAll(async () => {
  app = await startTestApp();
  await seedDemo(app.services, { orderCount: 60, saleCount: 40 });
  await app.db.sql.query(
    `INSERT INTO token_transfers (collection_address, token_id, from_address, to_address, amount, block_number, tx_hash, log_index, batch_index)
     VALUES ($1, 900, $2, $3, 1, 10, $4, 0, 0), ($1, 900, $3, $5, 1, 11, $6, 0, 0)`,
    [C(), ZERO_ADDRESS, W[0], '0x' + 'aa'.repeat(32), W[1], '0x' + 'bb'.repeat(32)],
  );
});
afterAll(() => app?.close());

describe(`GET /api/v1/events (${backendName})`, () => {
  it('pages newest first through the events Query.activity lists for the v1 types', async () => {
    const all: any[] = [];
    let cursor = '';
    for (;;) {
      const { status, body } = await get(`?pagination[first]=37${cursor ? `&pagination[cursor]=${cursor}` : ''}`);
      expect(status).toBe(200);
      expect(body.success).toBe(true);
      all.push(...body.data);
      if (body.data.length < 37) break;
      cursor = String(body.data.at(-1).id);
    }
    const gql = await app.gql(`{ activity(first: 150, filter: { types: [LIST, OFFER, COLLECTION_OFFER, SALE, TRANSFER, MINT, CANCEL_LIST, CANCEL_OFFER] }) { totalCount edges { node { eventId } } } }`);
    const activity = (gql.data as any).activity;
    expect(all.length).toBe(activity.totalCount);
    expect(all.map((e) => String(e.id))).toEqual(activity.edges.map((e: any) => e.node.eventId).slice(0, all.length));
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const statements = app.testDb.statements;
    statements.length = 0;
    expect((await get('')).body.data).toHaveLength(20);
    // the read engine's one statement
    expect(statements).toHaveLength(1);
    for (const e of all) expect(Object.keys(e)).toEqual(['id', 'type', 'from', 'to', 'hash', 'createdAt', 'collection', 'token', 'order']);
  });

  it('shows a submitted listing at once as a LIST with its order, and its cancel with the current status', async () => {
    const wallet = DEMO_WALLETS[2]!;
    const net = app.config.network;
    const nonce = ((await app.rest(`/api/v1/orders/nonce?address=${wallet.address}`)).body as any).data as string;
    const now = Math.floor(app.clock.now.getTime() / 1000);
    const body = await signWithEthers6(wallet, net.chainId, net.exchange, standardAsk(net, { signer: wallet.address, collection: C(), nonce, now }, { tokenId: '777' }));
    const posted = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(posted.status).toBe(201);
    const hash = (posted.body as any).data.hash;
    const [list] = (await get(`?collection=${C()}&tokenId=777`)).body.data;
    expect(list).toMatchObject({ type: 'LIST', from: wallet.address, to: null, hash: null, token: { collectionAddress: C(), tokenId: '777' }, order: { hash, status: 'VALID' } });
    expect(list.collection.address).toBe(C());
    expect(new Date(list.createdAt).toISOString()).toBe(list.createdAt);

    await app.db.sql.query(`UPDATE orders SET status = 'CANCELLED' WHERE hash = $1`, [hash]);
    await app.db.sql.query(`INSERT INTO order_status_changes (order_hash, old_status, new_status, block_number, tx_hash, log_index) VALUES ($1, 'VALID', 'CANCELLED', 12, $2, 3)`, [hash, '0x' + 'cc'.repeat(32)]);
    const [cancel, listed] = (await get(`?collection=${C()}&tokenId=777`)).body.data;
    expect(cancel).toMatchObject({ type: 'CANCEL_LIST', hash: '0x' + 'cc'.repeat(32), order: { hash, status: 'CANCELLED' } });
    expect(cancel.id).toBeGreaterThan(listed.id);
    expect(listed.order.status).toBe('CANCELLED');
    expect((await get(`?type=CANCEL_LIST&from=${wallet.address}`)).body.data.map((e) => e.id)).toEqual([cancel.id]);
  });

  it('filters by type, collection, sender and receiver as v1 did', async () => {
    const salesRes = await get(`?collection=${C()}&type=SALE&pagination[first]=150`);
    expect(salesRes.body.message).toBeNull();
    const sales = salesRes.body.data;
    expect(sales.length).toBeGreaterThan(0);
    for (const s of sales) {
      expect(s).toMatchObject({ type: 'SALE', collection: { address: C() } });
      expect(s.hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(s.from).not.toBe(s.to);
    }
    const offers = (await get(`?type=OFFER&pagination[first]=150`)).body.data;
    expect(offers.every((o) => o.type === 'OFFER' && o.order.isOrderAsk === false)).toBe(true);
    // a collection offer is an OFFER without a token
    expect(offers.some((o) => o.token === null && o.order.tokenId === null)).toBe(true);
    const [mint] = (await get(`?type=MINT`)).body.data;
    expect(mint).toMatchObject({ type: 'MINT', from: ZERO_ADDRESS, to: W[0], hash: '0x' + 'aa'.repeat(32), order: null, token: { tokenId: '900' } });
    expect((await get(`?type=TRANSFER&to=${W[1]}`)).body.data.map((e) => [e.type, e.from, e.to])).toEqual([['TRANSFER', W[0], W[1]]]);
    expect((await get(`?from=${W[0]}&type=TRANSFER`)).body.data).toHaveLength(1);
    // addresses in any letter case
    expect((await get(`?to=${W[1]!.toLowerCase()}&type=TRANSFER`)).body.data).toHaveLength(1);
  });

  it('answers the envelope with 400 for bad parameters, naming them', async () => {
    const cases: [string, string, string][] = [
      ['?type=STATUS_CHANGE', 'type', 'INVALID_EVENT_TYPE'],
      ['?tokenId=1', 'tokenId', 'BAD_REQUEST'],
      ['?from=0x12', 'from', 'INVALID_ADDRESS'],
      ['?pagination[first]=151', 'pagination[first]', 'INVALID_PAGE_SIZE'],
      ['?pagination[cursor]=x', 'pagination[cursor]', 'INVALID_CURSOR'],
    ];
    for (const [q, field, code] of cases) {
      const { status, body } = await get(q);
      expect(status, q).toBe(400);
      expect(body.success, q).toBe(false);
      expect(body.errors, q).toEqual([expect.objectContaining({ field, code })]);
    }
  });
});
