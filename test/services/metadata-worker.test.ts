// The metadata pipeline end to end on real components: token URIs read from contracts on a local
// EVM (ERC-721 tokenURI with a base URI and per-token URIs, ERC-1155 uri with {id}), documents
// served by a loopback HTTP server and by trustless IPFS gateways (one of them tampering), the
// queue, the worker, the store and OpenRarity. Every token ends OK or ERROR with its code, trait
// counts equal a recount, a re-read replaces traits as a whole, and a worker whose lease was taken
// over writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { rankCollection } from '../../src/domain/open-rarity.js';
import { createContentFetcher } from '../../src/services/metadata-fetch/index.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { createMetadataWorker } from '../../src/services/metadata-worker.js';
import { createTokenRarity } from '../../src/services/token-rarity.js';
import { deployContract, type TestERC1155, type TestERC721 } from '../helpers/evm/deploy.js';
import { startLocalEvm, type LocalEvm } from '../helpers/evm/local-evm.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { startServer, type LocalServer } from './metadata-fetch/local-servers.js';
import { importContent, startGateway, type FakeGateway } from './metadata-fetch/trustless-gateway.js';

let evm: LocalEvm;
let app: TestApp;
let server: LocalServer;
let good: FakeGateway;
let tampering: FakeGateway;
let erc721: string;
let erc1155: string;
let nft: TestERC721;
const failOnce = new Set<string>(['24']);
/** token id -> Background served now (a re-read sees a change) */
const background = new Map<string, string>();

const BACKGROUNDS = ['Gold', 'Blue', 'Red'];
const doc = (id: string) => ({
  name: `Meta #${id}`,
  image: `ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy/${id}.png`,
  attributes: [
    { trait_type: 'Background', value: background.get(id) ?? BACKGROUNDS[Number(id) % 3] },
    { trait_type: 'Hat', value: Number(id) % 5 === 0 ? 'Crown' : 'None' },
    { trait_type: 'Level', value: Number(id) % 4, display_type: 'number' },
  ],
});

beforeAll(async () => {
  evm = await startLocalEvm();
  const [w0, w1] = evm.wallets;
  nft = await deployContract<TestERC721>('TestERC721', w0!, 'Meta', 'META');
  const multi = await deployContract<TestERC1155>('TestERC1155', w0!, 'Multi', 'MULTI');
  erc721 = await nft.getAddress();
  erc1155 = await multi.getAddress();
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/meta\/(\d+)$/.exec(url.pathname);
    const id = m?.[1];
    if (id === '21') return void res.writeHead(404).end('no such token');
    if (id === '22') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>');
    if (id === '23') return void res.writeHead(200).end(JSON.stringify({ name: 'big', description: 'x'.repeat(2 * 1024 * 1024) }));
    if (id === '25') return void res.writeHead(302, { location: '/meta/1' }).end();
    if (id && failOnce.delete(id)) return void res.writeHead(503).end();
    if (id) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc(id)));
    const e = /^\/1155\/([0-9a-f]{64})\.json$/.exec(url.pathname);
    if (e) return void res.writeHead(200).end(JSON.stringify({ name: `Pass ${BigInt('0x' + e[1])}`, attributes: [{ trait_type: 'Tier', value: 'Gold' }] }));
    res.writeHead(404).end();
  });
  good = await startGateway('good');
  tampering = await startGateway('tampered');
  const pinned = await importContent([{ path: '26.json', content: Buffer.from(JSON.stringify(doc('26'))) }], { wrapWithDirectory: true });
  const forged = await importContent([{ path: '27.json', content: Buffer.from(JSON.stringify(doc('27'))) }], { wrapWithDirectory: true });
  good.add(pinned);
  tampering.add(pinned);
  tampering.add(forged);

  for (let id = 1; id <= 30; id++) await (await nft.mint(w1!.address, id)).wait();
  await (await nft.setBaseURI(`${server.origin}/meta/`)).wait();
  await (await nft.setTokenURI(26, `ipfs://${pinned.root}/26.json`)).wait();
  await (await nft.setTokenURI(27, `ipfs://ipfs/${forged.root}/27.json`)).wait();
  await (await nft.setTokenURI(28, `data:application/json;base64,${Buffer.from(JSON.stringify(doc('28'))).toString('base64')}`)).wait();
  await (await nft.setTokenURI(29, 'ftp://files.example/29.json')).wait();
  await (await nft.setTokenURI(30, `  ${server.origin}/meta/30  `)).wait();
  await (await multi.setURI(`${server.origin}/1155/{id}.json`, 7)).wait();

  app = await startTestApp();
  for (const [address, type] of [[erc721, 'ERC721'], [erc1155, 'ERC1155']] as const) {
    await app.db.sql.query(`INSERT INTO collections (address, owner, type) VALUES ($1, $1, $2::"CollectionType")`, [address, type]);
  }
  // the holders as the indexer would have written them (a token the index knows)
  await app.db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) SELECT $1, g, $2, 1 FROM generate_series(1, 30) g`, [erc721, w1!.address]);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([server?.close(), good?.close(), tampering?.close()]);
  await evm?.stop();
});

function pipeline(instanceId = 'worker-a') {
  const deps = app.services.deps;
  const queue = createMetadataQueue(deps);
  const rarity = createTokenRarity(deps);
  const fetcher = createContentFetcher({
    ipfsGateways: [tampering.origin, good.origin],
    arweaveGateway: 'https://arweave.invalid',
    allowPrivateTargets: true,
    timeoutMs: 5000,
    maxBytes: 1024 * 1024,
    maxRedirects: 3,
    perHostConcurrency: 4,
    perHostIntervalMs: 0,
    retries: 2,
    retryBaseDelayMs: 20,
  });
  const worker = createMetadataWorker(deps, queue, rarity, createChainReader(evm.rpcUrl, deps.network), fetcher, { instanceId, random: () => 0.5 });
  return { queue, rarity, worker, fetcher };
}

async function drain(worker: { runOnce(): Promise<number> }) {
  while ((await worker.runOnce()) > 0);
}

const statusOf = async (collection: string, tokenId: string) =>
  (await app.db.sql.query<{ status: string; error_code: string | null; name: string | null; token_uri: string | null }>(
    `SELECT status::text AS status, error_code, name, token_uri FROM token_metadata WHERE collection_address = $1 AND token_id = $2::numeric`,
    [collection, tokenId],
  ))[0];

/** trait_values against a recount of token_attributes: the rows that differ (none when exact). */
const countDrift = () =>
  app.db.sql.query(
    `SELECT * FROM (SELECT collection_address, trait_type, value, count(*)::int AS n FROM token_attributes GROUP BY 1, 2, 3) r
     FULL JOIN trait_values v USING (collection_address, trait_type, value) WHERE r.n IS DISTINCT FROM v.token_count`,
  );

describe(`the metadata pipeline (${backendName})`, () => {
  it('reads every token to OK or ERROR with its code, from every URI form', async () => {
    const { queue, worker, fetcher } = pipeline();
    await queue.enqueue(erc721, Array.from({ length: 30 }, (_, i) => String(i + 1)));
    await queue.enqueue(erc1155, ['7']);
    await drain(worker);
    fetcher.close();
    for (const id of ['1', '2', '20', '24', '25', '26', '28', '30']) expect(await statusOf(erc721, id), id).toMatchObject({ status: 'OK', error_code: null });
    expect((await statusOf(erc721, '25'))!.name).toBe('Meta #1'); // followed the redirect
    expect((await statusOf(erc721, '30'))!.token_uri).toBe(`${server.origin}/meta/30`); // trimmed
    const codes = { '21': 'HTTP_STATUS', '22': 'INVALID_JSON', '23': 'TOO_LARGE', '27': 'CID_MISMATCH', '29': 'UNSUPPORTED_URI' };
    for (const [id, code] of Object.entries(codes)) expect(await statusOf(erc721, id), id).toMatchObject({ status: 'ERROR', error_code: code });
    expect(await statusOf(erc1155, '7')).toMatchObject({ status: 'OK', name: 'Pass 7', token_uri: `${server.origin}/1155/${'7'.padStart(64, '0')}.json` });
    expect(await countDrift()).toEqual([]);
  });

  it('answers the metadata, traits with counts and ranks in GraphQL, engine and resolvers alike', async () => {
    await createTokenRarity(app.services.deps).rankNow(erc721);
    const query = `query($c: Address!) { token(collection: $c, tokenId: "3") { name image attributes { traitType value displayType kind tokenCount }
      metadata { status tokenURI error { code } } rarity { rank tokensScored maxRank method } } }`;
    const res = await app.gql<{ token: any }>(query, { c: erc721 });
    expect(res.errors).toBeUndefined();
    expect(res.data!.token.name).toBe('Meta #3');
    expect(res.data!.token.image).toBe(`${app.config.metadata.ipfsPublicGateway}/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy/3.png`);
    const [{ n: ok }] = (await app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM token_metadata WHERE collection_address = $1 AND document_sha256 IS NOT NULL`, [erc721])) as [{ n: number }];
    expect(res.data!.token.rarity.tokensScored).toBe(ok);
    const bg = res.data!.token.attributes.find((a: { traitType: string }) => a.traitType === 'Background');
    const [{ n }] = (await app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM token_attributes WHERE collection_address = $1 AND trait_type = 'Background' AND value = $2`, [erc721, bg.value])) as [{ n: number }];
    expect(bg.tokenCount).toBe(n);
    const failed = await app.gql<{ token: any }>(`query($c: Address!) { token(collection: $c, tokenId: "21") { name attributes { value } metadata { status error { code message } } rarity { rank } } }`, { c: erc721 });
    expect(failed.errors, JSON.stringify(failed.errors)).toBeUndefined();
    expect(failed.data!.token).toMatchObject({ name: null, attributes: null, metadata: { status: 'ERROR', error: { code: 'HTTP_STATUS' } }, rarity: null });
  });

  it('ranks as OpenRarity does over the tokens showing metadata', async () => {
    const rows = await app.db.sql.query<{ t: string; rank: number; score: number }>(
      `SELECT token_id::text AS t, rarity_rank AS rank, rarity_score AS score FROM token_metadata WHERE collection_address = $1 AND rarity_rank IS NOT NULL`,
      [erc721],
    );
    const docs = await app.db.sql.query<{ t: string; document: string }>(`SELECT token_id::text AS t, document FROM token_metadata WHERE collection_address = $1 AND document IS NOT NULL`, [erc721]);
    const expected = rankCollection(
      docs.map((d) => ({
        tokenId: d.t,
        attributes: (JSON.parse(d.document).attributes as { trait_type: string; value: unknown; display_type?: string }[]).map((a) => ({ traitType: a.trait_type, value: a.value, displayType: a.display_type ?? null })),
      })),
    );
    expect(rows.length).toBe(expected.length);
    const byId = new Map(rows.map((r) => [r.t, r]));
    for (const e of expected) {
      expect(byId.get(e.tokenId)!.rank, e.tokenId).toBe(e.rank);
      expect(Math.abs(byId.get(e.tokenId)!.score - e.score)).toBeLessThan(1e-9);
    }
  });

  it('replaces a token\'s traits as a whole on a re-read, and keeps the counts exact', async () => {
    const { queue, worker, fetcher } = pipeline();
    background.set('1', 'Silver');
    background.set('2', 'Silver');
    await queue.enqueue(erc721, ['1', '2', '3']);
    await drain(worker);
    fetcher.close();
    const silver = await app.db.sql.query(`SELECT token_id::text AS t FROM token_attributes WHERE collection_address = $1 AND value = 'Silver' ORDER BY 1`, [erc721]);
    expect(silver).toEqual([{ t: '1' }, { t: '2' }]);
    expect(await countDrift()).toEqual([]);
    const panel = await app.gql<{ collection: any }>(`query($c: Address!) { collection(address: $c) { attributes { traitType valueCount values { value tokenCount } } } }`, { c: erc721 });
    const bgs = panel.data!.collection.attributes.find((t: { traitType: string }) => t.traitType === 'Background');
    expect(bgs.values.find((v: { value: string }) => v.value === 'Silver').tokenCount).toBe(2);
    // the two changed documents are market events (the unchanged re-read of 3 and first reads are not)
    const events = await app.gql<{ collection: any }>(`query($c: Address!) { collection(address: $c) { activity(filter: { types: [METADATA_UPDATE] }, first: 10) { edges { node { type tokenId } } } } }`, { c: erc721 });
    expect(events.errors).toBeUndefined();
    expect(events.data!.collection.activity.edges.map((e: { node: { tokenId: string } }) => e.node.tokenId).sort()).toEqual(['1', '2']);
  });

  it('discovers tokens the market event log names, once', async () => {
    const { queue } = pipeline();
    await app.db.sql.query(`INSERT INTO market_events (type, collection_address, token_id) VALUES ('MINT', $1, 31), ('TRANSFER', $1, 31), ('MINT', $1, 1)`, [erc721]);
    await queue.discover();
    await queue.discover();
    expect(await statusOf(erc721, '31')).toMatchObject({ status: 'PENDING' });
    expect((await statusOf(erc721, '1'))!.status).toBe('OK'); // known already: untouched
  });

  it('writes nothing for a worker whose lease was taken over', async () => {
    const a = pipeline('worker-a');
    const b = pipeline('worker-b');
    await a.queue.enqueue(erc721, ['4']);
    const [claimed] = await a.queue.claim('worker-a', 10, 60_000).then((c) => c.filter((t) => t.tokenId === '4'));
    expect(claimed).toBeDefined();
    await app.db.sql.query(`UPDATE token_metadata SET lease_expires_at = now() - interval '1 second' WHERE collection_address = $1 AND token_id = 4`, [erc721]);
    expect((await b.queue.claim('worker-b', 10, 60_000)).map((t) => t.tokenId)).toContain('4');
    await a.queue.store([{ collectionAddress: erc721, tokenId: '4', status: 'ERROR', errorCode: 'TIMEOUT', errorMessage: 'late', tokenUri: null, nextFetchAt: null, retryAt: null }], 'worker-a');
    expect(await statusOf(erc721, '4')).toMatchObject({ status: 'OK' });
    a.fetcher.close();
    b.fetcher.close();
  });
});
