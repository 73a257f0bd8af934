// prebench:peer: PostGraphile (the peer bench's comparison server) lives in its own small
// package under bench/peer, out of the main install: it declares Node >= 22 and is only needed
// by `npm run bench:peer`. Install it once, from its lock file.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (!existsSync(new URL('../bench/peer/node_modules/postgraphile', import.meta.url))) {
  const r = spawnSync('npm', ['ci', '--prefix', 'bench/peer', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
