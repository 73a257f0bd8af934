// `npm start` and the operator commands: runs an entry of dist/ (scripts/build.mjs) with plain
// Node, no TypeScript compiled at run time. If a source file is newer than the build (someone
// edited src/ after `npm install`), the build is redone first (esbuild, well under a second)
// and the demo template, which may no longer match the sources, is dropped: the next first
// start then seeds the demo itself. `npm run build` rebuilds both.
//   node scripts/run-built.mjs <entry> [args...]
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-built.mjs <entry> [args...]');
  process.exit(2);
}

function newestMtime(dir) {
  let newest = 0;
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    newest = Math.max(newest, d.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

const stamp = path.join(root, 'dist', 'build-stamp.json');
const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const sourcesAt = Math.max(newestMtime(path.join(root, 'src')), statSync(path.join(root, 'package.json')).mtimeMs);
if (sourcesAt > builtAt) {
  const { buildDist } = await import('./build.mjs');
  const why = builtAt ? 'sources changed since the last build' : 'no build yet';
  const ms = await buildDist({ quiet: true });
  rmSync(path.join(root, 'dist', 'demo-template'), { recursive: true, force: true });
  console.error(JSON.stringify({ level: 30, time: new Date().toISOString(), step: 'build', ms, msg: `startup: rebuilt dist/ (${why})` }));
}
// Node >= 22.1 keeps V8's compiled code of dist/ between runs (in the OS temp folder): about a
// tenth less CPU to load the service's modules, measured on Node 24. Node 20 has no such cache.
module.enableCompileCache?.();
process.argv = [process.argv[0], path.join(root, 'dist', `${entry}.js`), ...args];
await import(pathToFileURL(path.join(root, 'dist', `${entry}.js`)).href);
