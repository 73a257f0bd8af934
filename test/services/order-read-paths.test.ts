// The SQL read path (one statement per page, planned from the selection) must answer exactly
// what the Prisma path it replaced answers, byte for byte, over GraphQL and REST: every sort,
// every status (EXPIRED by time too), cursor paging with ties, uint256 values beyond 2^53 and
// collection offers (tokenId null). Then backward paging (last/before), which only the SQL path
// has: it must be the exact mirror of forward paging for every sort, on Query.orders and
// Collection.orders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_SORTS } from '../../src/domain/order-query.js';
import { ORDER_STATUSES } from '../../src/domain/order-status.js';
import type { OrderQuery } from '../../src/domain/order-query.js';
import { fixtureCollections, insertOrderBook, oracleSort, type BookOrder } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const HUGE = (1n << 200n) + 7n; // beyond 2^53 and beyond a double's 17 digits
let app: TestApp;
let book: BookOrder[];

const ORDER_FIELDS = `hash collectionAddress tokenId isOrderAsk signer strategy currencyAddress amount price nonce
  startTime endTime minPercentageToAsk params status signature r s v`;
const COLLECTION_FIELDS = `address owner setter admin name description symbol type websiteLink alphaLink bravoLink charlieLink
  deltaLink echoLink foxtrotLink isVerified isExplicit logoURI bannerURI`;
const PAGE = `query($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {
  orders(filter: $filter, sort: $sort, first: $first, after: $after) {
    edges { cursor node { ${ORDER_FIELDS} collection { ${COLLECTION_FIELDS} } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

/** Runs fn with the resolvers over the Prisma path (the one the SQL path replaced) answering every order page. */
async function withPrismaPath<T>(fn: () => Promise<T>): Promise<T> {
  const orders = app.services.orders;
  const sqlPath = orders.listOrderPage;
  orders.listOrderPage = (async (q: OrderQuery) => orders.listOrders(q, { include: { collection: true } })) as unknown as typeof sqlPath;
  try {
    return await withResolvers(fn);
  } finally {
    orders.listOrderPage = sqlPath;
  }
}

/** Runs fn with the resolvers answering (the SQL page path under them), the read engine off. */
async function withResolvers<T>(fn: () => Promise<T>): Promise<T> {
  app.services.deps.config.readEngine = false;
  try {
    return await fn();
  } finally {
    app.services.deps.config.readEngine = true;
  }
}

async function gqlText(variables: Record<string, unknown>): Promise<string> {
  const res = await app.gql(PAGE, variables);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return JSON.stringify(res.data);
}

async function restText(path: string): Promise<string> {
  const res = await app.yoga.fetch(`http://test${path}`);
  return `${res.status} ${await res.text()}`;
}

beforeAll(async () => {
  app = await startTestApp();
  book = await insertOrderBook(app.db, app.config.network, NOW);
  // one order whose tokenId, amount, price and nonce are all beyond 2^53
  const [row] = await app.db.sql.query<{ hash: string }>(
    `INSERT INTO orders (hash, collection_address, token_id, is_order_ask, signer, strategy, currency_address, amount, price, nonce,
       start_time, end_time, min_percentage_to_ask, status, signature, v, r, s)
     SELECT '0x' || repeat('ab', 32), collection_address, $1::numeric, true, signer, strategy, currency_address, $1::numeric, $1::numeric, $1::numeric,
       start_time, end_time, min_percentage_to_ask, 'VALID', signature, v, r, s FROM orders ORDER BY id LIMIT 1
     RETURNING hash`,
    [HUGE.toString()],
  );
  expect(row!.hash).toHaveLength(66);
});
afterAll(() => app?.close());

describe(`order read paths (${backendName})`, () => {
  const filters: Record<string, unknown>[] = [
    {},
    { isOrderAsk: true },
    { collection: fixtureCollections[1] },
    { collection: fixtureCollections[0], tokenId: '3' },
    { price: { min: '200000000000000000', max: '300000000000000000' } },
    { startTime: NOW - 2000, endTime: NOW + 3600 * 2 },
    { status: ['VALID', 'EXPIRED'] },
    ...ORDER_STATUSES.map((s) => ({ status: [s] })),
  ];

  it('answers every filter and sort exactly as the Prisma path, page by page with cursors', async () => {
    let pages = 0;
    for (const sort of ORDER_SORTS) {
      for (const filter of filters) {
        let after: string | undefined;
        for (let guard = 0; guard < 50; guard++) {
          const vars = { filter, sort, first: 9, after };
          const fast = await gqlText(vars);
          const reference = await withPrismaPath(() => gqlText(vars));
          expect(fast, `${sort} ${JSON.stringify(filter)} after ${after}`).toBe(reference);
          pages++;
          const conn = JSON.parse(fast).orders;
          if (!conn.pageInfo.hasNextPage) break;
          after = conn.pageInfo.endCursor;
        }
      }
    }
    expect(pages).toBeGreaterThan(ORDER_SORTS.length * filters.length);
  });

  it('keeps uint256 values beyond 2^53 and null tokenIds exact', async () => {
    const text = await gqlText({ sort: 'PRICE_DESC', first: 50 });
    expect(text).toContain(`"tokenId":"${HUGE}"`);
    expect(text).toContain(`"nonce":"${HUGE}"`);
    expect(text).toContain(`"amount":"${HUGE}"`);
    expect(JSON.parse(text).orders.edges[0].node.price).toBe(((1n << 255n) + 12345n).toString());
    expect(await gqlText({ filter: { isOrderAsk: false }, first: 50 })).toContain('"tokenId":null');
  });

  it('serves GET /api/v1/orders byte for byte as before', async () => {
    const paths = [
      '/api/v1/orders',
      '/api/v1/orders?pagination[first]=150&sort=PRICE_ASC',
      '/api/v1/orders?pagination[first]=150&sort=EXPIRING_SOON&status[]=EXPIRED',
      `/api/v1/orders?collection=${fixtureCollections[0]}&isOrderAsk=true&status[]=VALID&sort=PRICE_DESC&pagination[first]=5`,
      '/api/v1/orders?pagination[cursor]=0x' + '00'.repeat(32),
      '/api/v1/orders?sort=BOGUS',
    ];
    const page = JSON.parse(await restText('/api/v1/orders?sort=PRICE_ASC&pagination[first]=10').then((t) => t.slice(4)));
    paths.push(`/api/v1/orders?sort=PRICE_ASC&pagination[first]=10&pagination[cursor]=${page.data[9].hash}`);
    for (const path of paths) expect(await restText(path), path).toBe(await withPrismaPath(() => restText(path)));
    // rendered by the read engine from the query parsed once: one statement
    const log = app.testDb.statements;
    log.length = 0;
    expect(await restText(paths[3]!)).toMatch(/^200 /);
    expect(log, log.join('\n---\n')).toHaveLength(1);
    expect(log[0]).toContain(`'{"hash":'`);
  });
});

describe(`GET /api/v1/orders through its statement template (${backendName})`, () => {
  it('binds each collection, signer, token, cursor and clock as the resolvers answer them, refusing no template', async () => {
    const refused: string[] = [];
    let made = 0;
    const stop = app.services.readTemplates.onOutcome((outcome, reason) => (outcome === 'made' ? made++ : outcome === 'refused' && refused.push(reason ?? '')));
    const signers = [...new Set(book.map((o) => o.signer))].slice(0, 3);
    const checked = async (path: string) => expect(await restText(path), path).toBe(await withPrismaPath(() => restText(path)));
    try {
      for (const at of [FIXED_NOW, new Date(FIXED_NOW.getTime() + 3 * 86_400_000 + 1234)]) {
        app.clock.now = at;
        for (const collection of fixtureCollections) {
          const base = `/api/v1/orders?collection=${collection}&isOrderAsk=true&status[]=VALID&sort=PRICE_ASC&pagination[first]=3`;
          await checked(base);
          // the next page from each order of the first, as a bot pages
          const page = JSON.parse((await restText(base)).slice(4)).data as { hash: string }[];
          for (const o of page) await checked(`${base}&pagination[cursor]=${o.hash}`);
          for (const signer of signers) await checked(`/api/v1/orders?collection=${collection}&signer=${signer}&status[]=VALID&status[]=EXPIRED&pagination[first]=4`);
          for (const tokenId of ['1', '2', HUGE.toString()]) await checked(`/api/v1/orders?collection=${collection}&tokenId=${tokenId}&sort=NEWEST&pagination[first]=4`);
          for (const [min, max] of [['0', '2000000000000000000'], ['1000000000000000000', HUGE.toString()]]) {
            await checked(`/api/v1/orders?collection=${collection}&price[min]=${min}&price[max]=${max}&startTime=${NOW - 86_400}&endTime=${NOW + 30 * 86_400}&sort=PRICE_DESC&pagination[first]=5`);
          }
        }
      }
    } finally {
      app.clock.now = FIXED_NOW;
      stop();
    }
    expect(refused).toEqual([]);
    // a shape per filter set (the first page, a cursor, a signer, a token, a price range), not per value
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(5);
  });
});

describe(`backward paging (${backendName})`, () => {
  const BACK = `query($sort: OrderSort, $last: Int, $before: String, $filter: OrderFilterInput) {
    orders(sort: $sort, last: $last, before: $before, filter: $filter) {
      edges { cursor node { hash } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;

  for (const sort of ORDER_SORTS) {
    it(`pages backward through every order exactly once in ${sort} order (mirror of forward)`, async () => {
      const all = (await app.gql(`{ orders(sort: ${sort}, first: 150) { edges { node { hash } } } }`)) as any;
      const forward: string[] = all.data.orders.edges.map((e: any) => e.node.hash);
      expect(forward.length).toBe(book.length + 1);
      expect(forward.filter((h) => book.some((b) => b.hash === h))).toEqual(oracleSort(book, sort).map((b) => b.hash));
      const seen: string[] = [];
      let before: string | undefined;
      for (let guard = 0; guard < 100; guard++) {
        const res = (await app.gql(BACK, { sort, last: 7, before })) as any;
        expect(res.errors).toBeUndefined();
        const { edges, pageInfo } = res.data.orders;
        const hashes = edges.map((e: any) => e.node.hash);
        seen.unshift(...hashes);
        // the page is the 7 orders right before the cursor, in list order
        const end = before ? forward.indexOf(before) : forward.length;
        expect(hashes).toEqual(forward.slice(Math.max(0, end - 7), end));
        expect(pageInfo.hasNextPage).toBe(before !== undefined);
        expect(pageInfo.hasPreviousPage).toBe(end - 7 > 0);
        expect(pageInfo.startCursor).toBe(hashes[0] ?? null);
        expect(pageInfo.endCursor).toBe(hashes.at(-1) ?? null);
        if (!pageInfo.hasPreviousPage) break;
        before = pageInfo.startCursor;
      }
      expect(seen).toEqual(forward);
    });
  }

  it('combines after and before into a window, forward or backward', async () => {
    const all = (await app.gql(`{ orders(sort: PRICE_ASC, first: 150) { edges { node { hash } } } }`)) as any;
    const forward: string[] = all.data.orders.edges.map((e: any) => e.node.hash);
    const q = (args: string) => app.gql(`{ orders(sort: PRICE_ASC, ${args}) { edges { node { hash } } pageInfo { hasNextPage hasPreviousPage } } }`) as Promise<any>;
    const win = await q(`after: "${forward[10]}", before: "${forward[30]}", last: 5`);
    expect(win.data.orders.edges.map((e: any) => e.node.hash)).toEqual(forward.slice(25, 30));
    expect(win.data.orders.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true });
    const fwd = await q(`after: "${forward[10]}", before: "${forward[14]}", first: 5`);
    expect(fwd.data.orders.edges.map((e: any) => e.node.hash)).toEqual(forward.slice(11, 14));
    expect(fwd.data.orders.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
  });

  it('pages Collection.orders backward with its filter', async () => {
    const fwd = (await app.gql(`query($a: Address!) { collection(address: $a) { orders(first: 150, sort: EXPIRING_SOON, filter: { isOrderAsk: true }) { edges { node { hash } } } } }`, {
      a: fixtureCollections[0],
    })) as any;
    const forward = fwd.data.collection.orders.edges.map((e: any) => e.node.hash);
    expect(forward.length).toBeGreaterThan(10);
    const back = (await app.gql(`query($a: Address!, $b: String) { collection(address: $a) { orders(last: 4, before: $b, sort: EXPIRING_SOON, filter: { isOrderAsk: true }) { edges { node { hash } } } } }`, {
      a: fixtureCollections[0],
      b: forward[10],
    })) as any;
    expect(back.data.collection.orders.edges.map((e: any) => e.node.hash)).toEqual(forward.slice(6, 10));
  });

  it('refuses first with last, a malformed before and an unknown cursor, with typed errors', async () => {
    const both = (await app.gql(`{ orders(first: 2, last: 2) { edges { cursor } } }`)) as any;
    expect(both.errors[0].extensions.code).toBe('BAD_REQUEST');
    const bad = (await app.gql(`{ orders(last: 2, before: "nope") { edges { cursor } } }`)) as any;
    expect(bad.errors[0].extensions.code).toBe('BAD_REQUEST');
    const unknown = (await app.gql(`{ orders(last: 2, before: "0x${'12'.repeat(32)}") { edges { cursor } } }`)) as any;
    expect(unknown.errors[0].extensions.code).toBe('INVALID_CURSOR');
    const tooMany = (await app.gql(`{ orders(last: 151) { edges { cursor } } }`)) as any;
    expect(tooMany.errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});

// The read engine (src/read-engine/): PostgreSQL renders the whole response as its final JSON
// text. Its responses must be the resolvers', byte for byte, for every field, aliases, fragments,
// directives and __typename included, strings that need escaping, null fields, uint256 beyond
// 2^53 and the read-time EXPIRED; errors are answered by the resolvers as before.
describe(`order book page rendered by PostgreSQL (${backendName})`, () => {
  const RENDERED_ORDER = `${ORDER_FIELDS} priceEth`;
  const SHAPES = {
    bench: `query($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {
      orders(filter: $filter, sort: $sort, first: $first, after: $after) {
        edges { node { hash tokenId price endTime status collection { name symbol type isVerified } } }
        pageInfo { hasNextPage endCursor }
      }
    }`,
    everything: `query Everything($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {
      page: orders(filter: $filter, sort: $sort, first: $first, after: $after) {
        __typename
        pageInfo { endCursor hasPreviousPage __typename startCursor hasNextPage }
        edges { __typename cursor order: node { __typename ${RENDERED_ORDER} price2: price collection { __typename ${COLLECTION_FIELDS} label: name } } }
      }
    }`,
    literalArgs: `{ orders(first: 7, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID, EXPIRED] }) { edges { cursor node { hash status endTime } } } }`,
  };

  async function rawText(query: string, variables: Record<string, unknown>) {
    const log = app.testDb.statements;
    log.length = 0;
    const res = await app.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const text = `${res.status} ${res.headers.get('content-type')} ${await res.text()}`;
    return { text, rendered: log.some((s) => s.includes(`'{"`)) };
  }

  /** The ordinary path's answer: with Prisma rows under it the JSON path steps aside. */
  const reference = (query: string, variables: Record<string, unknown>) => withPrismaPath(() => rawText(query, variables));

  beforeAll(async () => {
    // strings JSON must escape, a name left to the default, and every nullable field set on one
    await app.db.sql.query(`UPDATE collections SET name = $1, symbol = NULL, logo_uri = $2, setter = owner WHERE address = $3`, [
      'Quote " back\\slash\nline\ttab \u0001 é 😀 \u2028 </script>',
      'https://example.test/logo.png?a=1&b="2"',
      fixtureCollections[0],
    ]);
    await app.db.sql.query(`UPDATE collections SET name = NULL WHERE address = $1`, [fixtureCollections[1]]);
  });

  it('answers every filter, sort and page exactly as the ordinary path, for every rendered field', async () => {
    const filters: Record<string, unknown>[] = [{}, { collection: fixtureCollections[0] }, { collection: fixtureCollections[1], isOrderAsk: false }, ...ORDER_STATUSES.map((s) => ({ status: [s] }))];
    let pages = 0;
    for (const [name, query] of Object.entries(SHAPES).slice(0, 2)) {
      for (const sort of ORDER_SORTS) {
        for (const filter of filters) {
          let after: string | undefined;
          for (let guard = 0; guard < 50; guard++) {
            const vars = { filter, sort, first: 13, after };
            const fast = await rawText(query, vars);
            expect(fast.rendered, `${name} ${sort} ${JSON.stringify(filter)} rendered by PostgreSQL`).toBe(true);
            expect(fast.text, `${name} ${sort} ${JSON.stringify(filter)} after ${after}`).toBe((await reference(query, vars)).text);
            pages++;
            const conn = Object.values(JSON.parse(fast.text.slice(fast.text.indexOf('{'))).data)[0] as { pageInfo: { hasNextPage: boolean; endCursor: string } };
            if (!conn.pageInfo.hasNextPage) break;
            after = conn.pageInfo.endCursor;
          }
        }
      }
    }
    expect(pages).toBeGreaterThan(2 * ORDER_SORTS.length * filters.length);
    const literal = await rawText(SHAPES.literalArgs, {});
    expect(literal.rendered).toBe(true);
    expect(literal.text).toBe((await reference(SHAPES.literalArgs, {})).text);
  });

  it('renders uint256 beyond 2^53, null tokenIds, escaped strings and the default name exactly', async () => {
    for (const vars of [{ sort: 'PRICE_DESC', first: 50 }, { filter: { isOrderAsk: false }, first: 50 }, { filter: { collection: fixtureCollections[0] }, first: 50 }, { filter: { collection: fixtureCollections[1] }, first: 3 }]) {
      const fast = await rawText(SHAPES.everything, vars);
      expect(fast.rendered).toBe(true);
      expect(fast.text).toBe((await reference(SHAPES.everything, vars)).text);
    }
    expect((await rawText(SHAPES.everything, { sort: 'PRICE_DESC', first: 50 })).text).toContain(`"tokenId":"${HUGE}"`);
    expect((await rawText(SHAPES.everything, { filter: { collection: fixtureCollections[0] }, first: 1 })).text).toContain('back\\\\slash\\nline\\ttab \\u0001 é 😀');
  });

  it('renders params, fragments, directives, several connections and backward pages exactly as the resolvers', async () => {
    const shapes: [string, Record<string, unknown>][] = [
      [`{ orders(first: 3) { edges { node { hash params priceEth } } } }`, {}],
      [`{ orders(first: 3) { edges { node { ...F } } } } fragment F on Order { hash ... on Order { price } }`, {}],
      [`query($s: Boolean!) { orders(first: 3) { edges { node { hash price @skip(if: $s) endTime @include(if: $s) } } } }`, { s: true }],
      [`query($s: Boolean!) { orders(first: 3) { edges { node { hash price @skip(if: $s) endTime @include(if: $s) } } } }`, { s: false }],
      [`{ orders(first: 3) { pageInfo { hasNextPage } } }`, {}],
      [`{ orders(first: 3) { edges { node { hash } } edges { node { price hash } } } }`, {}],
      [`{ a: orders(first: 2) { edges { cursor } } b: orders(first: 1, sort: PRICE_DESC) { totalCount edges { cursor } } __typename }`, {}],
      [`{ orders(last: 3, sort: PRICE_ASC) { edges { node { hash price } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`, {}],
      [`{ orders(last: 2, sort: EXPIRING_SOON, filter: { isOrderAsk: false }) { edges { cursor } pageInfo { hasPreviousPage startCursor endCursor } } }`, {}],
      [`{ orders(first: 2, filter: { collection: "0x${'ab'.repeat(20)}" }) { totalCount edges { cursor } pageInfo { startCursor endCursor } } }`, {}],
    ];
    for (const [query, vars] of shapes) {
      const fast = await rawText(query, vars);
      expect(fast.rendered, query).toBe(true);
      expect(fast.text, query).toBe((await withResolvers(() => rawText(query, vars))).text);
    }
    // backward pages through a whole list, each cursor from the previous page
    let before: string | undefined;
    for (let guard = 0; guard < 40; guard++) {
      const q = `query($b: String) { orders(last: 4, before: $b, sort: PRICE_DESC) { edges { cursor node { price } } pageInfo { hasPreviousPage startCursor } } }`;
      const fast = await rawText(q, { b: before });
      expect(fast.rendered).toBe(true);
      expect(fast.text).toBe((await withResolvers(() => rawText(q, { b: before }))).text);
      const info = JSON.parse(fast.text.slice(fast.text.indexOf('{'))).data.orders.pageInfo;
      if (!info.hasPreviousPage) break;
      before = info.startCursor;
    }
  });

  it('leaves errors to the resolvers, with the same answers', async () => {
    const cases: [string, Record<string, unknown>][] = [
      [`{ orders(first: 3, after: "0x${'00'.repeat(32)}") { edges { node { hash } } } }`, {}],
      [`{ orders(first: -1) { edges { node { hash } } } }`, {}],
      [`{ orders(first: 100000) { edges { node { hash } } } }`, {}],
      [`{ orders(first: 2, after: "nope") { edges { node { hash } } } }`, {}],
      [`query($f: OrderFilterInput) { orders(first: 2, filter: $f) { edges { node { hash } } } }`, { f: { collection: 'nope' } }],
      [`{ a: orders(first: 2) { edges { cursor } } b: orders(first: -2) { edges { cursor } } }`, {}],
      // over MAX_QUERY_COMPLEXITY (5000) at 150 orders, under it at 13 (asked above): QUERY_TOO_COMPLEX as before
      [SHAPES.everything, { first: 150 }],
    ];
    const named = await app.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: SHAPES.everything, variables: { first: 2 }, operationName: 'Other' }),
    });
    expect(await named.text()).toMatch(/^\{"errors":/);
    for (const [query, vars] of cases) {
      const fast = await rawText(query, vars);
      if (vars.first === 150) expect(fast.text).toContain('QUERY_TOO_COMPLEX');
      expect(fast.text, query).toMatch(/"errors":/);
      expect(fast.text, query).toBe((await reference(query, vars)).text);
    }
  });
});
