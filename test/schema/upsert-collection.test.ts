// The admin mutation: enabled only with ADMIN_API_KEY, guarded by x-api-key, validating every
// field of spec 2.6; and the JSON import path through the same service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const KEY = 'admin-key-0123456789abcdef';
const ADDRESS = '0x' + 'ab'.repeat(20);
const UPSERT = `mutation($input: UpsertCollectionInput!) {
  upsertCollection(input: $input) { created collection { address name symbol type isVerified websiteLink alphaLink foxtrotLink owner setter } }
}`;

let app: TestApp;
let disabled: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ADMIN_API_KEY: KEY });
  disabled = await startTestApp();
});
afterAll(async () => {
  await app?.close();
  await disabled?.close();
});

describe(`upsertCollection (${backendName})`, () => {
  it('is disabled (403, ADMIN_DISABLED) when ADMIN_API_KEY is not set', async () => {
    const r = await disabled.gql(UPSERT, { input: { address: ADDRESS, type: 'ERC721' } }, { 'x-api-key': KEY });
    expect(r.errors?.[0]?.extensions?.code).toBe('ADMIN_DISABLED');
    expect(r.status).toBe(403);
  });

  it('needs the x-api-key header (401) and the right key (403)', async () => {
    const none = await app.gql(UPSERT, { input: { address: ADDRESS, type: 'ERC721' } });
    expect(none.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(none.status).toBe(401);
    const wrong = await app.gql(UPSERT, { input: { address: ADDRESS, type: 'ERC721' } }, { 'x-api-key': `${KEY}x` });
    expect(wrong.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(wrong.status).toBe(403);
    expect(await app.db.prisma.collection.count()).toBe(0);
  });

  it('creates with address and type, normalising the address, then updates only the given fields', async () => {
    const created = await app.gql(
      UPSERT,
      { input: { address: ADDRESS.toUpperCase().replace('0X', '0x'), type: 'ERC721', name: 'Alpha', symbol: 'ALP', websiteLink: 'https://a.example', alphaLink: 'https://x.example/a' } },
      { 'x-api-key': KEY },
    );
    expect(created.errors).toBeUndefined();
    const c = (created.data as any).upsertCollection;
    expect(c.created).toBe(true);
    expect(c.collection.address).toBe('0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB');
    expect(c.collection.owner).toBe('0x0000000000000000000000000000000000000000');
    const updated = await app.gql(UPSERT, { input: { address: ADDRESS, isVerified: true, alphaLink: null } }, { 'x-api-key': KEY });
    const u = (updated.data as any).upsertCollection;
    expect(u.created).toBe(false);
    expect(u.collection).toMatchObject({ name: 'Alpha', symbol: 'ALP', isVerified: true, alphaLink: null, websiteLink: 'https://a.example', type: 'ERC721' });
    const rest = await app.rest(`/api/v1/collections?address=${ADDRESS}`);
    expect(rest.body.data).toMatchObject({ name: 'Alpha', isVerified: true, alphaLink: null });
  });

  it('refuses a create without type and bad fields, listing every problem, writing nothing', async () => {
    const other = '0x' + 'cd'.repeat(20);
    const noType = await app.gql(UPSERT, { input: { address: other } }, { 'x-api-key': KEY });
    expect(noType.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    const bad = await app.gql(UPSERT, { input: { address: other, type: 'ERC1155', websiteLink: 'javascript:alert(1)', logoURI: 'not a url', name: 'x'.repeat(201) } }, { 'x-api-key': KEY });
    const problems = bad.errors?.[0]?.extensions?.problems as { field: string }[];
    expect(problems.map((p) => p.field).sort()).toEqual(['logoURI', 'name', 'websiteLink']);
    expect(await app.db.prisma.collection.findUnique({ where: { address: '0xCDcDCDcdCdCDcdcDCDcDCdCDCDcDcdCDCdCdCdcd' } })).toBeNull();
  });

  it('imports a JSON list atomically: one bad entry and nothing is written', async () => {
    const a = '0x' + '11'.repeat(20);
    const b = '0x' + '22'.repeat(20);
    await expect(app.services.collections.importCollections([{ address: a, type: 'ERC721' }, { address: b, type: 'ERC999' }])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await app.db.prisma.collection.count({ where: { address: { in: [a, b].map((x) => x.toLowerCase()) } } })).toBe(0);
    const r = await app.services.collections.importCollections([{ address: a, type: 'ERC721', name: 'A' }, { address: b, type: 'ERC1155' }, { address: ADDRESS, name: 'Renamed' }]);
    expect(r).toEqual({ created: 2, updated: 1 });
  });
});
