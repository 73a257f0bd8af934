// The server's first moment reads the embedded DATA_DIR from the environment without the
// configuration's modules (src/db/open-database-early.ts): it must read it as loadConfig does.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { embeddedDataDirOf } from '../../src/db/embedded-dir.js';

describe('embeddedDataDirOf', () => {
  it('reads DATA_DIR and DATABASE_URL as the configuration does', () => {
    const envs: NodeJS.ProcessEnv[] = [
      {},
      { DATA_DIR: './other' },
      { DATA_DIR: 'memory' },
      { DATA_DIR: ' spaced ' },
      { DATABASE_URL: '' },
      { DATABASE_URL: '   ', DATA_DIR: '/tmp/x' },
      { DATABASE_URL: 'postgresql://u@h/db' },
      { DATABASE_URL: ' postgres://u@h/db ', DATA_DIR: '/tmp/y' },
    ];
    for (const env of envs) {
      const config = loadConfig(env);
      expect(embeddedDataDirOf(env), JSON.stringify(env)).toBe(config.databaseUrl ? null : config.dataDir);
    }
  });
});
