// The embedded database on its own thread (src/db/pglite-thread.ts) answers as the in-process
// PGlite does: the same rows and types, the same errors (PGlite's DatabaseError, which Prisma's
// adapter recognises), transactions that commit and roll back, statements one at a time, and a
// clean close. The held Parse/Bind messages must not move or lose an error.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, PGlite } from '@electric-sql/pglite';
import { PGliteThread } from '../../src/db/pglite-thread.js';
import { compilePgliteWasm, PGLITE_SETTINGS, startPgliteThread } from '../../src/db/pglite-thread-start.js';

const root = mkdtempSync(path.join(tmpdir(), 'mkt-pglite-thread-'));
let thread: PGliteThread;
let local: PGlite;

beforeAll(async () => {
  thread = new PGliteThread(startPgliteThread(path.join(root, 'db')));
  local = new PGlite({ startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  await Promise.all([thread.waitReady, local.waitReady]);
  for (const db of [thread, local]) await db.exec('CREATE TABLE t (id int PRIMARY KEY, big int8, at timestamptz, doc jsonb, raw bytea, tags text[], n numeric)');
}, 60_000);

afterAll(async () => {
  await thread?.close();
  await local?.close();
  rmSync(root, { recursive: true, force: true });
});

const both = async <T>(fn: (db: PGlite) => Promise<T>): Promise<[T, T]> => [await fn(thread as unknown as PGlite), await fn(local)];

describe('PGliteThread', () => {
  it('returns the rows, types and counts the in-process PGlite returns', async () => {
    const insert = (db: PGlite) =>
      db.query('INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7), (2, 9007199254740993, now(), null, null, null, 1.5) RETURNING id', [
        1,
        12n,
        new Date('2026-01-02T03:04:05.678Z'),
        { a: [1, 'x'] },
        new Uint8Array([0, 255, 7]),
        ['a', 'b"c'],
        '123456789012345678901234567890.5',
      ]);
    const [a, b] = await both(insert);
    expect(a.affectedRows).toBe(b.affectedRows);
    const select = (db: PGlite) => db.query('SELECT id, big, doc, raw, tags, n, at = at AS same FROM t WHERE id = 1 OR big > $1 ORDER BY id', [1n]);
    const [x, y] = await both(select);
    expect(x.rows).toEqual(y.rows);
    expect(x.fields).toEqual(y.fields);
    expect(x.rows[1]).toMatchObject({ id: 2, big: 9007199254740993n });
    const [ax, ay] = await both((db) => db.query('SELECT id FROM t', [], { rowMode: 'array' }));
    expect(ax.rows).toEqual(ay.rows);
    const [ex, ey] = await both((db) => db.exec('SELECT 1 AS one; SELECT 2 AS two'));
    expect(ex.map((r) => r.rows)).toEqual(ey.map((r) => r.rows));
  });

  it('throws PGlite DatabaseErrors, wherever in the statement they arise, and goes on after them', async () => {
    const cases = [
      'SELEC 1', // Parse (held, reported with Describe)
      'SELECT * FROM missing', // Parse
    ];
    for (const sql of cases) {
      const errs = await both((db) => db.query(sql).then(() => null, (e: unknown) => e));
      for (const e of errs) expect(e).toBeInstanceOf(messages.DatabaseError);
      expect((errs[0] as { code: string }).code).toBe((errs[1] as { code: string }).code);
    }
    // Bind (held, reported with Execute): a value the parameter's type refuses
    const bind = await both((db) => db.query('SELECT $1::int AS v', ['not a number']).then(() => null, (e: { code?: string }) => e.code));
    expect(bind[0]).toBe(bind[1]);
    expect(bind[0]).toBe('22P02');
    // Execute: a constraint
    const dup = await both((db) => db.query('INSERT INTO t (id) VALUES (1)').then(() => null, (e: { code?: string }) => e.code));
    expect(dup).toEqual(['23505', '23505']);
    const after = await both((db) => db.query<{ n: number }>('SELECT count(*)::int AS n FROM t'));
    expect(after[0].rows).toEqual(after[1].rows);
  });

  it('commits and rolls back transactions', async () => {
    await thread.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (10)');
    });
    await thread
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (11)');
        throw new Error('changed my mind');
      })
      .catch(() => {});
    await thread.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (12)');
      await tx.rollback();
    });
    const { rows } = await thread.query<{ id: number }>('SELECT id FROM t WHERE id >= 10 ORDER BY id');
    expect(rows).toEqual([{ id: 10 }]);
  });

  it('runs concurrent statements one at a time, each with its own answer', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => thread.query<{ v: number }>('SELECT $1::int * 2 AS v', [i])));
    expect(answers.map((a) => a.rows[0]!.v)).toEqual(Array.from({ length: 200 }, (_, i) => i * 2));
  });

  it('closes cleanly and refuses statements after, and the data is there on reopening', async () => {
    const dir = path.join(root, 'reopen');
    const first = new PGliteThread(startPgliteThread(dir));
    await first.waitReady;
    await first.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$still here$$)');
    await first.close();
    expect(first.closed).toBe(true);
    await expect(first.query('SELECT 1')).rejects.toThrow(/closed/);
    const again = new PGliteThread(startPgliteThread(dir));
    await again.waitReady;
    expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 'still here' }]);
    await again.close();
  }, 60_000);

  it('fails what waits on a thread that died, and everything after', async () => {
    const started = startPgliteThread(path.join(root, 'dies'));
    const dying = new PGliteThread(started);
    await dying.waitReady;
    const pending = dying.query('SELECT pg_sleep(0.5)');
    await started.worker.terminate();
    await expect(pending).rejects.toThrow(/exited/);
    await expect(dying.query('SELECT 1')).rejects.toThrow(/exited/);
  }, 60_000);

  it('opens with the WASM compiled by the starting thread, and with its own when it is handed none', async () => {
    expect(WebAssembly.Module.exports(compilePgliteWasm()).map((e) => e.name)).toContain('PostgresMainLoopOnce');
    // what startPgliteThread sends when it cannot read or compile the WASM: PGlite loads its own
    const own = new PGliteThread(startPgliteThread(path.join(root, 'own-wasm'), null));
    await own.waitReady;
    expect((await own.query<{ n: number[] }>('SELECT ARRAY[1, 2] AS n')).rows).toEqual([{ n: [1, 2] }]);
    await own.close();
  }, 60_000);

  it('reports a database that does not open', async () => {
    const started = startPgliteThread('/proc/not-a-place-for-a-database');
    await expect(new PGliteThread(started).waitReady).rejects.toThrow();
  }, 30_000);
});
