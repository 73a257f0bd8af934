// The folder holding package.json, from the sources (src/, tsx, vitest) and from the single-file
// builds in dist/ alike: import.meta.url differs between the two, so look upwards for it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  let dir = from;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'prisma'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(from, '..');
    dir = up;
  }
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
