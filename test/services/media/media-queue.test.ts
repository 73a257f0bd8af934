// The media queue's discipline: a URL queued once however often it is named, claims by several
// workers never overlapping, a killed worker's lease running out so another takes the source
// over (and the dead one's late outcome ignored), and collections' logos and banners discovered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaQueue, urlSha256, type MediaQueue } from '../../../src/services/media/media-queue.js';
import { backendName, openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let t: TestDatabase;
let queue: MediaQueue;

beforeAll(async () => {
  t = await openTestDatabase();
  queue = createMediaQueue(t.db.sql);
});
afterAll(() => t.close());

const LEASE_MS = 60_000;
const row = async (url: string) =>
  (await t.db.sql.query<Record<string, unknown>>(`SELECT status, eager, due_at IS NOT NULL AS due, lease_owner, attempts, error_code, sha256 FROM media_sources WHERE url_sha256 = $1`, [urlSha256(url)]))[0];
const drain = async (owner: string) => {
  const claimed = await queue.claim(owner, 100, LEASE_MS);
  for (const c of claimed) await queue.fail(c.urlSha256, owner, { status: 'REFUSED', errorCode: 'TEST', errorMessage: 'drained', retryAt: null });
  return claimed;
};

describe(`media queue (${backendName})`, () => {
  it('keys a URL by the SHA-256 of its text, the same in SQL as here', async () => {
    const url = 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg"/> ünïcode';
    await queue.enqueue([url, url], { eager: false });
    const [sql] = await t.db.sql.query<{ k: string }>(`SELECT encode(sha256(convert_to($1::text, 'UTF8')), 'hex') AS k`, [url]);
    expect(sql!.k).toBe(urlSha256(url));
    expect(await t.db.sql.query(`SELECT 1 FROM media_sources WHERE url = $1`, [url])).toHaveLength(1);
    await drain('setup');
  });

  it('hands each due source to one worker only, however many claim at once', async () => {
    const urls = Array.from({ length: 30 }, (_, i) => `https://img.example/race/${i}.png`);
    await queue.enqueue(urls, { eager: false });
    const claims = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => queue.claim(owner, 10, LEASE_MS)));
    const all = claims.flat().map((c) => c.url);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual([...urls].sort());
    expect(await queue.claim('e', 10, LEASE_MS)).toEqual([]);
    for (const [i, owner] of ['a', 'b', 'c', 'd'].entries()) {
      for (const c of claims[i]!) await queue.fail(c.urlSha256, owner, { status: 'REFUSED', errorCode: 'TEST', errorMessage: 'done', retryAt: null });
    }
  });

  it('gives a dead worker\'s source to another once its lease runs out, and ignores the dead one\'s late outcome', async () => {
    const url = 'https://img.example/killed.png';
    await queue.enqueue([url], { eager: true });
    const [dead] = await queue.claim('killed-instance', 10, LEASE_MS);
    expect(dead?.url).toBe(url);
    // still leased: nobody else gets it
    expect(await queue.claim('survivor', 10, LEASE_MS)).toEqual([]);
    // kill -9: the lease is never released; time passes
    await t.db.sql.query(`UPDATE media_sources SET lease_expires_at = now() - interval '1 second' WHERE url_sha256 = $1`, [urlSha256(url)]);
    const [taken] = await queue.claim('survivor', 10, LEASE_MS);
    expect(taken).toMatchObject({ url, eager: true, status: 'PENDING' });
    expect(await queue.fail(dead!.urlSha256, 'killed-instance', { status: 'REFUSED', errorCode: 'LATE', errorMessage: 'late', retryAt: null })).toBe(false);
    expect(await queue.fail(taken!.urlSha256, 'survivor', { status: 'PENDING', errorCode: 'TIMEOUT', errorMessage: 'retry', retryAt: new Date(Date.now() + 60_000) })).toBe(true);
    expect(await row(url)).toMatchObject({ status: 'PENDING', error_code: 'TIMEOUT', attempts: 1, lease_owner: null, due: true });
    // not due before its retry time
    expect(await queue.claim('survivor', 10, LEASE_MS)).toEqual([]);
  });

  it('queues a source named again while it is read once more after, and a refresh fetches a refused one again', async () => {
    const url = 'https://img.example/named-twice.png';
    await queue.enqueue([url], { eager: false });
    const [c] = await queue.claim('w', 10, LEASE_MS);
    await queue.enqueue([url], { eager: false, refresh: true });
    await queue.fail(c!.urlSha256, 'w', { status: 'REFUSED', errorCode: 'HTTP_STATUS', errorMessage: '404', retryAt: null });
    // the refresh that came in while it was read keeps it due
    expect(await row(url)).toMatchObject({ status: 'REFUSED', due: true });
    await drain('w');
    expect(await row(url)).toMatchObject({ status: 'REFUSED', due: false });
    await queue.enqueue([url], { eager: false });
    expect(await row(url)).toMatchObject({ status: 'REFUSED', due: false });
    await queue.enqueue([url], { eager: false, refresh: true });
    expect(await row(url)).toMatchObject({ status: 'PENDING', due: true, attempts: 0 });
    await drain('w');
  });

  it('discovers collections\' logos and banners as eager sources, skipping our own media URLs', async () => {
    const sha = 'cd'.repeat(32);
    const p = t.db.prisma;
    await p.collection.create({ data: { address: '0x' + '11'.repeat(20), owner: '0x' + '11'.repeat(20), type: 'ERC721', name: 'a', logoURI: 'https://img.example/logo-a.png', bannerURI: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/banner.png' } });
    await p.collection.create({ data: { address: '0x' + '22'.repeat(20), owner: '0x' + '22'.repeat(20), type: 'ERC721', name: 'b', logoURI: `https://cdn.example.com/media/${sha}/w256`, bannerURI: `/media/${sha}/w1024` } });
    await p.collection.create({ data: { address: '0x' + '33'.repeat(20), owner: '0x' + '33'.repeat(20), type: 'ERC721', name: 'c', logoURI: 'https://img.example/logo-a.png', bannerURI: '  ' } });
    expect(await queue.discoverCollectionImages('https://cdn.example.com')).toBe(2);
    const claimed = await queue.claim('d', 10, LEASE_MS);
    expect(claimed.map((c) => [c.url, c.eager]).sort()).toEqual([
      ['https://img.example/logo-a.png', true],
      ['ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/banner.png', true],
    ]);
    for (const c of claimed) await queue.fail(c.urlSha256, 'd', { status: 'REFUSED', errorCode: 'TEST', errorMessage: 'x', retryAt: null });
    // a second pass finds nothing new
    expect(await queue.discoverCollectionImages('https://cdn.example.com')).toBe(0);
  });

  it('makes a stored token image due again when it becomes a logo (its other variants are wanted)', async () => {
    const url = 'https://img.example/token-then-logo.png';
    await queue.enqueue([url], { eager: false });
    const [c] = await queue.claim('w', 1, LEASE_MS);
    const sha = 'ef'.repeat(32);
    await t.db.sql.query(`INSERT INTO media (sha256, mime_type, width, height, byte_size, source) VALUES ($1, 'image/png', 1, 1, 1, '\\x00')`, [sha]);
    await t.db.sql.query(`UPDATE media_sources SET status = 'STORED', sha256 = $2, lease_owner = NULL WHERE url_sha256 = $1`, [c!.urlSha256, sha]);
    await queue.enqueue([url], { eager: false });
    expect(await row(url)).toMatchObject({ status: 'STORED', eager: false, due: false });
    await queue.enqueue([url], { eager: true });
    expect(await row(url)).toMatchObject({ status: 'STORED', eager: true, due: true, sha256: sha });
    const [again] = await queue.claim('w', 1, LEASE_MS);
    expect(again).toMatchObject({ url, status: 'STORED', sha256: sha, eager: true });
  });
});
