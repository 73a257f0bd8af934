// GET /api/v1/orders: every filter, every sort, cursor paging with ties, both query encodings,
// bad parameters, against an oracle over a known order book.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrderBook, oracleSort, oracleStatus, fixtureCollections, fixtureWallets, type BookOrder } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
let app: TestApp;
let book: BookOrder[];

beforeAll(async () => {
  app = await startTestApp();
  book = await insertOrderBook(app.db, app.config.network, NOW);
});
afterAll(() => app?.close());

async function getAll(query: string, pageSize: number) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 200; guard++) {
    const sep = query ? '&' : '';
    const url = `/api/v1/orders?${query}${sep}pagination[first]=${pageSize}${cursor ? `&pagination[cursor]=${cursor}` : ''}`;
    const res = await app.rest(url);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = res.body.data as { hash: string }[];
    seen.push(...page.map((o) => o.hash));
    if (page.length < pageSize) return seen;
    cursor = page.at(-1)!.hash;
  }
  throw new Error('paging did not end');
}

describe(`GET /api/v1/orders (${backendName})`, () => {
  it('returns the v1 Order shape exactly, with response field names', async () => {
    const res = await app.rest('/api/v1/orders?pagination[first]=1');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBeNull();
    const o = res.body.data[0];
    expect(Object.keys(o).sort()).toEqual(
      ['hash', 'collectionAddress', 'tokenId', 'isOrderAsk', 'signer', 'strategy', 'currencyAddress', 'amount', 'price', 'nonce', 'startTime', 'endTime', 'minPercentageToAsk', 'params', 'status', 'signature', 'r', 's', 'v'].sort(),
    );
    expect(typeof o.price).toBe('string');
    expect(typeof o.startTime).toBe('number');
    expect(typeof o.v).toBe('number');
  });

  it('keeps a uint256-sized price exact and sorts prices numerically, not as text', async () => {
    const res = await app.rest('/api/v1/orders?sort=PRICE_DESC&pagination[first]=1');
    expect(res.body.data[0].price).toBe(((1n << 255n) + 12345n).toString());
    const asc = await getAll('sort=PRICE_ASC', 150);
    const prices = asc.map((h) => book.find((b) => b.hash === h)!.price);
    expect(prices).toEqual([...prices].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('shows collection offers with tokenId null and params "" or the encoding', async () => {
    const res = await app.rest(`/api/v1/orders?strategy=${app.config.network.strategies.collectionOffer[1]}&pagination[first]=150`);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const o of res.body.data) {
      expect(o.tokenId).toBeNull();
      expect(o.params).toBe('');
    }
    const ps = await app.rest(`/api/v1/orders?strategy=${app.config.network.strategies.privateSale[0]}&pagination[first]=1`);
    expect(ps.body.data[0].params).toMatch(/^0x[0-9a-f]{64}$/);
  });

  for (const sort of ['NEWEST', 'EXPIRING_SOON', 'PRICE_ASC', 'PRICE_DESC']) {
    for (const pageSize of [1, 7, 20]) {
      it(`pages through every order exactly once in ${sort} order (page size ${pageSize})`, async () => {
        const got = await getAll(`sort=${sort}`, pageSize);
        expect(got).toEqual(oracleSort(book, sort).map((o) => o.hash));
      });
    }
  }

  const filters: [string, (o: BookOrder) => boolean][] = [
    ['isOrderAsk=true', (o) => o.isOrderAsk],
    ['isOrderAsk=false', (o) => !o.isOrderAsk],
    [`collection=${fixtureCollections[1]!.toLowerCase()}`, (o) => o.collection === fixtureCollections[1]],
    [`collection=${fixtureCollections[0]}&tokenId=3`, (o) => o.collection === fixtureCollections[0] && o.tokenId === 3n],
    [`signer=${fixtureWallets[2]!.address.toUpperCase().replace('0X', '0x')}`, (o) => o.signer === fixtureWallets[2]!.address],
    ['nonce=3', (o) => o.nonce === 3n],
    ['price[min]=200000000000000000&price[max]=300000000000000000', (o) => o.price >= 2n * 10n ** 17n && o.price <= 3n * 10n ** 17n],
    [`startTime=${NOW - 2000}`, (o) => o.startTime >= BigInt(NOW - 2000)],
    [`endTime=${NOW + 3600}`, (o) => o.endTime <= BigInt(NOW + 3600)],
    ['status[]=VALID', (o) => oracleStatus(o, NOW) === 'VALID'],
    ['status[]=EXPIRED', (o) => oracleStatus(o, NOW) === 'EXPIRED'],
    ['status[]=EXECUTED&status[]=CANCELLED', (o) => ['EXECUTED', 'CANCELLED'].includes(oracleStatus(o, NOW))],
    ['status[]=ERC_APPROVAL&status[]=ERC20_BALANCE&status[]=INVALID_OWNER&status[]=ERC20_APPROVAL', (o) =>
      ['ERC_APPROVAL', 'ERC20_BALANCE', 'INVALID_OWNER', 'ERC20_APPROVAL'].includes(oracleStatus(o, NOW))],
    [`isOrderAsk=true&status[]=VALID&collection=${fixtureCollections[0]}`, (o) => o.isOrderAsk && oracleStatus(o, NOW) === 'VALID' && o.collection === fixtureCollections[0]],
  ];
  for (const [query, pred] of filters) {
    it(`filters ${query}`, async () => {
      const expected = oracleSort(book.filter(pred), 'PRICE_ASC').map((o) => o.hash);
      expect(expected.length).toBeGreaterThan(0);
      expect(await getAll(`${query}&sort=PRICE_ASC`, 9)).toEqual(expected);
    });
  }

  it('filters by strategy and currency', async () => {
    const s = app.config.network.strategies.standardSale[0]!;
    expect(await getAll(`strategy=${s}&sort=NEWEST`, 150)).toEqual(oracleSort(book.filter((o) => o.strategy === s), 'NEWEST').map((o) => o.hash));
    expect((await getAll(`currency=${app.config.network.weth}`, 150)).length).toBe(book.length);
    expect(await getAll(`currency=0x${'1'.repeat(40)}`, 150)).toEqual([]);
  });

  it('serves a live order past its endTime as EXPIRED, never VALID', async () => {
    const ended = book.filter((o) => o.status === 'VALID' && o.endTime < BigInt(NOW));
    expect(ended.length).toBeGreaterThan(0);
    const res = await app.rest(`/api/v1/orders?status[]=VALID&pagination[first]=150`);
    const valid = new Set(res.body.data.map((o: { hash: string }) => o.hash));
    for (const o of ended) expect(valid.has(o.hash)).toBe(false);
    const expired = await getAll('status[]=EXPIRED', 150);
    for (const o of ended) expect(expired).toContain(o.hash);
  });

  it('accepts nested parameters as URL-encoded JSON, like axios and the Kotlin client sent', async () => {
    const bracket = await app.rest(`/api/v1/orders?pagination[first]=5&status[]=VALID&status[]=EXECUTED&price[min]=100000000000000000&sort=PRICE_ASC`);
    const json = await app.rest(
      `/api/v1/orders?pagination=${encodeURIComponent('{"first":5}')}&status=${encodeURIComponent('["VALID","EXECUTED"]')}&price=${encodeURIComponent('{"min":"100000000000000000"}')}&sort=PRICE_ASC`,
    );
    expect(json.status).toBe(200);
    expect(json.body.data).toEqual(bracket.body.data);
    const encodedBrackets = await app.rest(`/api/v1/orders?pagination%5Bfirst%5D=5&status%5B%5D=VALID&status%5B%5D=EXECUTED&price%5Bmin%5D=100000000000000000&sort=PRICE_ASC`);
    expect(encodedBrackets.body.data).toEqual(bracket.body.data);
    const cursor = bracket.body.data[4].hash;
    const next = await app.rest(`/api/v1/orders?pagination=${encodeURIComponent(JSON.stringify({ first: 5, cursor }))}&status[]=VALID&status[]=EXECUTED&price[min]=100000000000000000&sort=PRICE_ASC`);
    expect(next.body.data[0].hash).not.toBe(cursor);
  });

  it('defaults to 20 per page and refuses more than 150', async () => {
    expect((await app.rest('/api/v1/orders')).body.data).toHaveLength(20);
    expect((await app.rest('/api/v1/orders?pagination[first]=150')).body.data).toHaveLength(120);
    const res = await app.rest('/api/v1/orders?pagination[first]=151');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null });
    expect(res.body.errors[0].field).toBe('pagination[first]');
  });

  it('answers bad parameters with a 400 envelope that lists every problem', async () => {
    const res = await app.rest('/api/v1/orders?collection=0x123&isOrderAsk=maybe&status[]=OPEN&sort=CHEAPEST&price[min]=-1&tokenId=1.5&pagination[cursor]=abc&startTime=soon');
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.data).toBeNull();
    expect(typeof res.body.message).toBe('string');
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['collection', 'isOrderAsk', 'pagination[cursor]', 'price[min]', 'sort', 'startTime', 'status', 'tokenId'].sort());
    for (const e of res.body.errors) expect(e.code).toMatch(/^[A-Z0-9_]+$/);
  });

  it('refuses a cursor that is not a known order, and an inverted price range', async () => {
    const res = await app.rest(`/api/v1/orders?pagination[cursor]=0x${'ab'.repeat(32)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/cursor/);
    const range = await app.rest('/api/v1/orders?price[min]=5&price[max]=4');
    expect(range.status).toBe(400);
    expect(range.body.errors[0].code).toBe('INVALID_RANGE');
  });

  it('answers unknown routes with 404 and wrong methods with 405, in the envelope', async () => {
    const missing = await app.rest('/api/v1/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, data: null });
    const wrong = await app.rest('/api/v1/collections', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(wrong.body.success).toBe(false);
  });
});
