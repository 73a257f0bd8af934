// The read engine against the resolvers it stands in for: every field of a read type is declared
// (rendered in SQL, or resolver-only with a reason), and random selections over the whole read
// schema (fast-check) get the same bytes from both, on this backend: uint256 beyond 2^53, a
// UnixTime beyond 2^53 (which the engine must leave to the resolvers), strings that need escaping,
// nulls, aliases, fragments, directives, nested connections in both directions, pages forward and
// backward (first/after, last/before), empty pages, unknown keys. A selection without resolver-only fields is one statement.
import fc from 'fast-check';
import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_SORTS } from '../../src/domain/order-query.js';
import { ORDER_STATUSES } from '../../src/domain/order-status.js';
import { READ_TYPES } from '../../src/read-engine/read-types.js';
import { schema } from '../../src/schema/index.js';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';
import { tokenMetadataFixture } from '../fixtures/token-metadata.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { createTokenRarity } from '../../src/services/token-rarity.js';
import { liftObjects, liftScalars, withPath } from '../helpers/lift-scalars.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
let app: TestApp;
let hashes: string[];
let saleIds: string[];

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 90);
  const sql = app.db.sql;
  await sql.query(`UPDATE collections SET name = $1, symbol = NULL, logo_uri = $2, setter = owner WHERE address = $3`, [
    'Quote " back\\slash\nline\ttab \u0001 \u0003 é 😀 \u2028 </script>',
    'https://example.test/logo.png?a=1&b="2"',
    fixtureCollections[0],
  ]);
  await sql.query(`UPDATE collections SET name = NULL WHERE address = $1`, [fixtureCollections[1]]);
  const ids = (await sql.query<{ id: string }>('SELECT id::text AS id FROM orders ORDER BY id')).map((r) => r.id);
  const huge = ((1n << 200n) + 7n).toString();
  await sql.query(`UPDATE orders SET token_id = $1::numeric, amount = $1::numeric, price = $1::numeric, nonce = $1::numeric WHERE id = $2::bigint`, [huge, ids[3]]);
  await sql.query(`UPDATE orders SET end_time = $1::bigint WHERE id = $2::bigint`, [(2n ** 60n).toString(), ids[7]]);
  hashes = (await sql.query<{ hash: string }>('SELECT hash FROM orders ORDER BY id')).map((r) => r.hash);
  // sales with timestamp ties (the cursor breaks them on the id), one beyond 2^53 in price, some without an order
  await sql.query(
    `INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash, strategy, is_taker_ask, block_number, tx_hash, log_index, timestamp)
     SELECT (ARRAY[$1, $2])[1 + g % 2], g % 7, 1 + g % 3, CASE WHEN g = 5 THEN $4::numeric ELSE g::numeric * 250000000000000000 END, $3, $3, $1,
            CASE WHEN g % 4 = 0 THEN NULL ELSE lpad(to_hex(g), 66, '0') END, NULL, g % 2 = 0, 1000 + g, '0x' || lpad(to_hex(g), 64, '0'), g % 3,
            to_timestamp(${NOW} - (g / 3) * 3600 + 0.25)
       FROM generate_series(1, 40) g`,
    [fixtureCollections[0], fixtureCollections[1], fixtureCollections[0]!.toLowerCase(), huge],
  );
  // their hourly and daily buckets, as recording a sale writes them (statistics read both)
  await app.services.sales.rebuildSaleBuckets();
  saleIds = (await sql.query<{ id: string }>('SELECT id::text AS id FROM sales ORDER BY id')).map((r) => r.id);
  // holders: tokens 1..6 of both collections (several per token of the second), and the huge token id
  await sql.query(
    `INSERT INTO token_balances (collection_address, token_id, owner, balance)
     SELECT (ARRAY[$1, $2])[1 + g % 2], 1 + (g / 2) % 6, $3 || lpad(to_hex(g % 5), 2, '0'), 1 + g % 4 FROM generate_series(0, 29) g
     UNION ALL SELECT $1, $4::numeric, $3 || 'ff', 1 ON CONFLICT DO NOTHING`,
    [fixtureCollections[0], fixtureCollections[1], '0x' + 'ab'.repeat(19), huge],
  );
  // token metadata, traits and ranks (the later ERROR write of token 6 keeps its document)
  const queue = createMetadataQueue(app.services.deps);
  const writes = tokenMetadataFixture(fixtureCollections, huge);
  await queue.store(writes.slice(0, -1), null);
  await queue.store(writes.slice(-1), null);
  await createTokenRarity(app.services.deps).rankNow(fixtureCollections[0]!);
});
afterAll(() => app?.close());

const answer = (query: string, variables: Record<string, unknown>, readEngine: boolean) => answerVia(app, query, variables, readEngine);

describe(`read types declared once (${backendName})`, () => {
  it('declares every field of every read type: SQL, or resolver-only with a reason', () => {
    for (const [name, read] of Object.entries(READ_TYPES)) {
      const type = schema.getType(name) as GraphQLObjectType;
      expect(Object.keys(read.fields).sort(), name).toEqual(Object.keys(type.getFields()).sort());
      for (const [field, decl] of Object.entries(read.fields)) {
        if (decl.kind === 'resolver') expect(decl.reason.length, `${name}.${field}`).toBeGreaterThan(20);
        if (decl.kind === 'object') expect(isObjectType(getNamedType(type.getFields()[field]!.type)), `${name}.${field}`).toBe(true);
      }
    }
  });

  it('primes Collection refetches with the address only, which every resolver-only Collection field reads', () => {
    for (const decl of Object.values(READ_TYPES.Collection.fields)) {
      if (decl.kind === 'resolver') expect(decl.columns).toEqual(['address']);
    }
  });
});

// ---- random selections ------------------------------------------------------------------------

const ORDER_LEAVES = Object.entries(READ_TYPES.Order.fields).filter(([, d]) => d.kind === 'leaf').map(([n]) => n);
const COLLECTION_LEAVES = Object.entries(READ_TYPES.Collection.fields).filter(([, d]) => d.kind === 'leaf').map(([n]) => n);

let aliasN = 0;
const field = (name: string, aliased: boolean) => (aliased ? `f${++aliasN}: ${name}` : name);

/** A non-empty set of leaves, some aliased, sometimes through an inline fragment (on the type or its interface) or a skipped duplicate. */
const leaves = (names: string[], type: string) =>
  fc.tuple(fc.subarray(names, { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), fc.constantFrom('plain', 'fragment', 'directive', 'typename', 'interface')).map(([picked, aliases, how]) => {
    const list = picked.map((n, i) => field(n, aliases[i]!)).join(' ');
    if (how === 'fragment') return `... on ${type} { ${list} }`;
    if (how === 'interface') return `${list} ... on Node { ${field('id', aliases[5]!)} }`;
    if (how === 'directive') return `${list} ${picked[0]} @include(if: $yes) f${++aliasN}: ${picked[0]} @skip(if: $yes)`;
    if (how === 'typename') return `__typename ${list}`;
    return list;
  });

const connectionArgs = (pinned: boolean) =>
  fc
    .record({
      n: fc.integer({ min: 1, max: 12 }),
      back: fc.boolean(),
      sort: fc.constantFrom(...ORDER_SORTS),
      ask: fc.option(fc.boolean(), { nil: undefined }),
      status: fc.option(fc.subarray([...ORDER_STATUSES], { minLength: 1, maxLength: 3 }), { nil: undefined }),
      collection: fc.option(fc.constantFrom(...fixtureCollections), { nil: undefined }),
      priceMin: fc.option(fc.constantFrom('0', '1000000000000000000'), { nil: undefined }),
      // trait conditions over the metadata fixture (OR within a type, AND across; none: no token matches)
      traits: fc.option(
        fc.constantFrom(
          '{ traitType: "Background", values: ["Gold", "Blue"] }',
          '{ traitType: "Background", values: ["Blue"] }, { traitType: "Eyes", values: ["Laser"] }',
          '{ traitType: "Eyes", values: ["Calm", "none"] }',
          '{ traitType: "Background", values: ["Red \\"quoted\\""] }',
          '{ traitType: "Nothing", values: ["x"] }',
        ),
        { nil: undefined },
      ),
    })
    .map((a) => {
      const filter = [
        a.traits === undefined ? '' : `attributes: [${a.traits}]`,
        a.ask === undefined ? '' : `isOrderAsk: ${a.ask}`,
        a.status ? `status: [${a.status.join(', ')}]` : '',
        a.collection && !pinned ? `collection: "${a.collection}"` : '',
        a.priceMin ? `price: { min: "${a.priceMin}" }` : '',
      ].filter(Boolean);
      return `${a.back ? 'last' : 'first'}: ${a.n}, sort: ${a.sort}${filter.length ? `, filter: { ${filter.join(', ')} }` : ''}`;
    });

const pageInfo = fc.subarray(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor', '__typename'], { minLength: 1 }).map((f) => `pageInfo { ${f.join(' ')} }`);

// `d`: how many more object levels may nest (the schema's depth limit is 10)
const orderSel = (d: number): fc.Arbitrary<string> =>
  fc
    .tuple(leaves(ORDER_LEAVES, 'Order'), d > 0 ? fc.option(collectionSel(d - 1), { nil: undefined }) : fc.constant(undefined))
    .map(([l, c]) => `${l}${c ? ` collection { ${c} }` : ''}`);

const collectionSel = (d: number): fc.Arbitrary<string> =>
  fc
    .tuple(
      leaves(COLLECTION_LEAVES, 'Collection'),
      d > 0 ? fc.option(fc.tuple(connectionArgs(true), connection(d - 1)), { nil: undefined }) : fc.constant(undefined),
      d > 0 ? fc.option(orderSel(d - 1), { nil: undefined }) : fc.constant(undefined),
      fc.boolean(),
    )
    .map(([l, orders, topBid, stats]) =>
      [l, orders ? `orders(${orders[0]}) { ${orders[1]} }` : '', topBid ? `topBid { ${topBid} }` : '', stats ? 'stats { floorPrice countAll }' : ''].filter(Boolean).join(' '),
    );

const connection = (d: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.boolean(), fc.option(orderSel(d), { nil: undefined }), fc.option(pageInfo, { nil: undefined }), fc.boolean())
    .map(([count, node, info, cursor]) => {
      const parts = [count ? 'totalCount' : '', node || cursor ? `edges { ${cursor ? 'cursor ' : ''}${node ? `node { ${node} }` : ''} }` : '', info ?? ''].filter(Boolean);
      return parts.length ? parts.join(' ') : '__typename';
    });

const rootField = fc.oneof(
  fc.tuple(connectionArgs(false), connection(2)).map(([args, sel]) => `orders(${args}) { ${sel} }`),
  fc.tuple(fc.constantFrom(...fixtureCollections, '0x000000000000000000000000000000000000dEaD'), collectionSel(2)).map(([a, sel]) => `collection(address: "${a}") { ${sel} }`),
  fc.tuple(fc.nat(120), orderSel(2)).map(([i, sel]) => `order(hash: "${hashes[i] ?? `0x${'0'.repeat(64)}`}") { ${sel} }`),
);

const SALE_LEAVES = Object.entries(READ_TYPES.Sale.fields).filter(([, d]) => d.kind === 'leaf').map(([n]) => n);
const saleRoot = fc
  .record({
    collection: fc.option(fc.constantFrom(...fixtureCollections), { nil: undefined }),
    from: fc.option(fc.integer({ min: NOW - 20 * 3600, max: NOW }), { nil: undefined }),
    first: fc.integer({ min: 1, max: 12 }),
    back: fc.boolean(),
    after: fc.option(fc.nat(45), { nil: undefined }),
    before: fc.option(fc.nat(45), { nil: undefined }),
    leaves: leaves(SALE_LEAVES, 'Sale'),
    collectionSel: fc.option(collectionSel(0), { nil: undefined }),
    info: fc.option(pageInfo, { nil: undefined }),
    count: fc.boolean(),
  })
  .map((a) => {
    const args = [
      `${a.back ? 'last' : 'first'}: ${a.first}`,
      a.collection ? `collection: "${a.collection}"` : '',
      a.from ? `from: ${a.from}` : '',
      a.after !== undefined ? `after: "${saleIds[a.after] ?? '999999'}"` : '',
      a.before !== undefined ? `before: "${saleIds[a.before] ?? '999999'}"` : '',
    ].filter(Boolean);
    return `sales(${args.join(', ')}) { ${a.count ? 'totalCount ' : ''}edges { cursor node { ${a.leaves}${a.collectionSel ? ` collection { ${a.collectionSel} }` : ''} } } ${a.info ?? ''} }`;
  });
const collectionsRoot = fc
  .record({
    first: fc.integer({ min: 1, max: 4 }),
    back: fc.boolean(),
    orderBy: fc.constantFrom('NAME', 'VOLUME_24H', 'VOLUME_7D', 'FLOOR', 'CHANGE_24H'),
    verified: fc.option(fc.boolean(), { nil: undefined }),
    after: fc.option(fc.constantFrom(...fixtureCollections, '0x000000000000000000000000000000000000dEaD'), { nil: undefined }),
    before: fc.option(fc.constantFrom(...fixtureCollections, '0x000000000000000000000000000000000000dEaD'), { nil: undefined }),
    node: collectionSel(1),
    info: fc.option(pageInfo, { nil: undefined }),
    count: fc.boolean(),
  })
  .map((a) => {
    const args = [
      `${a.back ? 'last' : 'first'}: ${a.first}`,
      `orderBy: ${a.orderBy}`,
      a.verified === undefined ? '' : `filter: { isVerified: ${a.verified} }`,
      a.after ? `after: "${a.after}"` : '',
      a.before ? `before: "${a.before}"` : '',
    ].filter(Boolean);
    return `collections(${args.join(', ')}) { ${a.count ? 'totalCount ' : ''}edges { cursor node { ${a.node} } } ${a.info ?? ''} }`;
  });

// a token's document fields are scalars read over its shared metadata row
const TOKEN_LEAVES = Object.entries(READ_TYPES.Token.fields)
  .filter(([n, d]) => d.kind === 'leaf' || (d.kind === 'row' && !['attributes', 'metadata', 'rarity'].includes(n)))
  .map(([n]) => n);
const TOKEN_METADATA_OBJECTS = ['attributes { traitType value kind tokenCount }', 'metadata { status tokenURI error { code } }', 'rarity { rank score maxRank }'];
const depthSel = fc
  .record({
    side: fc.constantFrom('ASK', 'BID'),
    first: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    fields: fc.subarray(['side', 'levelCount', 'orderCount', 'totalAmount', 'minPrice', 'maxPrice', '__typename'], { minLength: 1 }),
    levels: fc.option(fc.subarray(['price', 'priceEth', 'orderCount', 'amount', 'cumulativeAmount', '__typename'], { minLength: 1 }), { nil: undefined }),
  })
  .map((a) => `${field('depth', true)}(side: ${a.side}${a.first ? `, first: ${a.first}` : ''}) { ${a.fields.join(' ')}${a.levels ? ` levels { ${a.levels.join(' ')} }` : ''} }`);
const tokenSel = (d: number): fc.Arbitrary<string> =>
  fc
    .record({
      leaves: leaves(TOKEN_LEAVES, 'Token'),
      owners: fc.option(fc.subarray(['owner', 'balance', '__typename'], { minLength: 1 }), { nil: undefined }),
      ask: d > 0 ? fc.option(orderSel(d - 1), { nil: undefined }) : fc.constant(undefined),
      bid: d > 0 ? fc.option(orderSel(d - 1), { nil: undefined }) : fc.constant(undefined),
      sale: fc.option(leaves(SALE_LEAVES, 'Sale'), { nil: undefined }),
      collection: d > 0 ? fc.option(collectionSel(0), { nil: undefined }) : fc.constant(undefined),
      depth: fc.option(depthSel, { nil: undefined }),
      meta: fc.subarray(TOKEN_METADATA_OBJECTS),
    })
    .map((a) =>
      [
        a.leaves,
        ...a.meta,
        a.owners ? `owners { ${a.owners.join(' ')} }` : '',
        a.ask ? `bestAsk { ${a.ask} }` : '',
        a.bid ? `bestBid { ${a.bid} }` : '',
        a.sale ? `lastSale { ${a.sale} }` : '',
        a.collection ? `collection { ${a.collection} }` : '',
        a.depth ?? '',
      ]
        .filter(Boolean)
        .join(' '),
    );
const tokenRoot = fc
  .tuple(fc.constantFrom(...fixtureCollections, '0x000000000000000000000000000000000000dEaD'), fc.constantFrom('1', '3', '5', '6', '7', ((1n << 200n) + 7n).toString()), tokenSel(1))
  .map(([c, id, sel]) => `token(collection: "${c}", tokenId: "${id}") { ${sel} }`);
const tokensRoot = fc
  .record({
    collection: fc.constantFrom(...fixtureCollections),
    first: fc.integer({ min: 1, max: 4 }),
    back: fc.boolean(),
    sort: fc.option(fc.constantFrom('PRICE_ASC', 'PRICE_DESC', 'TOKEN_ID'), { nil: undefined }),
    listed: fc.option(fc.boolean(), { nil: undefined }),
    after: fc.option(fc.constantFrom('-:2', '100000000000000000:1', '200000000000000000:3', '0:0', 'bad'), { nil: undefined }),
    before: fc.option(fc.constantFrom('-:5', '-:1', '100000000000000000:4', '300000000000000000:2', 'bad'), { nil: undefined }),
    node: tokenSel(1),
    info: fc.option(pageInfo, { nil: undefined }),
    count: fc.boolean(),
  })
  .map((a) => {
    const args = [
      `collection: "${a.collection}"`,
      `${a.back ? 'last' : 'first'}: ${a.first}`,
      a.sort ? `sort: ${a.sort}` : '',
      a.listed === undefined ? '' : `filter: { listed: ${a.listed} }`,
      a.after ? `after: "${a.after}"` : '',
      a.before ? `before: "${a.before}"` : '',
    ].filter(Boolean);
    return `tokens(${args.join(', ')}) { ${a.count ? 'totalCount ' : ''}edges { cursor node { ${a.node} } } ${a.info ?? ''} }`;
  });
const depthRoot = fc.tuple(fc.constantFrom(...fixtureCollections), depthSel).map(([c, sel]) => `collection(address: "${c}") { address ${sel} }`);

const INDEXER_STATUS_FIELDS = Object.keys(READ_TYPES.IndexerStatus.fields);
const indexerStatusRoot = fc
  .tuple(fc.subarray(INDEXER_STATUS_FIELDS, { minLength: 1 }), fc.boolean(), fc.boolean())
  .map(([picked, aliased, typename]) => `indexerStatus { ${typename ? '__typename ' : ''}${picked.map((n) => field(n, aliased)).join(' ')} }`);

// the fixtures' collections: one named with characters to escape, one without a name (beforeAll)
const searchRoot = fc
  .tuple(
    fc.constantFrom('quote', 'Quote " back\\slash', 'qoute bakc', ...fixtureCollections.map((a) => a.toLowerCase()), 'nothing like it', ''),
    fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    collectionSel(1),
  )
  .map(([q, first, sel]) => `searchCollections(query: ${JSON.stringify(q)}${first ? `, first: ${first}` : ''}) { ${sel} }`);

const documentArb = fc.array(fc.oneof(rootField, saleRoot, collectionsRoot, tokenRoot, tokensRoot, depthRoot, indexerStatusRoot, searchRoot), { minLength: 1, maxLength: 3 }).map((roots) => {
  const body = `{ ${roots.map((r, i) => `r${i}: ${r}`).join(' ')} }`;
  return body.includes('$yes') ? `query($yes: Boolean!) ${body}` : body;
});

describe(`random selections: the engine answers what the resolvers answer (${backendName})`, () => {
  it('byte for byte, in one statement where nothing is resolver-only', async () => {
    let rendered = 0;
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(documentArb, fc.boolean(), async (query, yes) => {
        const engine = await answer(query, { yes }, true);
        const resolvers = await answer(query, { yes }, false);
        if (engine.text.includes('"errors"') && resolvers.text.includes('"errors"')) {
          // two failing non-null roots: graphql-js reports whichever fails first, on either path
          const parse = (t: string) => ({ status: t.slice(0, 3), body: JSON.parse(t.slice(4)) });
          const [e, r] = [parse(engine.text), parse(resolvers.text)];
          expect(e.status, query).toBe(r.status);
          expect(e.body.data, query).toEqual(r.body.data);
          if (r.body.data !== null) expect(engine.text, query).toBe(resolvers.text);
        } else expect(engine.text, query).toBe(resolvers.text);
        checked++;
        const byEngine = engine.statements.some((s) => s.includes(`'{"`));
        if (byEngine) rendered++;
        // no error, no island, no ranking (its reads come first), no value it cannot render (the
        // endTime beyond 2^53): one statement, the engine's. (graphql-js answers as soon as a
        // non-null root field fails while its siblings still read, so a previous request's
        // resolver statements may land in this log: they are not the engine's.)
        if (!engine.text.includes('"errors"') && !query.includes('stats {') && !query.includes('collections(') && !engine.text.includes(`:${Number(2n ** 60n)}`) && byEngine) {
          const own = engine.statements.filter((st) => st.includes(`'{"`));
          expect(own, `${query}\n${engine.statements.map((st) => st.slice(0, 160)).join('\n')}`).toHaveLength(1);
        }
      }),
      { numRuns: Number(process.env.READ_ENGINE_RUNS ?? 120), seed: process.env.READ_ENGINE_SEED ? Number(process.env.READ_ENGINE_SEED) : undefined },
    );
    // most random documents are answered by the engine (the rest: complexity limits, errors)
    expect(rendered / checked).toBeGreaterThan(0.5);
  }, 300_000);
});


// A shape's first request plans its statement once and checks it is a template
// (src/read-engine/statement-template.ts); later requests bind their values and clock into it.
// The random documents with their addresses, hashes and token ids as variables, answered again
// with other values and at another clock: each answer is the resolvers' at that clock.
describe(`random selections through templates: other values, other clocks (${backendName})`, () => {
  it('answers every binding as the resolvers do, and no shape refuses its template', async () => {
    const refused: string[] = [];
    const stop = app.services.readTemplates.onOutcome((outcome, reason) => outcome === 'refused' && refused.push(reason ?? ''));
    const pools: Record<string, string[]> = {
      Address: [...fixtureCollections, '0x000000000000000000000000000000000000dEaD'],
      Hash: hashes.slice(0, 40),
      Uint256: ['1', '3', '5', '6', '7', ((1n << 200n) + 7n).toString()],
    };
    let bound = 0;
    let inObjects = 0;
    try {
      await fc.assert(
        fc.asyncProperty(documentArb, fc.boolean(), fc.boolean(), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), fc.integer({ min: 1, max: 40 * 3600 }), async (query, yes, asObjects, picks, later) => {
          const scalars = liftScalars(query, schema, ['Address', 'Hash', 'Uint256'], { yes });
          // half of them send each filter object as one variable (the scalars inside it bound too)
          const lifted = asObjects ? liftObjects(scalars, schema) : scalars;
          if (Object.keys(lifted.kinds).some((path) => path.includes('.'))) inObjects++;
          let others = { ...lifted.variables };
          Object.entries(lifted.kinds).forEach(([path, kind], i) => {
            const pool = pools[kind]!;
            others = withPath(others, path, pool[picks[i % picks.length]! % pool.length]);
          });
          const same = async (variables: Record<string, unknown>, at: Date, why: string) => {
            app.clock.now = at;
            const engine = await answer(lifted.query, variables, true);
            const resolvers = await answer(lifted.query, variables, false);
            if (engine.text.includes('"errors"') && resolvers.text.includes('"errors"')) expect(JSON.parse(engine.text.slice(4)).data, `${why}\n${lifted.query}\n${JSON.stringify(variables)}`).toEqual(JSON.parse(resolvers.text.slice(4)).data);
            else expect(engine.text, `${why}\n${lifted.query}\n${JSON.stringify(variables)}\n${resolvers.text}`).toBe(resolvers.text);
            return engine.statements.some((st) => st.includes(`'{"`));
          };
          try {
            await same(lifted.variables, FIXED_NOW, 'as written');
            if (await same(others, FIXED_NOW, 'other values')) bound++;
            await same(lifted.variables, new Date(FIXED_NOW.getTime() + later * 1000 + 250), 'another clock');
          } finally {
            app.clock.now = FIXED_NOW;
          }
        }),
        { numRuns: Number(process.env.READ_ENGINE_RUNS ?? 120) / 2, seed: process.env.READ_ENGINE_SEED ? Number(process.env.READ_ENGINE_SEED) : undefined },
      );
    } finally {
      stop();
    }
    expect(refused).toEqual([]);
    expect(bound).toBeGreaterThan(10);
    expect(inObjects).toBeGreaterThan(3);
  }, 300_000);
});

// A filter sent as one variable, as Apollo and Relay clients send it: the Address, Hash and
// Uint256 fields inside it are bound into one template too (src/read-engine/free-inputs.ts), not
// made a shape of their own per collection, signer or price.
describe(`a filter sent as one variable (${backendName})`, () => {
  it('makes one template for every collection and price range, each answer the resolvers\'', async () => {
    const outcomes: string[] = [];
    const stop = app.services.readTemplates.onOutcome((outcome, reason) => outcomes.push(reason ? `${outcome}: ${reason}` : outcome));
    const query = 'query($filter: OrderFilterInput) { orders(filter: $filter, first: 4, sort: PRICE_ASC) { totalCount edges { node { hash collectionAddress signer price status } } } }';
    const huge = ((1n << 200n) + 7n).toString();
    const filters = [
      ...fixtureCollections.map((collection) => ({ collection, isOrderAsk: true, price: { min: '1', max: huge } })),
      { collection: fixtureCollections[0], isOrderAsk: false, price: { min: '2', max: '900000000000000000000' } },
      { collection: '0x000000000000000000000000000000000000dEaD', isOrderAsk: true, price: { min: '0', max: '5' } },
    ];
    let bound = 0;
    try {
      for (const filter of filters) {
        const engine = await answer(query, { filter }, true);
        expect(engine.text, JSON.stringify(filter)).toBe((await answer(query, { filter }, false)).text);
        if (engine.statements.some((st) => st.includes(`'{"`))) bound++;
      }
    } finally {
      stop();
    }
    // the asks' shape (the values differ, the set fields do not) is checked at its second request
    // and its template serves the rest; the bids' shape (isOrderAsk, a Boolean, shapes the text)
    // came once: planned, not checked
    expect(outcomes).toEqual(['made']);
    expect(bound).toBe(filters.length);
  });

  it('plans a shape that does not come back once, without the check: a page cursor per request', async () => {
    const outcomes: string[] = [];
    const stop = app.services.readTemplates.onOutcome((outcome) => outcomes.push(outcome));
    const query = 'query($after: String) { orders(first: 2, after: $after) { edges { cursor node { hash price } } } }';
    let after: string | null = null;
    try {
      for (let page = 0; page < 4; page++) {
        const engine = await answer(query, { after }, true);
        expect(engine.text).toBe((await answer(query, { after }, false)).text);
        after = JSON.parse(engine.text.slice(4)).data.orders.edges.at(-1).cursor;
      }
      expect(outcomes).toEqual([]);
      // the first page again: its shape's second request, checked now
      await answer(query, { after: null }, true);
      expect(outcomes).toEqual(['made']);
    } finally {
      stop();
    }
  });
});

// PostgreSQL types a parameter from its first use. A key read as text would compare a `char` hash
// as text, past its index (a sequential scan of every order for one order by hash).
describe(`key parameters typed as their columns (${backendName})`, () => {
  it('order by hash and collection by address', async () => {
    const cases: [string, Record<string, unknown>, RegExp, string][] = [
      ['query($h: Hash!) { order(hash: $h) { hash status collection { name } } }', { h: hashes[0] }, /WHERE \w+\.hash = \$(\d+)/, 'character'],
      [
        'query($a: Address!) { collection(address: $a) { address stats { floorPrice } orders(first: 3) { edges { node { hash } } } } }',
        { a: fixtureCollections[0] },
        /WHERE \w+\.address = \$(\d+)/,
        'character varying',
      ],
    ];
    for (const [query, variables, key, type] of cases) {
      const own = (await answer(query, variables, true)).statements.filter((st) => st.includes(`'{"`));
      expect(own, query).toHaveLength(1);
      const n = Number(key.exec(own[0]!)?.[1]);
      const types = await app.db.sql.withSession(async (session) => {
        await session.exec(`PREPARE key_probe AS ${own[0]}`);
        try {
          return (await session.query<{ types: string[] }>(`SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'key_probe'`))[0]!.types;
        } finally {
          await session.exec('DEALLOCATE key_probe');
        }
      });
      expect(types[n - 1], query).toBe(type);
    }
  });
});
