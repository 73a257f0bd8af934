// New migrations keep the rules that let them run while the previous release serves
// (src/db/migration-lint.ts, docs/operations.md#writing-a-migration); each rule refuses what it
// should and lets the way around it through.
import { describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.js';
import { GRANDFATHERED_THROUGH, lintMigration, type MigrationProblemCode } from '../../src/db/migration-lint.js';

const codes = (sql: string) => lintMigration({ name: '29990101000000_case', sql }).map((p) => p.code);

describe('migration lint', () => {
  it('every migration after the grandfathered ones keeps the rules', () => {
    const checked = readMigrations().filter((m) => m.name > GRANDFATHERED_THROUGH);
    expect(checked.flatMap(lintMigration).map((p) => `${p.migration} statement ${p.statement}: ${p.code}: ${p.message}`)).toEqual([]);
  });

  it('grandfathers only the migrations written before the rules, not one dated back among them', () => {
    // 27 migrations were written for a stopped service; a new one must sort after them
    expect(readMigrations().filter((m) => m.name <= GRANDFATHERED_THROUGH)).toHaveLength(27);
  });

  const cases: [string, string, MigrationProblemCode[]][] = [
    // index builds on large tables
    ['a plain index build on orders', 'CREATE INDEX "orders_x_idx" ON "orders" ("signer");', ['INDEX_BLOCKS_WRITES']],
    ['a plain unique build on public.sales', 'CREATE UNIQUE INDEX sales_x ON public.sales (tx_hash, log_index);', ['INDEX_BLOCKS_WRITES']],
    ['a concurrent build in a transaction', 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_x_idx" ON "orders" ("signer");', ['CONCURRENTLY_IN_TRANSACTION']],
    ['a concurrent build, outside a transaction', '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_x_idx" ON "orders" ("signer");', []],
    ['a concurrent build that cannot run again', '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY "orders_x_idx" ON "orders" ("signer");', ['NOT_RERUNNABLE']],
    ['a concurrent build without a name', '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY ON "orders" ("signer");', ['NOT_RERUNNABLE']],
    ['a plain build on a small table', 'CREATE INDEX "collections_x_idx" ON "collections" ("name");', []],
    ['a plain build on a table made in the same migration', 'CREATE TABLE "orders_archive" (id int);\nCREATE INDEX ON "orders_archive" (id);', []],
    ['a concurrent drop in a transaction', 'DROP INDEX CONCURRENTLY IF EXISTS "orders_x_idx";', ['CONCURRENTLY_IN_TRANSACTION']],
    ['a drop that cannot run again', '-- migrate: no-transaction\nDROP INDEX CONCURRENTLY "orders_x_idx";', ['NOT_RERUNNABLE']],
    ['the words in a comment or a string only', `-- CREATE INDEX ON orders (a);\nCOMMENT ON TABLE "orders" IS 'CREATE INDEX ON orders (a); DROP COLUMN x';`, []],
    // expand and contract
    ['a nullable column', 'ALTER TABLE "orders" ADD COLUMN "note" TEXT;', []],
    ['a required column with a default', `ALTER TABLE "orders" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'api';`, []],
    ['a required column without a default', 'ALTER TABLE "orders" ADD COLUMN "source" TEXT NOT NULL;', ['BREAKS_PREVIOUS_RELEASE']],
    ['dropping a column', 'ALTER TABLE "collections" DROP COLUMN "symbol";', ['BREAKS_PREVIOUS_RELEASE']],
    ['dropping a column, declared a contract step', '-- migrate: contract\nALTER TABLE "collections" DROP COLUMN IF EXISTS "symbol";', []],
    ['renaming a column', 'ALTER TABLE "collections" RENAME COLUMN "symbol" TO "ticker";', ['BREAKS_PREVIOUS_RELEASE']],
    ['changing a type on a small table', 'ALTER TABLE "collections" ALTER COLUMN "name" TYPE VARCHAR(200);', ['BREAKS_PREVIOUS_RELEASE']],
    ['changing a type on orders', 'ALTER TABLE "orders" ALTER COLUMN "params" SET DATA TYPE JSONB USING params::jsonb;', ['BREAKS_PREVIOUS_RELEASE', 'SCAN_UNDER_LOCK']],
    ['requiring a column', 'ALTER TABLE "collections" ALTER COLUMN "symbol" SET NOT NULL;', ['BREAKS_PREVIOUS_RELEASE']],
    ['dropping a default or a NOT NULL, or a constraint', 'ALTER TABLE "collections" ALTER COLUMN "symbol" DROP DEFAULT, ALTER COLUMN "name" DROP NOT NULL, DROP CONSTRAINT "x";', []],
    ['dropping a table or a function', 'DROP TABLE "floor_history";\nDROP FUNCTION submit_order(JSONB);', ['BREAKS_PREVIOUS_RELEASE', 'BREAKS_PREVIOUS_RELEASE']],
    // long locks
    ['a checked constraint on orders', 'ALTER TABLE "orders" ADD CONSTRAINT "orders_price_positive" CHECK ("price" > 0);', ['SCAN_UNDER_LOCK']],
    ['the same, NOT VALID then validated', 'ALTER TABLE "orders" ADD CONSTRAINT "orders_price_positive" CHECK ("price" > 0) NOT VALID;\nALTER TABLE "orders" VALIDATE CONSTRAINT "orders_price_positive";', []],
    ['a unique constraint built under the lock', 'ALTER TABLE "sales" ADD CONSTRAINT "sales_tx_key" UNIQUE ("tx_hash", "log_index");', ['SCAN_UNDER_LOCK']],
    ['a unique constraint on an index built concurrently', 'ALTER TABLE "sales" ADD CONSTRAINT "sales_tx_key" UNIQUE USING INDEX "sales_tx_key";', []],
    ['VACUUM FULL', 'VACUUM FULL "orders";', ['SCAN_UNDER_LOCK']],
    // the statements of a no-transaction migration may run twice
    ['a column that cannot be added twice', '-- migrate: no-transaction\nALTER TABLE "orders" ADD COLUMN "note" TEXT;', ['NOT_RERUNNABLE']],
    ['one that can', '-- migrate: no-transaction\nALTER TABLE "orders" ADD COLUMN IF NOT EXISTS "note" TEXT;', []],
    ['a misspelt directive', '-- migrate: no-transactions\nSELECT 1;', ['UNKNOWN_DIRECTIVE']],
  ];
  for (const [title, sql, expected] of cases) {
    it(`${title}: ${expected.join(', ') || 'passes'}`, () => {
      expect(codes(sql)).toEqual(expected);
    });
  }

  it('flags the old plain builds on orders, which is why they are grandfathered', () => {
    const old = readMigrations().find((m) => m.name === '20261207100000_token_bid_best_index')!;
    expect(lintMigration(old).map((p) => p.code)).toEqual(['INDEX_BLOCKS_WRITES']);
  });
});
