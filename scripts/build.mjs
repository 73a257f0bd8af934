// `npm run build` (also run by postinstall): compiles the TypeScript entry points into dist/ once,
// so `npm start` and the operator commands run plain JavaScript instead of compiling on every
// start. ESM files flat in dist/, with the npm packages bundled in too: a start
// on PostgreSQL then opens about 60 JavaScript/JSON files instead of 1,470 (resolving, reading and
// linking each), which halved its CPU time. Packages stay external (EXTERNAL below) only when they
// find files relative to themselves or are loaded on demand: see the list. The signature
// worker sits next to its pool so the pool's `new URL('./signature-worker.mjs', import.meta.url)`
// finds it from any entry.
// Then prepares the demo database template (scripts/build-demo-template.mjs) unless
// BUILD_DEMO=0. Writes dist/build-stamp.json last: the launcher compares it with the sources.
import { readdirSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/** entry name in dist/ -> source. Keep in sync with scripts/run-built.mjs users in package.json. */
export const ENTRIES = {
  server: 'src/server.ts',
  indexer: 'src/cli/indexer.ts',
  migrate: 'src/cli/migrate.ts',
  seed: 'src/cli/seed.ts',
  'import-collections': 'src/cli/import-collections.ts',
  'import-market-data': 'src/cli/import-market-data.ts',
  'build-demo-template': 'src/cli/build-demo-template.ts',
  'backfill-collection': 'src/cli/backfill-collection.ts',
};

/** npm packages left as imports, resolved from node_modules at run time, and why. */
export const EXTERNAL = [
  // loads pglite.wasm, pglite.data and its extensions from its own folder (new URL(..., import.meta.url))
  '@electric-sql/pglite',
  // starts its worker threads from a file next to its own code (__dirname)
  'piscina',
  // native addons (node-gyp-build prebuilds), loaded with require() by src/domain/crypto-backend.ts
  'keccak',
  'secp256k1',
  // pg's optional native binding, never installed here
  'pg-native',
  // a native addon with libvips beside it (@img/sharp-<platform>), loaded with the first image
  'sharp',
  // only its assets folder is located (require('swagger-ui-dist/absolute-path.js')), served as files
  'swagger-ui-dist',
  // reads its own package.json through __dirname (CLIENT SETINFO); needed only with REDIS_URL
  'ioredis',
  // 9 MB of GraphiQL assets in one module, imported only when a browser asks for /graphql:
  // bundling it would only slow the build
  '@graphql-yoga/render-graphiql',
  // Prisma's query compiler (4.5 MB of base64 WASM), imported by the generated client on its first query
  '@prisma/client/runtime/query_compiler_*',
];

export async function buildDist({ quiet = false } = {}) {
  const t0 = performance.now();
  rmSync(path.join(dist, 'build-stamp.json'), { force: true });
  mkdirSync(dist, { recursive: true });
  // Old chunks would pile up (their names carry a content hash); the demo template stays.
  for (const f of readdirSync(dist)) if (/\.(m?js|map)$/.test(f)) rmSync(path.join(dist, f));
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    external: EXTERNAL,
    sourcemap: 'linked',
    logLevel: 'warning',
    // Bundled CommonJS packages call require() for Node's built-ins: give them one in scope.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  };
  // Code splitting keeps `await import('./app.js')` in server.ts lazy: the first log line comes
  // before the heavy packages load. Chunks stay flat in dist/ so import.meta.url is the same
  // folder from every chunk.
  await build({ ...common, entryPoints: ENTRIES, outdir: dist, splitting: true, chunkNames: '_chunk-[hash]' });
  // Worker threads' entries, next to the chunks that start them (new URL('./x.mjs', import.meta.url)).
  await build({
    ...common,
    entryPoints: { 'signature-worker': 'src/services/signature-worker.ts', 'pglite-thread-worker': 'src/db/pglite-thread-worker.mjs' },
    outdir: dist,
    outExtension: { '.js': '.mjs' },
  });
  const ms = Math.round(performance.now() - t0);
  writeFileSync(path.join(dist, 'build-stamp.json'), JSON.stringify({ builtAt: new Date().toISOString(), ms }) + '\n');
  if (!quiet) console.log(`built dist/ (${Object.keys(ENTRIES).length} entries + 2 worker threads) in ${ms} ms`);
  return ms;
}

/** The demo database template (src/cli/build-demo-template.ts), from the fresh build. */
export function buildDemoTemplate() {
  const r = spawnSync(process.execPath, [path.join(dist, 'build-demo-template.js')], { cwd: root, stdio: 'inherit', env: { ...process.env, LOG_LEVEL: 'warn' } });
  if (r.status !== 0) console.warn('the demo template could not be prepared; the first start will seed the demo itself (slower)');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildDist();
  if (process.env.BUILD_DEMO !== '0') buildDemoTemplate();
}
