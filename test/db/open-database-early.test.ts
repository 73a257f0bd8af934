// The server's first moment starts a restart's embedded database from the environment alone, and
// boot() takes over a database that works like any other; anything else is left to boot().
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { embeddedDatabaseDir } from '../../src/db/embedded-dir.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabaseEarly, startDatabaseEarly } from '../../src/db/open-database-early.js';
import { createLogger } from '../../src/logger.js';
import { silentSteps } from '../../src/startup-steps.js';

const root = mkdtempSync(path.join(tmpdir(), 'mkt-early-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const logger = createLogger('silent');

describe('startDatabaseEarly', () => {
  it('starts nothing for PostgreSQL, memory, or a first start (no database folder yet)', () => {
    expect(startDatabaseEarly({ DATABASE_URL: 'postgresql://u@h/db' })).toEqual({});
    expect(startDatabaseEarly({ DATA_DIR: 'memory' })).toEqual({});
    expect(startDatabaseEarly({ DATA_DIR: path.join(root, 'first') })).toEqual({});
  });

  it('starts a restart on its thread, and boot gets a working database that closes and unlocks', async () => {
    const dataDir = path.join(root, 'restart');
    mkdirSync(embeddedDatabaseDir(dataDir), { recursive: true });
    const env = { DATA_DIR: dataDir };
    const early = startDatabaseEarly(env);
    expect(early.embedded?.dataDir).toBe(dataDir);
    const db = await openDatabaseEarly(loadConfig(env), logger, silentSteps, early)!;
    expect(db.kind).toBe('pglite');
    // handed over while PostgreSQL still boots on its thread: statements wait for it
    expect(db.ready).toBeInstanceOf(Promise);
    await migrate(db.sql);
    await db.ready;
    expect(await db.prisma.collection.count()).toBe(0);
    await db.close();
    // closed and unlocked: the same folder opens again
    const again = await openDatabaseEarly(loadConfig(env), logger, silentSteps, startDatabaseEarly(env))!;
    expect(await again.prisma.collection.count()).toBe(0);
    await again.close();
  }, 60_000);

  it('rejects `ready` when the database on disk does not open, and boot() fails with it', async () => {
    const dataDir = path.join(root, 'broken');
    mkdirSync(embeddedDatabaseDir(dataDir), { recursive: true });
    writeFileSync(path.join(embeddedDatabaseDir(dataDir), 'PG_VERSION'), '9\n');
    const env = { DATA_DIR: dataDir };
    const db = await openDatabaseEarly(loadConfig(env), logger, silentSteps, startDatabaseEarly(env))!;
    await expect(db.ready).rejects.toThrow();
    const { boot } = await import('../../src/app.js');
    await expect(boot(loadConfig(env), logger, { opening: Promise.resolve(db), indexer: false })).rejects.toThrow();
  }, 60_000);

  it('hands a failure of the first moment to boot, which reports it', async () => {
    const failure = new Error('in use by process 1');
    await expect(openDatabaseEarly(loadConfig({}), logger, silentSteps, { error: failure })!).rejects.toBe(failure);
  });
});
