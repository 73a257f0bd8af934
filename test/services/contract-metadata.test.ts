// A collection's own metadata (ERC-7572 contractURI) on real components: the URI read from a
// contract on a local EVM, the document served by a loopback HTTP server through the guarded
// fetcher. It fills the fields nobody set, never a field an admin set (before or after), follows
// a changed document on a refresh, and a contract without one, or a bad document, ends as an error
// code with the collection untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { createContentFetcher } from '../../src/services/metadata-fetch/index.js';
import { createContractMetadata } from '../../src/services/contract-metadata.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { deployContract, type TestERC721 } from '../helpers/evm/deploy.js';
import { startLocalEvm, type LocalEvm } from '../helpers/evm/local-evm.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { startServer, type LocalServer } from './metadata-fetch/local-servers.js';

let evm: LocalEvm;
let app: TestApp;
let server: LocalServer;
let withDoc: TestERC721;
let described = '';
let bare = '';
let broken = '';
let admins = '';
let version = 1;

beforeAll(async () => {
  evm = await startLocalEvm();
  const [w0] = evm.wallets;
  server = await startServer((req, res) => {
    if (req.url === '/contract.json')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          name: `Described v${version}`,
          description: 'A collection\u0000 with a NUL',
          image: 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
          banner_image: `https://img.example.test/banner-v${version}.png`,
          external_link: 'https://described.example.test',
        }),
      );
    if (req.url === '/broken.json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>');
    res.writeHead(404).end();
  });
  withDoc = await deployContract<TestERC721>('TestERC721', w0!, 'Described', 'DSC');
  const noDoc = await deployContract<TestERC721>('TestERC721', w0!, 'Bare', 'BARE');
  const badDoc = await deployContract<TestERC721>('TestERC721', w0!, 'Broken', 'BRK');
  const adminDoc = await deployContract<TestERC721>('TestERC721', w0!, 'Admins', 'ADM');
  [described, bare, broken, admins] = (await Promise.all([withDoc, noDoc, badDoc, adminDoc].map((c) => c.getAddress()))) as [string, string, string, string];
  await (await withDoc.setContractURI(`${server.origin}/contract.json`)).wait();
  await (await badDoc.setContractURI(`${server.origin}/broken.json`)).wait();
  await (await adminDoc.setContractURI(`${server.origin}/contract.json`)).wait();
  app = await startTestApp();
  for (const address of [described, bare, broken]) await app.db.sql.query(`INSERT INTO collections (address, owner, type) VALUES ($1, $1, 'ERC721')`, [address]);
  // an admin named this one and gave it a logo before any read
  await app.db.sql.query(`INSERT INTO collections (address, owner, type, name, logo_uri) VALUES ($1, $1, 'ERC721', 'Admin name', 'https://admin.example.test/logo.png')`, [admins]);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await server?.close();
  await evm?.stop();
});

function reader() {
  const fetcher = createContentFetcher({
    ipfsGateways: [],
    arweaveGateway: 'https://arweave.invalid',
    allowPrivateTargets: true,
    timeoutMs: 5000,
    maxBytes: 1024 * 1024,
    maxRedirects: 3,
    perHostConcurrency: 4,
    perHostIntervalMs: 0,
    retries: 0,
  });
  return createContractMetadata(app.services.deps, createChainReader(evm.rpcUrl, app.services.deps.network), fetcher);
}

const collection = async (address: string) =>
  (await app.gql<{ collection: { name: string; description: string | null; logoURI: string | null; bannerURI: string | null; websiteLink: string | null } }>(
    `query($a: Address!) { collection(address: $a) { name description logoURI bannerURI websiteLink } }`,
    { a: address },
  )).data!.collection;
const outcome = async (address: string) =>
  (await app.db.sql.query<{ status: string | null; code: string | null; due: boolean }>(
    `SELECT contract_status::text AS status, contract_error_code AS code, contract_due_at > now() AS due FROM collection_metadata WHERE collection_address = $1`,
    [address],
  ))[0];

describe(`collection metadata from contractURI (${backendName})`, () => {
  it('fills what nobody set, sanitised; keeps what an admin set; records why a collection has none', async () => {
    const r = reader();
    expect(await r.runOnce()).toBe(4);
    // nothing is due again until the recheck
    expect(await r.runOnce()).toBe(0);
    const d = await collection(described);
    expect(d).toEqual({
      name: 'Described v1',
      description: 'A collection with a NUL',
      logoURI: expect.stringMatching(/^https:\/\/.+\/ipfs\/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy$/),
      bannerURI: 'https://img.example.test/banner-v1.png',
      websiteLink: 'https://described.example.test',
    });
    expect(await outcome(described)).toEqual({ status: 'OK', code: null, due: true });
    const a = await collection(admins);
    expect(a.name).toBe('Admin name');
    expect(a.logoURI).toBe('https://admin.example.test/logo.png');
    expect(a.bannerURI).toBe('https://img.example.test/banner-v1.png');
    expect(await outcome(bare)).toEqual({ status: 'ERROR', code: 'NO_URI', due: true });
    expect((await collection(bare)).name).toBe('Unnamed collection');
    expect((await outcome(broken))!.code).toBe('INVALID_JSON');
  });

  it('follows a changed document on a refresh, except where an admin has since set a value', async () => {
    version = 2;
    await app.db.sql.query(`UPDATE collections SET website_link = 'https://admin.example.test' WHERE address = $1`, [described]);
    const queue = createMetadataQueue(app.services.deps);
    expect((await queue.refreshCollection(described)).queued).toBe(true);
    expect(await reader().runOnce()).toBe(1);
    const d = await collection(described);
    expect(d.name).toBe('Described v2');
    expect(d.bannerURI).toBe('https://img.example.test/banner-v2.png');
    expect(d.websiteLink).toBe('https://admin.example.test');
  });

  it('reads a collection once when two readers race', async () => {
    await app.db.sql.query(`UPDATE collection_metadata SET contract_due_at = now() WHERE collection_address = $1`, [described]);
    const [x, y] = await Promise.all([reader().runOnce(), reader().runOnce()]);
    expect(x + y).toBe(1);
  });
});
