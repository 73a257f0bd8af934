// pretest: the original v1 client (@looksrare/sdk with its own ethers 5) lives in its own small
// package under test/sdk-client; install it once so `npm test` works on a fresh clone.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (!existsSync(new URL('../test/sdk-client/node_modules/@looksrare/sdk', import.meta.url))) {
  const r = spawnSync('npm', ['ci', '--prefix', 'test/sdk-client', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
