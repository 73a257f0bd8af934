// GraphQL errors: they name the GraphQL argument or variable the client wrote, every one carries
// extensions.code, and the HTTP status follows one rule (docs/api.md, "Errors"): 200 without
// errors, otherwise the highest status of the errors' codes in the code -> status table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ADMIN_API_KEY: 'admin-key-0123456789' });
});
afterAll(() => app?.close());

const ADDRESS = '0x' + 'ab'.repeat(20);

describe(`GraphQL errors (${backendName})`, () => {
  it('name the argument: orders(first: 1000) says first, not pagination[first]', async () => {
    const r = await app.gql('{ orders(first: 1000) { edges { cursor } } }');
    expect(r.status).toBe(400);
    expect(r.errors).toEqual([
      {
        message: 'Invalid argument first: must be a whole number from 1 to 150',
        path: ['orders'],
        extensions: { code: 'BAD_REQUEST', problems: [{ field: 'first', code: 'INVALID_PAGE_SIZE', message: 'must be a whole number from 1 to 150' }] },
      },
    ]);
    const many = await app.gql('{ orders(after: "nope", filter: { price: { min: "5", max: "1" } }) { edges { cursor } } }');
    expect(many.errors![0]!.message).toMatch(/^Invalid arguments: filter.price price\[min\] is above price\[max\]; after must be an order hash/);
    expect((many.errors![0]!.extensions!.problems as { field: string }[]).map((p) => p.field)).toEqual(['filter.price', 'after']);
    const range = await app.gql('{ orders(filter: { price: { min: "5", max: "1" } }) { edges { cursor } } }');
    expect(range.errors![0]!.message).toBe('Invalid argument filter.price: price[min] is above price[max]');
    // the backward page's arguments are arguments too, not filter fields
    const both = await app.gql('{ orders(first: 2, last: 2) { edges { cursor } } }');
    expect(both.errors![0]!.message).toBe('Invalid argument last: give first or last, not both');
    const before = await app.gql('{ orders(last: 2, before: "nope") { edges { cursor } } }');
    expect((before.errors![0]!.extensions!.problems as { field: string }[]).map((p) => p.field)).toEqual(['before']);
  });

  it.each([
    ['a syntax error', '{ orders(', undefined, 'GRAPHQL_PARSE_FAILED', /Syntax Error/],
    ['an unknown field', '{ nope }', undefined, 'GRAPHQL_VALIDATION_FAILED', /Cannot query field "nope"/],
    ['a bad Int variable', 'query($n: Int) { orders(first: $n) { edges { cursor } } }', { n: 'x' }, 'BAD_USER_INPUT', /^Variable "\$n" got invalid value "x"; Int cannot represent/],
    ['a bad scalar variable', 'query($a: Address!) { collection(address: $a) { name } }', { a: 'nope' }, 'BAD_USER_INPUT', /^Variable "\$a" got invalid value "nope"; Invalid Address/],
    ['a missing variable', 'query($a: Address!) { collection(address: $a) { name } }', {}, 'BAD_REQUEST', /Variable "\$a" of required type "Address!" was not provided/],
    ['a bad scalar literal', '{ collection(address: "nope") { name } }', undefined, 'BAD_USER_INPUT', /^Invalid argument address: Invalid Address: expected 0x/],
  ])('%s: 400 with a code and a message naming it', async (_name, query, variables, code, message) => {
    const r = await app.gql(query, variables);
    expect(r.status).toBe(400);
    expect(r.errors).toHaveLength(1);
    expect(r.errors![0]!.extensions!.code).toBe(code);
    expect(r.errors![0]!.message).toMatch(message);
    expect(JSON.stringify(r.errors)).not.toContain('originalError');
  });

  it('a value a scalar refuses names where it was: the argument path of a literal, the variable path of a variable', async () => {
    const literal = await app.gql('{ orders(filter: { collection: "nope", price: { min: "-1" } }) { edges { cursor } } }');
    expect(literal.status).toBe(400);
    expect(literal.errors!.map((e) => [e.message, e.extensions])).toEqual([
      [
        'Invalid argument filter.collection: Invalid Address: expected 0x followed by 40 hexadecimal digits',
        { code: 'BAD_USER_INPUT', problems: [{ field: 'filter.collection', code: 'INVALID_ADDRESS', message: 'expected 0x followed by 40 hexadecimal digits' }] },
      ],
      [
        'Invalid argument filter.price.min: Invalid Uint256: expected a decimal integer string from 0 to 2^256-1',
        { code: 'BAD_USER_INPUT', problems: [{ field: 'filter.price.min', code: 'INVALID_UINT256', message: 'expected a decimal integer string from 0 to 2^256-1' }] },
      ],
    ]);
    expect(literal.errors![0]!.locations).toEqual([{ line: 1, column: 32 }]);
    // the same document again (yoga's parse and validation caches answer): the same errors
    const again = await app.gql('{ orders(filter: { collection: "nope", price: { min: "-1" } }) { edges { cursor } } }');
    expect(again.errors).toEqual(literal.errors);
    const variable = await app.gql('query($f: OrderFilterInput, $h: Hash = "0x1") { orders(filter: $f) { edges { cursor } } order(hash: $h) { hash } }', {
      f: { endTime: 1.5 },
    });
    expect(variable.status).toBe(400);
    expect(variable.errors!.map((e) => e.extensions!.problems)).toEqual([[{ field: '$h', code: 'INVALID_HASH', message: 'expected 0x followed by 64 hexadecimal digits' }]]);
    expect(variable.errors![0]!.message).toBe('Invalid default value of $h: Invalid Hash: expected 0x followed by 64 hexadecimal digits');
    const coerced = await app.gql('query($f: OrderFilterInput) { orders(filter: $f) { edges { cursor } } }', { f: { endTime: 1.5 } });
    expect(coerced.errors!.map((e) => [e.message, e.extensions])).toEqual([
      [
        'Variable "$f" got invalid value 1.5 at "f.endTime"; Invalid UnixTime: expected whole seconds since 1970 (at most 2^53-1)',
        { code: 'BAD_USER_INPUT', problems: [{ field: '$f.endTime', code: 'INVALID_TIMESTAMP', message: 'expected whole seconds since 1970 (at most 2^53-1)' }] },
      ],
    ]);
  });

  it('the highest status wins: an answer with a bad argument is 400 even next to a good field', async () => {
    const r = await app.gql(`{ ok: collection(address: "${ADDRESS}") { name } bad: orders(first: 0) { edges { cursor } } }`);
    expect(r.status).toBe(400);
    expect(r.data).toBeNull(); // orders is non-null, so its error nulls the whole answer
    expect(r.errors!.map((e) => e.extensions!.code)).toEqual(['BAD_REQUEST']);
  });

  it('authorization errors carry their own status (401 without the admin key, 403 with a wrong one)', async () => {
    const mutation = `mutation { upsertCollection(input: { address: "${ADDRESS}", type: ERC721, owner: "${ADDRESS}" }) { created } }`;
    const none = await app.gql(mutation);
    expect(none.status).toBe(401);
    expect(none.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    const wrong = await app.gql(mutation, {}, { 'x-api-key': 'wrong-key-0123456789' });
    expect(wrong.status).toBe(403);
    expect(wrong.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('no errors: 200', async () => {
    const r = await app.gql(`{ collection(address: "${ADDRESS}") { name } }`);
    expect(r.status).toBe(200);
    expect(r.errors).toBeUndefined();
  });
});
