// The statement splitter of migrations that run outside a transaction and of the migration lint:
// a `;` ends a statement only where PostgreSQL's lexer would end it, and every migration cut into
// statements and run one by one builds the same schema as the whole files.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { readMigrations, readRepeatables } from '../../src/db/migrate.js';
import { PGLITE_EXTENSIONS, wrapPglite } from '../../src/db/pglite-database.js';
import { splitSqlStatements } from '../../src/db/split-sql-statements.js';
import { backendName, createPostgresDatabase, openTestDatabase, TEST_DATABASE_URL } from '../helpers/test-database.js';

const texts = (sql: string) => splitSqlStatements(sql).map((s) => s.text);

describe('splitSqlStatements', () => {
  it('ends a statement at a semicolon outside quotes, dollar quotes and comments', () => {
    expect(texts(`SELECT 1; SELECT 'a;b', "c;d" FROM t;`)).toEqual(['SELECT 1', `SELECT 'a;b', "c;d" FROM t`]);
    expect(texts(`SELECT 'it''s; here'; SELECT E'\\'; still'; SELECT 2`)).toEqual([`SELECT 'it''s; here'`, `SELECT E'\\'; still'`, 'SELECT 2']);
    expect(texts(`CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql; SELECT 3`)).toEqual([
      'CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql',
      'SELECT 3',
    ]);
    expect(texts(`DO $body$ BEGIN PERFORM $$;$$; END $body$; SELECT $1::int; SELECT a$b FROM t`)).toEqual([
      'DO $body$ BEGIN PERFORM $$;$$; END $body$',
      'SELECT $1::int',
      'SELECT a$b FROM t',
    ]);
    expect(texts(`-- a; comment\nSELECT 4 /* a ; /* nested; */ still ; */ ; -- trailing;\n`)).toEqual([
      `-- a; comment\nSELECT 4 /* a ; /* nested; */ still ; */`,
    ]);
  });

  it('gives each statement without its comments, whitespace made single spaces', () => {
    const [s] = splitSqlStatements(`-- why\nCREATE INDEX CONCURRENTLY\n  "x" /* the name */ ON "orders" ("a", 'b;');`);
    expect(s!.code).toBe(`CREATE INDEX CONCURRENTLY "x" ON "orders" ("a", 'b;')`);
    expect(splitSqlStatements('-- only a comment;\n  ;\n')).toEqual([]);
  });
});

let empty: { db: Database; close(): Promise<void> } | undefined;
afterAll(() => empty?.close());

describe(`every migration, statement by statement (${backendName})`, () => {
  it('builds the same schema as the whole files', async () => {
    if (TEST_DATABASE_URL) {
      const created = await createPostgresDatabase();
      const db = await openDatabase({ databaseUrl: created.url, poolSize: 2 });
      empty = { db, close: async () => (await db.close(), await created.drop()) };
    } else {
      const db = wrapPglite(new PGlite({ extensions: PGLITE_EXTENSIONS }), 'split test PGlite');
      empty = { db, close: () => db.close() };
    }
    await empty.db.sql.withSession(async (session) => {
      for (const m of readMigrations()) {
        await session.exec('BEGIN');
        for (const s of splitSqlStatements(m.sql)) await session.exec(s.text);
        await session.exec('COMMIT');
      }
      for (const r of readRepeatables()) await session.exec(r.sql);
    });
    const whole = await openTestDatabase();
    try {
      expect(await schemaOf(empty.db)).toEqual(await schemaOf(whole.db));
    } finally {
      await whole.close();
    }
  });
});

/** Tables, columns, indexes, constraints, triggers and functions, as text (the bookkeeping left out). */
async function schemaOf(db: Database): Promise<string[]> {
  const rows = await db.sql.query<{ line: string }>(`
    SELECT format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, column_default) AS line
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE '\\_%'
    UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT LIKE '\\_%'
    UNION ALL SELECT format('constraint %s %s', conname, pg_get_constraintdef(c.oid)) FROM pg_constraint c
      JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public' AND conrelid::regclass::text NOT LIKE '\\_%'
    UNION ALL SELECT format('trigger %s %s', tgname, pg_get_triggerdef(t.oid)) FROM pg_trigger t WHERE NOT tgisinternal
    UNION ALL SELECT format('function %s %s', p.oid::regprocedure, md5(p.prosrc)) FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.prolang <> (SELECT oid FROM pg_language WHERE lanname = 'c')
    ORDER BY 1`);
  return rows.map((r) => r.line);
}
