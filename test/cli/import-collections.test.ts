// The collections import command, run as an operator would: a JSON file into the configured
// database, whole or not at all, with the problems printed.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'mkt-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function importFile(entries: unknown) {
  const file = path.join(dir, `c-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify(entries));
  const env = { ...process.env, DATA_DIR: dir, SEED: '0', LOG_LEVEL: 'silent', DATABASE_URL: '' };
  return run(process.execPath, ['--import', 'tsx', 'src/cli/import-collections.ts', file], { env }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

describe('npm run collections:import', () => {
  it('imports a valid file and refuses an invalid one without writing anything', async () => {
    const ok = await importFile([
      { address: '0x' + '31'.repeat(20), type: 'ERC721', name: 'One', isVerified: true },
      { address: '0x' + '32'.repeat(20), type: 'ERC1155' },
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('2 created, 0 updated');
    const bad = await importFile([{ address: '0x' + '33'.repeat(20), type: 'ERC721' }, { address: 'nope' }]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('[1].address');
    const db = await openDatabase({ dataDir: dir });
    try {
      expect(await db.prisma.collection.count()).toBe(2);
    } finally {
      await db.close();
    }
  });
});
