// Token pages filtered by traits and ranked by rarity, and the trait panel, against oracles
// computed here from the fixture's documents and the live book: the read engine and the resolvers
// give the same bytes, and both give what the oracle says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { createTokenRarity } from '../../src/services/token-rarity.js';
import { fixtureCollections, insertOrderBook } from '../fixtures/order-book.js';
import { tokenMetadataFixture } from '../fixtures/token-metadata.js';
import { answerVia } from '../helpers/engine-answer.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const HUGE = ((1n << 200n) + 7n).toString();
let app: TestApp;
const c0 = fixtureCollections[0]!;

beforeAll(async () => {
  app = await startTestApp();
  await insertOrderBook(app.db, app.config.network, NOW, 90);
  await app.db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) SELECT $1, g, $2, 1 FROM generate_series(0, 8) g ON CONFLICT DO NOTHING`, [c0, '0x' + 'ab'.repeat(20)]);
  const queue = createMetadataQueue(app.services.deps);
  const writes = tokenMetadataFixture(fixtureCollections, HUGE);
  await queue.store(writes, null);
  await createTokenRarity(app.services.deps).rankNow(c0);
});
afterAll(() => app?.close());

/** Both paths; the same bytes; the parsed answer. */
async function both(query: string, variables: Record<string, unknown>) {
  const engine = await answerVia(app, query, variables, true);
  const resolvers = await answerVia(app, query, variables, false);
  expect(engine.text).toBe(resolvers.text);
  return JSON.parse(engine.text.slice(4));
}

const traitsOf = async () => {
  const rows = await app.db.sql.query<{ t: string; trait_type: string; value: string; number_value: number | null }>(
    `SELECT token_id::text AS t, trait_type, value, number_value FROM token_attributes WHERE collection_address = $1`,
    [c0],
  );
  const by = new Map<string, { traitType: string; value: string; n: number | null }[]>();
  for (const r of rows) by.set(r.t, [...(by.get(r.t) ?? []), { traitType: r.trait_type, value: r.value, n: r.number_value }]);
  return by;
};

const PAGE = `query($c: Address!, $f: TokenFilterInput, $s: TokenSort, $after: String) {
  tokens(collection: $c, filter: $f, sort: $s, first: 3, after: $after) { totalCount edges { cursor node { tokenId name rarity { rank } attributes { traitType value } } } pageInfo { hasNextPage endCursor } } }`;

async function allPages(filter: Record<string, unknown>, sort: string) {
  const ids: string[] = [];
  let after: string | null = null;
  let total = -1;
  for (let i = 0; i < 20; i++) {
    const res = await both(PAGE, { c: c0, f: filter, s: sort, after });
    expect(res.errors).toBeUndefined();
    total = res.data.tokens.totalCount;
    ids.push(...res.data.tokens.edges.map((e: { node: { tokenId: string } }) => e.node.tokenId));
    if (!res.data.tokens.pageInfo.hasNextPage) break;
    after = res.data.tokens.pageInfo.endCursor;
  }
  expect(ids.length).toBe(total);
  return ids;
}

describe(`token pages by traits and rarity (${backendName})`, () => {
  it('filters: OR within a trait type, AND across types and ranges, with totalCount and every page', async () => {
    const traits = await traitsOf();
    const everyKnown = await allPages({}, 'TOKEN_ID');
    const cases: { filter: Record<string, unknown>; keep: (t: { traitType: string; value: string; n: number | null }[]) => boolean }[] = [
      { filter: { attributes: [{ traitType: 'Background', values: ['Gold'] }] }, keep: (t) => t.some((a) => a.traitType === 'Background' && a.value === 'Gold') },
      {
        filter: { attributes: [{ traitType: 'Background', values: ['Gold', 'Blue'] }, { traitType: 'Eyes', values: ['Calm'] }] },
        keep: (t) => t.some((a) => a.traitType === 'Background' && ['Gold', 'Blue'].includes(a.value)) && t.some((a) => a.traitType === 'Eyes' && a.value === 'Calm'),
      },
      { filter: { ranges: [{ traitType: 'Level', min: 2, max: 6 }] }, keep: (t) => t.some((a) => a.traitType === 'Level' && a.n !== null && a.n >= 2 && a.n <= 6) },
      { filter: { attributes: [{ traitType: 'Background', values: ['Red "quoted"'] }], ranges: [{ traitType: 'Level', max: 100 }] }, keep: (t) => t.some((a) => a.value === 'Red "quoted"') },
      { filter: { attributes: [{ traitType: 'Background', values: ['Nope'] }] }, keep: () => false },
    ];
    for (const { filter, keep } of cases) {
      const ids = await allPages(filter, 'TOKEN_ID');
      expect(ids, JSON.stringify(filter)).toEqual(everyKnown.filter((id) => keep(traits.get(id) ?? [])));
    }
    const listed = await allPages({ listed: true, attributes: [{ traitType: 'Eyes', values: ['Laser', 'Calm'] }] }, 'PRICE_ASC');
    const listedAll = await allPages({ listed: true }, 'PRICE_ASC');
    expect(listed).toEqual(listedAll.filter((id) => (traits.get(id) ?? []).some((a) => a.traitType === 'Eyes')));
  });

  it('sorts by rarity: rarest first, unranked last, with rank ranges', async () => {
    const ranks = new Map(
      (await app.db.sql.query<{ t: string; r: number }>(`SELECT token_id::text AS t, rarity_rank AS r FROM token_metadata WHERE collection_address = $1 AND rarity_rank IS NOT NULL`, [c0])).map((x) => [x.t, x.r]),
    );
    const everyKnown = await allPages({}, 'TOKEN_ID');
    const key = (id: string) => [ranks.get(id) ?? Infinity, BigInt(id)] as const;
    const expected = [...everyKnown].sort((a, b) => {
      const [ra, ia] = key(a);
      const [rb, ib] = key(b);
      return ra !== rb ? ra - rb : ia < ib ? -1 : ia > ib ? 1 : 0;
    });
    expect(await allPages({}, 'RARITY')).toEqual(expected);
    expect(await allPages({ rarityRank: { min: 2, max: 4 } }, 'RARITY')).toEqual(expected.filter((id) => (ranks.get(id) ?? 0) >= 2 && (ranks.get(id) ?? 0) <= 4));
  });

  it('finds tokens by name within the collection: any letter case, wildcards taken as written', async () => {
    const names = new Map(
      (await app.db.sql.query<{ t: string; name: string | null }>(`SELECT token_id::text AS t, name FROM token_metadata WHERE collection_address = $1`, [c0])).map((r) => [r.t, r.name]),
    );
    const everyKnown = await allPages({}, 'TOKEN_ID');
    for (const q of ['token #1', 'TOKEN', 'ünï', '😀 </script>', '%', '_', '#_']) {
      const expected = everyKnown.filter((id) => (names.get(id) ?? '').toLowerCase().includes(q.toLowerCase()));
      expect(await allPages({ name: q }, 'TOKEN_ID'), q).toEqual(expected);
    }
    expect((await allPages({ name: 'token' }, 'TOKEN_ID')).length).toBeGreaterThan(3);
  });

  it("answers a token's traits with their collection counts, the engine and the resolvers alike", async () => {
    const traits = await traitsOf();
    for (const id of ['0', '2', '5', '6', '7']) {
      const res = await both(`query($c: Address!, $t: Uint256!) { token(collection: $c, tokenId: $t) { attributes { traitType value displayType kind tokenCount } metadata { status } } }`, { c: c0, t: id });
      for (const a of res.data.token?.attributes ?? []) {
        const holders = [...traits.values()].filter((t) => t.some((x) => x.traitType === a.traitType && x.value === a.value)).length;
        expect(a.tokenCount, `${id} ${a.traitType}=${a.value}`).toBe(holders);
      }
    }
  });

  it('refuses filters over the limits or inverted, on both paths alike', async () => {
    for (const filter of [
      { attributes: [{ traitType: 'Background', values: [] }] },
      { ranges: [{ traitType: 'Level', min: 5, max: 1 }] },
      { ranges: [{ traitType: 'Level' }] },
      { attributes: Array.from({ length: 21 }, (_, i) => ({ traitType: `t${i}`, values: ['x'] })) },
      { rarityRank: { min: 9, max: 1 } },
      { name: '  ' },
      { name: 'x'.repeat(201) },
    ]) {
      const res = await both(PAGE, { c: c0, f: filter, s: 'TOKEN_ID', after: null });
      expect(res.errors?.[0]?.extensions?.code, JSON.stringify(filter)).toBe('BAD_REQUEST');
    }
  });

  it("answers the trait panel's counts, floors and best bids as a recount of the book does", async () => {
    const res = await both(`query($c: Address!) { collection(address: $c) { attributes { traitType kind valueCount min max values { value tokenCount sharePercent listedCount floorPrice bestBidPrice } } } }`, { c: c0 });
    const traits = await traitsOf();
    const panel = res.data.collection.attributes as { traitType: string; values: { value: string; tokenCount: number; listedCount: number; floorPrice: string | null; bestBidPrice: string | null }[] }[];
    // the live book by the resolvers' own token page and best ask/bid fields
    const book = await both(`query($c: Address!) { tokens(collection: $c, first: 100, sort: TOKEN_ID) { edges { node { tokenId bestAsk { price } } } } collection(address: $c) { topBid { price } } }`, { c: c0 });
    const asks = new Map<string, bigint>(book.data.tokens.edges.filter((e: any) => e.node.bestAsk).map((e: any) => [e.node.tokenId, BigInt(e.node.bestAsk.price)]));
    for (const type of panel) {
      for (const v of type.values) {
        const holders = [...traits.entries()].filter(([, t]) => t.some((a) => a.traitType === type.traitType && a.value === v.value)).map(([id]) => id);
        expect(v.tokenCount, `${type.traitType}=${v.value}`).toBe(holders.length);
        const listed = holders.filter((id) => asks.has(id));
        expect(v.listedCount).toBe(listed.length);
        const floor = listed.length ? listed.map((id) => asks.get(id)!).reduce((a, b) => (a < b ? a : b)).toString() : null;
        expect(v.floorPrice, `${type.traitType}=${v.value} floor`).toBe(floor);
      }
    }
  });
});
