// Garbage collection: media nothing names any more goes after the grace period, with its
// variants and the source URL that brought it; what a collection or a token names stays, and so
// does what went unnamed only recently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createMediaService, type MediaService } from '../../../src/services/media/index.js';
import { collectMediaGarbage } from '../../../src/services/media/media-gc.js';
import { urlSha256 } from '../../../src/services/media/media-queue.js';
import { prepareImage } from '../../../src/services/media/prepare-image.js';
import { solidPng } from '../../fixtures/media-images.js';
import { backendName, openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let t: TestDatabase;
let media: MediaService;
const GRACE_MS = 3_600_000;

beforeAll(async () => {
  t = await openTestDatabase();
  media = createMediaService({ db: t.db, config: loadConfig({ MEDIA_GC_GRACE_HOURS: '1' }) });
});
afterAll(() => t.close());

/** Stores an image as if fetched from `url` (the source row STORED), and answers its SHA-256. */
async function storedFrom(url: string | null, colour: string): Promise<string> {
  const prepared = await prepareImage(await solidPng(16, 16, colour), ['w64'], media.limits);
  if (!prepared.ok) throw new Error(prepared.message);
  if (url === null) {
    await media.store.store(prepared);
    return prepared.sha256;
  }
  await media.enqueueMediaSource(url, 'token');
  const [claimed] = await media.queue.claim('gc-test', 1, 60_000);
  expect(claimed?.url).toBe(url);
  expect(await media.store.store(prepared, { outcome: { urlSha256: claimed!.urlSha256, owner: 'gc-test' } })).toEqual({ stored: true, held: true });
  return prepared.sha256;
}

const exists = async (table: string, column: string, value: string) => (await t.db.sql.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [value])).length > 0;
/** Moves every stamp back past the grace period, as if that much time had passed unnamed. */
const age = () =>
  t.db.sql.exec(`UPDATE media SET last_referenced_at = now() - interval '2 hours'; UPDATE media_sources SET last_referenced_at = now() - interval '2 hours';`);

describe(`media garbage collection (${backendName})`, () => {
  it('deletes only media unnamed for the grace period, with its variants and source row', async () => {
    const collection = '0x' + 'aa'.repeat(20);
    const logoUrl = 'https://img.example/gc-logo.png';
    const tokenUrl = 'https://img.example/gc-token.png';
    const goneUrl = 'https://img.example/gc-replaced.png';
    const logo = await storedFrom(logoUrl, '#100000');
    const token = await storedFrom(tokenUrl, '#200000');
    const gone = await storedFrom(goneUrl, '#300000');
    const ownUpload = await storedFrom(null, '#400000');
    const orphanUpload = await storedFrom(null, '#500000');
    const recent = await storedFrom('https://img.example/gc-recent.png', '#600000');
    await t.db.prisma.collection.create({
      data: { address: collection, owner: collection, type: 'ERC721', name: 'gc', logoURI: logoUrl, bannerURI: `https://cdn.example.com/media/${ownUpload}/w1024` },
    });
    await t.db.prisma.tokenMetadata.create({ data: { collectionAddress: collection, tokenId: '1', status: 'OK', image: tokenUrl } });
    await age();
    // named a moment ago (an enqueue stamps it): within the grace period
    await media.enqueueMediaSource('https://img.example/gc-recent.png', 'token');
    await t.db.sql.query(`UPDATE media SET last_referenced_at = now() WHERE sha256 = $1`, [recent]);

    const result = await collectMediaGarbage(t.db.sql, GRACE_MS);
    expect(result).toEqual({ sourcesDeleted: 1, mediaDeleted: 2 });
    for (const kept of [logo, token, ownUpload, recent]) expect(await exists('media', 'sha256', kept), kept).toBe(true);
    for (const deleted of [gone, orphanUpload]) {
      expect(await exists('media', 'sha256', deleted)).toBe(false);
      expect(await exists('media_variants', 'sha256', deleted)).toBe(false);
    }
    expect(await exists('media_sources', 'url_sha256', urlSha256(goneUrl))).toBe(false);
    expect(await exists('media_sources', 'url_sha256', urlSha256(logoUrl))).toBe(true);
    expect(await media.mediaStatusForUrl(goneUrl)).toMatchObject({ status: 'UNKNOWN' });

    // a grace period later the recent one went unnamed too: its source row goes, and with no
    // source left its media in the same pass; what is named was stamped again and stays
    await age();
    expect(await collectMediaGarbage(t.db.sql, GRACE_MS)).toEqual({ sourcesDeleted: 1, mediaDeleted: 1 });
    expect(await exists('media', 'sha256', recent)).toBe(false);
    await age();
    expect(await collectMediaGarbage(t.db.sql, GRACE_MS)).toEqual({ sourcesDeleted: 0, mediaDeleted: 0 });
    for (const kept of [logo, token, ownUpload]) expect(await exists('media', 'sha256', kept)).toBe(true);
  });
});
