// `npm start` and the operator commands: runs an entry of dist/ (scripts/build.mjs) with plain
// Node, no TypeScript compiled at run time. If a source file is newer than the build (someone
// edited src/ after `npm install`), the build is redone first (esbuild, well under a second)
// and the demo template, which may no longer match the sources, is dropped: the next first
// start then seeds the demo itself. `npm run build` rebuilds both.
//   node scripts/run-built.mjs <entry> [args...]
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureDistCurrent } from './ensure-dist-current.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-built.mjs <entry> [args...]');
  process.exit(2);
}

const rebuilt = await ensureDistCurrent();
if (rebuilt) {
  console.error(JSON.stringify({ level: 30, time: new Date().toISOString(), step: 'build', ms: rebuilt.ms, msg: `startup: rebuilt dist/ (${rebuilt.why})` }));
}
// Node >= 22.1 keeps V8's compiled code of dist/ between runs (in the OS temp folder): about a
// tenth less CPU to load the service's modules, measured on Node 24. Node 20 has no such cache.
module.enableCompileCache?.();
process.argv = [process.argv[0], path.join(root, 'dist', `${entry}.js`), ...args];
await import(pathToFileURL(path.join(root, 'dist', `${entry}.js`)).href);
