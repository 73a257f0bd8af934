// One process per embedded data directory: while the server has it open a second
// process (a CLI) is refused with a clear message, and the lock of a process killed with -9 does
// not block anyone.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock.js';
import { openDatabase } from '../../src/db/database.js';

const run = promisify(execFile);
const root = mkdtempSync(path.join(tmpdir(), 'mkt-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const tryOpenInChild = (dataDir: string) =>
  run(process.execPath, ['--import', 'tsx', 'test/helpers/lock-child.ts', dataDir, 'open']).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e) => ({ code: e.code as number, out: e.stdout as string }),
  );

describe('embedded data directory lock', () => {
  it('refuses a second process while the database is open, and lets it in after close', async () => {
    const dataDir = path.join(root, 'a');
    const db = await openDatabase({ dataDir });
    const refused = await tryOpenInChild(dataDir);
    expect(refused.code).toBe(3);
    expect(refused.out).toContain(`is in use by process ${process.pid}`);
    expect(refused.out).toContain('stop it first');
    await db.close();
    const ok = await tryOpenInChild(dataDir);
    expect(ok.out).toContain('opened');
  });

  it('is re-entrant in one process and released by the last holder', () => {
    const dataDir = path.join(root, 'b');
    const r1 = lockDataDir(dataDir);
    const r2 = lockDataDir(dataDir);
    r1();
    r1(); // idempotent
    r2();
    const r3 = lockDataDir(dataDir);
    r3();
  });

  it('clears after the holder is killed with -9', async () => {
    const dataDir = path.join(root, 'c');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/lock-child.ts', dataDir, 'hold'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('holding') && resolve());
      child.once('exit', () => reject(new Error('child exited')));
    });
    expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const db = await openDatabase({ dataDir });
    await db.close();
  });
});
