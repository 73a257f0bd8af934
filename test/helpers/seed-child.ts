// A child process that builds the embedded demo in argv[2] the slow way (no template), for the
// kill -9 test: it prints "seeding" once the staging folder exists.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { ensureEmbeddedDemo } from '../../src/demo/demo-data-dir.js';

const dir = process.argv[2]!;
const timer = setInterval(() => {
  if (existsSync(path.join(dir, 'pglite.staging'))) {
    console.log('seeding');
    clearInterval(timer);
  }
}, 20);
await ensureEmbeddedDemo({ dataDir: dir, config: loadConfig({}), now: () => new Date(), templateDir: undefined });
clearInterval(timer);
console.log('done');
