// U+0000 in any GraphQL string input is the client's mistake, refused before anything runs with
// BAD_REQUEST (400) naming where it was (PostgreSQL cannot store it: the write used to fail there
// as INTERNAL); and every response carries X-Request-Id, including pages and 404s that a later
// plugin answers or replaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNulCharacter } from '../../src/domain/nul-character.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const KEY = 'admin-key-0123456789abcdef';
const ADDRESS = '0x' + 'ac'.repeat(20);
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ADMIN_API_KEY: KEY });
});
afterAll(() => app?.close());

describe(`string inputs with U+0000 and the request id (${backendName})`, () => {
  it('names the first string holding U+0000', () => {
    expect(findNulCharacter({ input: { name: 'ok', links: ['a', 'b\u0000'] } }, '')).toBe('input.links[1]');
    expect(findNulCharacter({ a: 'x' }, '')).toBeNull();
  });

  it('refuses it in variables and in literals with BAD_REQUEST naming the field, and writes nothing', async () => {
    const byVariable = await app.gql(`mutation($input: UpsertCollectionInput!) { upsertCollection(input: $input) { created } }`, { input: { address: ADDRESS, type: 'ERC721', name: 'a\u0000b' } }, { 'x-api-key': KEY });
    expect(byVariable.status).toBe(400);
    expect(byVariable.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', problems: [{ field: 'input.name', code: 'INVALID_STRING' }] });
    const byLiteral = await app.gql(`mutation { upsertCollection(input: { address: "${ADDRESS}", type: ERC721, name: "a\\u0000b" }) { created } }`, {}, { 'x-api-key': KEY });
    expect(byLiteral.status).toBe(400);
    expect(byLiteral.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', problems: [{ field: 'input.name' }] });
    expect(await app.db.prisma.collection.count({ where: { address: { equals: ADDRESS, mode: 'insensitive' } } })).toBe(0);
    // the same input without it is written
    const fine = await app.gql(`mutation($input: UpsertCollectionInput!) { upsertCollection(input: $input) { created } }`, { input: { address: ADDRESS, type: 'ERC721', name: 'ab' } }, { 'x-api-key': KEY });
    expect(fine.errors).toBeUndefined();
  });

  it('puts X-Request-Id on a 404, on GraphiQL and on an API answer', async () => {
    for (const [path, init] of [
      ['/no-such-page', {}],
      ['/graphql', { headers: { accept: 'text/html' } }],
      ['/api/v1/collections?address=0x0000000000000000000000000000000000000001', {}],
    ] as const) {
      const r = await app.rest(path, init);
      expect(r.headers.get('x-request-id'), path).toMatch(/^[\w-]{8,}$/);
    }
    const mine = await app.rest('/no-such-page', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(mine.status).toBe(404);
    expect(mine.headers.get('x-request-id')).toBe('trace-abc-123');
  });
});
