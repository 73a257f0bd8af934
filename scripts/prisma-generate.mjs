// postinstall: `prisma generate` that also works offline.
// Prisma 7's CLI tries to download its native schema engine before any command, which fails on a
// machine that cannot reach Prisma's binary host. `generate` never uses that engine (client and
// DMMF generation are WASM), so when the variable is unset we point it at an existing file for
// this child process only; a machine with full internet access is unaffected by it otherwise.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;

const result = spawnSync(path.join(bin, 'prisma'), ['generate'], { cwd: root, env, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('prisma generate failed');
  process.exit(result.status ?? 1);
}
