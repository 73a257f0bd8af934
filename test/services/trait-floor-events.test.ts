// Trait floor moves as events (TRAIT_FLOOR_CHANGE): after every pass, the last event of each
// trait value states the floor the trait panel reads from the live book at that moment, whatever
// moved it: a cancel, a listing that ends or starts by time alone, a token losing or gaining the
// trait, a reorg's retraction. A pass writes nothing when nothing moved, and two passes at once
// (two instances) write each move once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { tokenMetadataFixture } from '../fixtures/token-metadata.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const C0 = fixtureCollections[0]!;
let app: TestApp;

/** value -> floor, as the panel reads it now */
async function panelFloors(): Promise<Map<string, string | null>> {
  const res = await app.gql<{ collection: { attributes: { traitType: string; values: { value: string; floorPrice: string | null }[] }[] } }>(
    `query($c: Address!) { collection(address: $c) { attributes { traitType values { value floorPrice } } } }`,
    { c: C0 },
  );
  expect(res.errors).toBeUndefined();
  return new Map(res.data!.collection.attributes.flatMap((t) => t.values.map((v) => [`${t.traitType}=${v.value}`, v.floorPrice] as const)));
}

/** value -> the price its last TRAIT_FLOOR_CHANGE event states, read through GraphQL's activity */
async function announcedFloors(): Promise<{ last: Map<string, string | null>; count: number }> {
  const res = await app.gql<{ activity: { edges: { node: { traitType: string; traitValue: string; price: string | null } }[] } }>(
    `query($c: Address!) { activity(filter: { collection: $c, types: [TRAIT_FLOOR_CHANGE] }, first: 150) { edges { node { traitType traitValue price } } } }`,
    { c: C0 },
  );
  expect(res.errors).toBeUndefined();
  const last = new Map<string, string | null>();
  // newest first: the first event of a value is its last
  for (const { node } of res.data!.activity.edges) if (!last.has(`${node.traitType}=${node.traitValue}`)) last.set(`${node.traitType}=${node.traitValue}`, node.price);
  return { last, count: res.data!.activity.edges.length };
}

/** Every value the panel lists with a floor was announced at that floor; every announced value matches the panel. */
async function expectAnnouncedEqualsPanel(step: string) {
  await app.services.traitFloors.runOnce();
  const [panel, { last }] = await Promise.all([panelFloors(), announcedFloors()]);
  for (const [value, floor] of panel) if (floor !== null) expect(last.get(value), `${step}: ${value}`).toBe(floor);
  for (const [value, price] of last) expect(panel.get(value) ?? null, `${step}: ${value} announced`).toBe(price);
}

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 90);
  const writes = tokenMetadataFixture(fixtureCollections, ((1n << 200n) + 7n).toString());
  const queue = createMetadataQueue(app.services.deps);
  await queue.store(writes.slice(0, -1), null);
  await queue.store(writes.slice(-1), null);
});
afterAll(() => app?.close());

/** The live fixed-price ask holding the floor of Background=`value` now. */
async function floorAsk(value = 'Blue', traitType = 'Background') {
  const [row] = await app.db.sql.query<{ id: string; token_id: string; end_time: string; price: string }>(
    `SELECT o.id::text, o.token_id::text, o.end_time::text, o.price::text FROM orders o JOIN token_attributes a ON a.collection_address = o.collection_address AND a.token_id = o.token_id
     WHERE o.collection_address = $1 AND a.trait_type = $4 AND a.value = $5 AND o.is_order_ask AND o.status = 'VALID'
       AND o.start_time <= $2 AND o.end_time >= $2 AND o.strategy = ANY($3::text[]) ORDER BY o.price, o.id LIMIT 1`,
    [C0, Math.floor(app.clock.now.getTime() / 1000), app.config.network.strategies.standardSale, traitType, value],
  );
  return row;
}

describe(`trait floor events (${backendName})`, () => {
  it('announces every floor once, then nothing while nothing moves', async () => {
    const first = await app.services.traitFloors.runOnce();
    expect(first.moves).toBeGreaterThan(0);
    await expectAnnouncedEqualsPanel('first pass');
    const again = await app.services.traitFloors.runOnce();
    expect(again.moves).toBe(0);
  });

  it('follows a cancel of the floor ask (the log names its token)', async () => {
    const ask = (await floorAsk())!;
    const before = (await panelFloors()).get('Background=Blue');
    await app.db.sql.query(`UPDATE orders SET status = 'CANCELLED' WHERE id = $1::bigint`, [ask.id]);
    await app.db.sql.query(`INSERT INTO market_events (type, collection_address, token_id) VALUES ('CANCEL_LIST', $1, $2::numeric)`, [C0, ask.token_id]);
    await expectAnnouncedEqualsPanel('cancel');
    expect((await panelFloors()).get('Background=Blue')).not.toBe(before);
  });

  it('follows a listing that ends by time alone (no event at all)', async () => {
    // the floor ask made the only one at its price, announced; then it ends
    const ask = (await floorAsk())!;
    await app.db.sql.query(`UPDATE orders SET price = 1 WHERE id = $1::bigint`, [ask.id]);
    await app.db.sql.query(`INSERT INTO market_events (type, collection_address, token_id, price) VALUES ('LIST', $1, $2::numeric, 1)`, [C0, ask.token_id]);
    await expectAnnouncedEqualsPanel('repriced');
    expect((await announcedFloors()).last.get('Background=Blue')).toBe('1');
    const { count } = await announcedFloors();
    await app.db.sql.query(`UPDATE orders SET end_time = $2::bigint WHERE id = $1::bigint`, [ask.id, NOW + 10]);
    app.clock.now = new Date((NOW + 11) * 1000);
    await expectAnnouncedEqualsPanel('expiry');
    expect((await announcedFloors()).count).toBeGreaterThan(count);
  });

  it('follows a token losing the trait whose floor it held (its METADATA_UPDATE)', async () => {
    const ask = (await floorAsk())!;
    const queue = createMetadataQueue(app.services.deps);
    await queue.store(
      [
        {
          collectionAddress: C0,
          tokenId: ask.token_id,
          status: 'OK',
          errorCode: null,
          errorMessage: null,
          tokenUri: 'https://example.test/changed',
          document: {
            text: '{"name":"changed"}',
            sha256: 'f'.repeat(64),
            name: 'changed',
            description: null,
            image: null,
            animationUrl: null,
            externalUrl: null,
            attributes: [{ traitType: 'Background', value: 'Purple', displayType: null, kind: 'STRING', numberValue: null }],
          },
          nextFetchAt: null,
          retryAt: null,
        },
      ],
      null,
    );
    await expectAnnouncedEqualsPanel('trait lost');
    const { last } = await announcedFloors();
    expect(last.get('Background=Purple')).toBe(ask.price);
  });

  it('two passes at once write each move once', async () => {
    // any live ask of a token with traits, made the floor of each of its values
    const [ask] = await app.db.sql.query<{ id: string; token_id: string }>(
      `SELECT o.id::text, o.token_id::text FROM orders o WHERE o.collection_address = $1 AND o.is_order_ask AND o.status = 'VALID' AND o.start_time <= $2 AND o.end_time >= $2
         AND o.strategy = ANY($3::text[]) AND EXISTS (SELECT 1 FROM token_attributes a WHERE a.collection_address = o.collection_address AND a.token_id = o.token_id) LIMIT 1`,
      [C0, NOW + 11, app.config.network.strategies.standardSale],
    );
    expect(ask).toBeDefined();
    await app.db.sql.query(`UPDATE orders SET price = 2 WHERE id = $1::bigint`, [ask!.id]);
    await app.db.sql.query(`INSERT INTO market_events (type, collection_address, token_id, price) VALUES ('LIST', $1, $2::numeric, 2)`, [C0, ask!.token_id]);
    const { count } = await announcedFloors();
    await Promise.all([app.services.traitFloors.runOnce(), app.services.traitFloors.runOnce(), app.services.traitFloors.runOnce()]);
    const { count: after, last } = await announcedFloors();
    // each of the token's values moved to 2, once
    const values = await app.db.sql.query<{ k: string }>(`SELECT trait_type || '=' || value AS k FROM token_attributes WHERE collection_address = $1 AND token_id = $2::numeric`, [C0, ask!.token_id]);
    for (const { k } of values) expect(last.get(k), k).toBe('2');
    expect(after - count).toBe(values.length);
    await expectAnnouncedEqualsPanel('concurrent');
  });
});
