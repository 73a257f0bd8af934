// Hosted images in answers: a collection's logo and banner and a token's image are given out as
// our media URLs once stored (under MEDIA_BASE_URL when set), the source URLs until then and
// always as their own fields, the same from the read engine and the resolvers. Storing a token's
// metadata makes its image a media source, in the same transaction.
import { getAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { answerVia } from '../helpers/engine-answer.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { solidPng } from '../fixtures/media-images.js';

const C = getAddress('0x00000000000000000000000000000000000000c1');
const LOGO = 'https://img.example.test/logo.png';
const BANNER = 'https://img.example.test/banner.png';
const IMAGE = 'https://img.example.test/token-7.png';
let app: TestApp;
let cdn: TestApp;

const QUERY = `query($c: Address!) {
  collection(address: $c) { logoURI logoSourceURI bannerURI bannerSourceURI }
  token(collection: $c, tokenId: "7") { image imageSourceURI }
}`;

async function storeAs(target: TestApp, url: string): Promise<string> {
  const up = await target.services.media.upload(await solidPng(300, 200));
  if (!('sha256' in up)) throw new Error(`upload refused: ${JSON.stringify(up)}`);
  await target.db.sql.query(
    `INSERT INTO media_sources (url_sha256, url, status, sha256) VALUES (encode(sha256(convert_to($1, 'UTF8')), 'hex'), $1, 'STORED', $2)
     ON CONFLICT (url_sha256) DO UPDATE SET status = 'STORED', sha256 = $2`,
    [url, up.sha256],
  );
  return up.sha256;
}

async function seed(target: TestApp) {
  await target.db.sql.query(`INSERT INTO collections (address, owner, type, logo_uri, banner_uri) VALUES ($1, $1, 'ERC721', $2, $3)`, [C, LOGO, BANNER]);
  await target.db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) VALUES ($1, 7, $1, 1)`, [C]);
  await createMetadataQueue(target.services.deps).store(
    [
      {
        collectionAddress: C,
        tokenId: '7',
        status: 'OK',
        errorCode: null,
        errorMessage: null,
        tokenUri: 'https://meta.example.test/7',
        document: { text: '{}', sha256: 'a'.repeat(64), name: 'Seven', description: null, image: IMAGE, animationUrl: null, externalUrl: null, attributes: [] },
        nextFetchAt: null,
        retryAt: null,
      },
    ],
    null,
  );
}

beforeAll(async () => {
  app = await startTestApp();
  cdn = await startTestApp({ MEDIA_BASE_URL: 'https://cdn.example.test/' });
  await seed(app);
  await seed(cdn);
});
afterAll(async () => {
  await app?.close();
  await cdn?.close();
});

const both = async (target: TestApp) => {
  const engine = await answerVia(target, QUERY, { c: C }, true);
  const resolvers = await answerVia(target, QUERY, { c: C }, false);
  expect(engine.text).toBe(resolvers.text);
  return JSON.parse(engine.text.slice(4)).data;
};

describe(`hosted images in answers (${backendName})`, () => {
  it('gives the source URLs until the images are stored; storing metadata queues the token image', async () => {
    expect(await both(app)).toEqual({
      collection: { logoURI: LOGO, logoSourceURI: LOGO, bannerURI: BANNER, bannerSourceURI: BANNER },
      token: { image: IMAGE, imageSourceURI: IMAGE },
    });
    const [row] = await app.db.sql.query<{ status: string; eager: boolean }>(`SELECT status, eager FROM media_sources WHERE url = $1`, [IMAGE]);
    expect(row).toEqual({ status: 'PENDING', eager: false });
  });

  it('gives our media URLs once stored, under MEDIA_BASE_URL when set, the same from the engine and the resolvers', async () => {
    const [logo, banner, image] = [await storeAs(app, LOGO), await storeAs(app, BANNER), await storeAs(app, IMAGE)];
    expect(await both(app)).toEqual({
      collection: { logoURI: `/media/${logo}/w256`, logoSourceURI: LOGO, bannerURI: `/media/${banner}/w1024`, bannerSourceURI: BANNER },
      token: { image: `/media/${image}/w256`, imageSourceURI: IMAGE },
    });
    const sha = await storeAs(cdn, LOGO);
    expect((await both(cdn)).collection.logoURI).toBe(`https://cdn.example.test/media/${sha}/w256`);
    // the URL serves the variant
    const res = await app.yoga.fetch(`http://test/media/${logo}/w256`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
  });
});
