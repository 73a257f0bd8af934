// The per-request statement batch: calls of one tick go as one statement with renumbered
// parameters, each caller gets its own rows in its own order, and one failing query fails only
// its own caller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combineStatements, createStatementBatch } from '../../src/db/statement-batch.js';
import { openTestDatabase, type TestDatabase, backendName } from '../helpers/test-database.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase({ migrate: false });
});
afterAll(() => t?.close());

describe(`statement batch (${backendName})`, () => {
  it('renumbers parameters of every query after the first', () => {
    const c = combineStatements([
      { text: 'SELECT $1::int AS a, $2::text AS b', values: [1, 'x'] },
      { text: 'SELECT $1::int + $2::int AS s', values: [2, 3] },
    ]);
    expect(c.text).toContain('SELECT $3::int + $4::int AS s');
    expect(c.values).toEqual([1, 'x', 2, 3]);
  });

  it('sends the calls of one tick as one statement and answers each caller in order', async () => {
    const batch = createStatementBatch(t.db.sql);
    t.statements.length = 0;
    const [a, b, c] = await Promise.all([
      batch.query('SELECT g AS n, ($1::numeric * g)::text AS big FROM generate_series(5, 1, -1) g ORDER BY g DESC', ['123456789012345678901234567890']),
      batch.query('SELECT $1::text AS s', ['hello']),
      batch.query('SELECT 1 AS n WHERE false'),
    ]);
    expect(t.statements).toHaveLength(1);
    expect(a).toEqual([5, 4, 3, 2, 1].map((n) => ({ n, big: (123456789012345678901234567890n * BigInt(n)).toString() })));
    expect(b).toEqual([{ s: 'hello' }]);
    expect(c).toEqual([]);
  });

  it('sends a lone call unchanged', async () => {
    const batch = createStatementBatch(t.db.sql);
    t.statements.length = 0;
    expect(await batch.query('SELECT $1::int AS n', [7])).toEqual([{ n: 7 }]);
    expect(t.statements).toEqual(['SELECT $1::int AS n']);
  });

  it('fails only the caller whose query fails', async () => {
    const batch = createStatementBatch(t.db.sql);
    const [good, bad] = await Promise.allSettled([batch.query('SELECT 2 AS n'), batch.query('SELECT * FROM no_such_table')]);
    expect(good).toEqual({ status: 'fulfilled', value: [{ n: 2 }] });
    expect(bad.status).toBe('rejected');
  });
});
