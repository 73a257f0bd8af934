// Is dist/ (scripts/build.mjs) older than the sources? `npm start` (scripts/run-built.mjs), the
// cluster launcher and the test suite's global setup all run the build, so each first makes sure
// it is current. Rebuilding drops the demo template: it may no longer match the sources, and the
// next first start then seeds the demo itself (`npm run build` rebuilds both).
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    newest = Math.max(newest, d.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Why dist/ must be rebuilt ('no build yet', 'sources changed since the last build'), or null. */
export function distStaleReason() {
  const stamp = path.join(root, 'dist', 'build-stamp.json');
  const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  const sourcesAt = Math.max(newestMtime(path.join(root, 'src')), statSync(path.join(root, 'package.json')).mtimeMs);
  if (sourcesAt <= builtAt) return null;
  return builtAt ? 'sources changed since the last build' : 'no build yet';
}

/** Rebuilds dist/ when it is stale; says why and how long it took, or null when it was current. */
export async function ensureDistCurrent() {
  const why = distStaleReason();
  if (!why) return null;
  // esbuild loads only when there is something to build: a current start never pays for it.
  const { buildDist } = await import('./build.mjs');
  const ms = await buildDist({ quiet: true });
  rmSync(path.join(root, 'dist', 'demo-template'), { recursive: true, force: true });
  return { why, ms };
}
