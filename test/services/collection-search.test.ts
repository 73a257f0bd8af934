// Collection search (src/services/collection-search.ts) on a real database, among a few hundred
// generated collections: misspelt names find their collection at the top, an address in any
// letter case comes first, exact names before prefixes before close spellings, verified before
// unverified and then the 24 h volume among equally good matches, LIKE's wildcards match only
// themselves, bad arguments are refused; GraphQL through the read engine answers the resolvers'
// bytes in one statement, and REST the same collections in the v1 envelope.
import { getAddress, keccak256, toUtf8Bytes } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../src/demo/prng.js';
import { answerVia } from '../helpers/engine-answer.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const addressOf = (label: string) => getAddress(keccak256(toUtf8Bytes(`search-${label}`)).slice(0, 42));
const OWNER = addressOf('owner');
const ETH = 10n ** 18n;

interface Seeded {
  name: string | null;
  symbol?: string | null;
  verified?: boolean;
  /** sales inside the last 24 h, in wei */
  volume24h?: bigint;
  /** a sale two days old: outside the 24 h window */
  olderVolume?: bigint;
}

// the collections the cases name, beside the generated ones
const NAMED: Record<string, Seeded> = {
  azuki: { name: 'Azuki', symbol: 'AZUKI', verified: true, volume24h: 5n * ETH },
  azukiElementals: { name: 'Azuki Elementals', symbol: 'ELEM', verified: true, volume24h: 50n * ETH },
  azukiFan: { name: 'Azuki Fan Club', symbol: null },
  bayc: { name: 'Bored Ape Yacht Club', symbol: 'BAYC', verified: true, volume24h: 90n * ETH },
  bakc: { name: 'Bored Ape Kennel Club', symbol: 'BAKC', verified: true, volume24h: 120n * ETH },
  mayc: { name: 'Mutant Ape Yacht Club', symbol: 'MAYC', verified: true, volume24h: 200n * ETH },
  boredYacht: { name: 'Bored Yacht Owners', symbol: null, volume24h: 3n * ETH },
  pudgy: { name: 'Pudgy Penguins', symbol: 'PPG', verified: true, volume24h: 40n * ETH },
  pudgyRods: { name: 'Pudgy Rods', symbol: 'ROD', verified: true, volume24h: 400n * ETH },
  lilPudgys: { name: 'Lil Pudgys', symbol: 'LP', verified: true, volume24h: 30n * ETH },
  penguinParty: { name: 'Penguin Party', symbol: null },
  // equally good matches: verified first whatever the volume, then the volume, then the address
  twinA: { name: 'Twin Harbor', symbol: null, verified: false, volume24h: 900n * ETH },
  twinB: { name: 'Twin Harbor', symbol: null, verified: true, volume24h: 1n * ETH },
  twinC: { name: 'Twin Harbor', symbol: null, verified: false, volume24h: 20n * ETH },
  twinD: { name: 'Twin Harbor', symbol: null, verified: false, olderVolume: 999n * ETH },
  twinE: { name: 'Twin Harbor', symbol: null, verified: false },
  twinF: { name: 'Twin Harbor', symbol: null, verified: false },
  percent: { name: '100% Pure', symbol: 'PCT' },
  underscore: { name: 'snake_case', symbol: null },
  nameless: { name: null, symbol: 'ANON' },
};

const WORDS_A = ['Crimson', 'Silent', 'Hollow', 'Golden', 'Frozen', 'Wild', 'Lunar', 'Velvet', 'Rusty', 'Neon', 'Quiet', 'Broken', 'Paper', 'Iron', 'Misty', 'Solar'];
const WORDS_B = ['Foxes', 'Lanterns', 'Ravens', 'Gardens', 'Tigers', 'Spirits', 'Robots', 'Whales', 'Castles', 'Moths', 'Riders', 'Giants', 'Sparrows', 'Wolves'];

let app: TestApp;
const address: Record<string, string> = Object.fromEntries(Object.keys(NAMED).map((label) => [label, addressOf(label)]));

beforeAll(async () => {
  app = await startTestApp();
  const rows: { address: string; name: string | null; symbol: string | null; verified: boolean }[] = [];
  for (const [label, c] of Object.entries(NAMED)) {
    rows.push({ address: address[label]!, name: c.name, symbol: c.symbol ?? null, verified: c.verified ?? false });
  }
  const rand = prng(20261207);
  for (let i = 0; i < 400; i++) {
    const name = `${rand.pick(WORDS_A)} ${rand.pick(WORDS_B)}${i % 3 === 0 ? ` ${i}` : ''}`;
    rows.push({ address: addressOf(`generated-${i}`), name, symbol: i % 2 ? name.slice(0, 3).toUpperCase() + i : null, verified: rand.next() < 0.3 });
  }
  await app.db.prisma.collection.createMany({ data: rows.map((r) => ({ address: r.address, owner: OWNER, type: 'ERC721', name: r.name, symbol: r.symbol, isVerified: r.verified })) });
  // sales: one an hour ago per collection with a 24 h volume, one two days ago for the older volume
  const sales = Object.entries(NAMED).flatMap(([label, c]) => [
    ...(c.volume24h ? [{ collection: address[label]!, price: c.volume24h, secondsAgo: 3600 }] : []),
    ...(c.olderVolume ? [{ collection: address[label]!, price: c.olderVolume, secondsAgo: 2 * 86_400 }] : []),
  ]);
  await app.db.sql.query(
    `INSERT INTO sales (collection_address, token_id, amount, price, currency_address, buyer, seller, order_hash, strategy, is_taker_ask, block_number, tx_hash, log_index, timestamp)
     SELECT s.c, 1, 1, s.p::numeric, $2, $2, $2, NULL, NULL, true, 1000 + s.i, '0x' || lpad(to_hex(s.i), 64, '0'), 0, $3::timestamptz - make_interval(secs => s.ago)
       FROM unnest($1::text[], $4::text[], $5::int[]) WITH ORDINALITY AS s(c, p, ago, i)`,
    [sales.map((s) => s.collection), OWNER, FIXED_NOW.toISOString(), sales.map((s) => s.price.toString()), sales.map((s) => s.secondsAgo)],
  );
  await app.services.sales.rebuildSaleBuckets();
});
afterAll(() => app?.close());

const SEARCH = 'query($q: String!, $n: Int) { searchCollections(query: $q, first: $n) { address name symbol isVerified stats { volume24h } } }';

async function search(q: string, n?: number) {
  const res = await app.gql<{ searchCollections: { address: string; name: string; symbol: string | null; isVerified: boolean; stats: { volume24h: string } }[] }>(SEARCH, { q, n });
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data!.searchCollections;
}
const labelsOf = (found: { address: string }[]) => found.map((c) => Object.keys(address).find((l) => address[l] === c.address) ?? c.address);

describe(`collection search (${backendName})`, () => {
  it('finds a misspelt or lower-cased name at the top', async () => {
    expect(labelsOf(await search('azuki'))[0]).toBe('azuki');
    expect(labelsOf(await search('bored ape yach club'))[0]).toBe('bayc');
    expect(labelsOf(await search('pudgy pengiuns'))[0]).toBe('pudgy');
    expect(labelsOf(await search('Bored Ape Yatch Clb'))[0]).toBe('bayc');
    expect(labelsOf(await search('  PUDGY PENGUINS  '))[0]).toBe('pudgy');
  });

  it('ranks the exact name, then names starting with the query, then close spellings', async () => {
    const labels = labelsOf(await search('Azuki'));
    // exact; the prefixes, verified first then by volume; the rest are close spellings
    expect(labels.slice(0, 3)).toEqual(['azuki', 'azukiElementals', 'azukiFan']);
    // a symbol is matched as a name is
    expect(labelsOf(await search('bayc'))[0]).toBe('bayc');
    expect(labelsOf(await search('MAY'))[0]).toBe('mayc');
    // a run of the name's words: found, ranked by closeness, then verified and volume
    const yacht = labelsOf(await search('yacht club'));
    expect(yacht.slice(0, 2).sort()).toEqual(['bayc', 'mayc']);
    expect(yacht[0]).toBe('mayc'); // the same word similarity: the higher volume first
    // a collection without a name is found by its symbol
    expect(labelsOf(await search('anon'))).toEqual(['nameless']);
  });

  it('puts the collection whose address the query is first, in any letter case', async () => {
    for (const spelled of [address.twinE!, address.twinE!.toLowerCase(), `0x${address.twinE!.slice(2).toUpperCase()}`, address.twinE!.toUpperCase()]) {
      const found = await search(spelled);
      expect(labelsOf(found)[0], spelled).toBe('twinE');
    }
    // a well-formed address nobody has finds nothing
    expect(await search(`0x${'AB'.repeat(20)}`)).toEqual([]);
  });

  it('among equally good matches: verified first, then the 24 h volume, then the address', async () => {
    const found = await search('twin harbor');
    const labels = labelsOf(found);
    // twinD's sale is two days old: no 24 h volume, as twinE and twinF
    const byAddress = ['twinD', 'twinE', 'twinF'].sort((a, b) => (address[a]! < address[b]! ? -1 : 1));
    expect(labels.slice(0, 6)).toEqual(['twinB', 'twinA', 'twinC', ...byAddress]);
    expect(found.slice(1, 6).map((c) => c.stats.volume24h)).toEqual([900n, 20n, 0n, 0n, 0n].map((v) => (v * ETH).toString()));
  });

  it("does not match junk, and LIKE's wildcards match only themselves", async () => {
    expect(await search('qqxzvvkjh')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('_')).toEqual([]);
    expect(labelsOf(await search('100%'))[0]).toBe('percent');
    expect(labelsOf(await search('snake_'))[0]).toBe('underscore');
    expect(labelsOf(await search('snakeX'))).not.toContain('percent');
  });

  it('answers at most `first` collections (20 by default)', async () => {
    const all = await search('crimson', 50);
    expect(all.length).toBeGreaterThan(20);
    expect(all.length).toBeLessThan(50);
    expect((await search('crimson')).map((c) => c.address)).toEqual(all.slice(0, 20).map((c) => c.address));
    expect((await search('crimson', 3)).map((c) => c.address)).toEqual(all.slice(0, 3).map((c) => c.address));
  });

  it('refuses an empty or too long query and a size out of range, naming the argument', async () => {
    for (const [q, n, field] of [
      ['', undefined, 'query'],
      ['   ', undefined, 'query'],
      ['x'.repeat(101), undefined, 'query'],
      [` ${'é'.repeat(101)} `, undefined, 'query'],
      ['azuki', 0, 'first'],
      ['azuki', 51, 'first'],
    ] as const) {
      const res = await app.gql(SEARCH, { q, n });
      expect(res.status, `${q} ${n}`).toBe(400);
      expect(res.data?.searchCollections ?? null).toBeNull();
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
      expect((res.errors?.[0]?.extensions?.problems as { field: string }[])[0]!.field).toBe(field);
      expect(res.errors?.[0]?.message).toMatch(new RegExp(`^Invalid argument ${field}: must be`));
    }
    // 100 characters after trimming is within the limit
    expect(await search(`  ${'x'.repeat(100)}  `)).toEqual([]);
    expect(await search(`${'😀'.repeat(100)}`)).toEqual([]);
  });
});

describe(`collection search through the read engine (${backendName})`, () => {
  const documents = [
    SEARCH,
    `query($q: String!) { searchCollections(query: $q, first: 7) { __typename id address owner name description symbol type isVerified isExplicit logoURI
        stats { floorPrice volume24h change24h } topBid { hash } listedCount orders(first: 2) { totalCount edges { node { hash } } } } }`,
    `query($q: String!) { a: searchCollections(query: $q, first: 2) { address } b: searchCollections(query: $q) { ... on Collection { name } } collection(address: "${addressOf('azuki')}") { name } }`,
  ];
  const queries = ['azuki', 'bored ape yach club', 'pudgy pengiuns', 'twin harbor', 'crimson', address.twinE!.toUpperCase(), 'nothing like it', 'x'.repeat(101), ''];

  it("answers the resolvers' bytes, in one statement", async () => {
    for (const document of documents) {
      for (const q of queries) {
        const engine = await answerVia(app, document, { q, n: 5 }, true);
        const resolvers = await answerVia(app, document, { q, n: 5 }, false);
        expect(engine.text, `${q}\n${document}`).toBe(resolvers.text);
        if (!engine.text.includes('"errors"')) expect(engine.statements, `${q}\n${document}\n${engine.statements.join('\n---\n')}`).toHaveLength(1);
      }
    }
  });

  it('answers at another clock as the resolvers do (the volume window moves), through its template', async () => {
    const refused: string[] = [];
    const stop = app.services.readTemplates.onOutcome((outcome, reason) => outcome === 'refused' && refused.push(reason ?? ''));
    try {
      for (const later of [0, 1800, 7200, 86_400]) {
        app.clock.now = new Date(FIXED_NOW.getTime() + later * 1000);
        for (const q of ['twin harbor', 'azuki', 'twin harbor']) {
          const engine = await answerVia(app, SEARCH, { q }, true);
          expect(engine.text, `${q} +${later}s`).toBe((await answerVia(app, SEARCH, { q }, false)).text);
        }
      }
      // a day later twinA's and twinC's sales have left the window: the address decides among the unverified
      app.clock.now = new Date(FIXED_NOW.getTime() + 86_400 * 1000);
      const labels = labelsOf(await search('twin harbor'));
      const unverified = ['twinA', 'twinC', 'twinD', 'twinE', 'twinF'].sort((a, b) => (address[a]! < address[b]! ? -1 : 1));
      expect(labels.slice(0, 6)).toEqual(['twinB', ...unverified]);
    } finally {
      stop();
      app.clock.now = FIXED_NOW;
    }
    expect(refused).toEqual([]);
  });
});

describe(`GET /api/v1/collections/search (${backendName})`, () => {
  it('answers the collections in the v1 envelope, as GraphQL ranks them', async () => {
    const res = await app.rest('/api/v1/collections/search?q=pudgy%20pengiuns&limit=2');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({ address: address.pudgy, name: 'Pudgy Penguins', symbol: 'PPG', isVerified: true, type: 'ERC721' });
    expect(res.body.data.map((c: { address: string }) => c.address)).toEqual((await search('pudgy pengiuns', 2)).map((c) => c.address));
    expect((await app.rest('/api/v1/collections/search?q=azuki')).body.data.length).toBeLessThanOrEqual(20);
  });

  it('refuses a missing, empty or too long q and a bad limit with 400 and errors[]', async () => {
    for (const [query, field] of [
      ['', 'q'],
      ['?q=', 'q'],
      ['?q=%20%20', 'q'],
      [`?q=${'x'.repeat(101)}`, 'q'],
      ['?q=%00', 'q'],
      ['?q=azuki&limit=0', 'limit'],
      ['?q=azuki&limit=51', 'limit'],
      ['?q=azuki&limit=ten', 'limit'],
    ] as const) {
      const res = await app.rest(`/api/v1/collections/search${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.errors[0].field, query).toBe(field);
    }
  });
});
