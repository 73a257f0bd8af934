// js_number_text (src/db/sql/js_number_text.sql) writes a double as JavaScript does, so the read
// engine's floats (rarity scores, trait ranges, shares) equal the resolvers' JSON byte for byte:
// random doubles of every magnitude, the layout boundaries (1e-7..1e-4, 1e15..1e21), decimals
// PostgreSQL prints with more digits than needed (8.032001059750001e+17), and edge values.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, backendName, type TestDatabase } from '../helpers/test-database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await openTestDatabase();
});
afterAll(() => testDb?.close());

/** Each value's text equals JavaScript's. */
async function check(values: number[]): Promise<void> {
  const rows = await testDb.db.sql.query<{ t: string | null }>(`SELECT js_number_text(v) AS t FROM unnest($1::float8[]) WITH ORDINALITY AS u(v, i) ORDER BY i`, [values]);
  rows.forEach((r, i) => expect(r.t, `${values[i]}`).toBe(JSON.stringify(values[i])));
}

describe(`js_number_text (${backendName})`, () => {
  it('writes the boundaries and edge values as JavaScript does', async () => {
    const edges = [0, -0, 1, -1, 0.1, 1e-4, 9.99e-5, 1e-5, 1.5e-6, 1e-6, 9.9e-7, 1e-7, 1.2345e-7, 1e14, 1e15, 1.5e15, 123456789012345.6, 1e20, 9.99e20, 1e21, 1.5e21,
      Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE, 2 ** 53, 2 ** 53 + 2, -1e-5, -1e15, 33.333333333333336, 0.30000000000000004, 5e-324,
      803200105975000000, -56762991047469180, 9.999999999999999e22, 1.7976931348623157e308];
    await check(edges);
  });
  it('writes random doubles of every magnitude as JavaScript does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 200 }), async (values) => check(values)),
      { numRuns: 30 },
    );
    // and around the layout boundaries, where PostgreSQL and JavaScript differ
    const near = Array.from({ length: 400 }, (_, i) => (Math.random() + 0.5) * 10 ** (i % 2 ? -(3 + (i % 6)) : 14 + (i % 9)) * (i % 3 ? 1 : -1));
    await check(near);
    // decimals of a few digits at every magnitude: where PostgreSQL's own digits are not the fewest
    await check(Array.from({ length: 1000 }, (_, i) => Number((Math.random() * 10 ** ((i % 40) - 15)).toPrecision(1 + (i % 17)))));
  });
  it('answers null for what JSON cannot hold', async () => {
    const rows = await testDb.db.sql.query<{ t: string | null }>(`SELECT js_number_text('NaN'::float8) AS a, js_number_text('Infinity'::float8) AS b, js_number_text(NULL) AS c`);
    expect(rows[0]).toEqual({ a: null, b: null, c: null });
  });
});
