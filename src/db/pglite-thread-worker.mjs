// The embedded database's own thread (src/db/pglite-thread-start.ts starts it). It owns the PGlite
// instance and answers raw wire-protocol messages; the main thread keeps PGlite's query,
// transaction and parsing logic. Plain JavaScript: it imports nothing of ours, so it runs as is
// from src/ (tests, tsx) and is copied next to the bundle in dist/ by scripts/build.mjs.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

const { dataDir, settings } = workerData;

// Side by side with PGlite's import, instead of after it (PGlite reads and compiles these only
// once constructed): its WASM, compiled by the thread that started this one while this one booted
// (compilePgliteWasm), the first message; and its file bundle (share/, 6 MB), read here. Either
// missing, PGlite loads its own and reports what is wrong. (PGlite's folder is found as
// pglite-thread-start.ts finds it: this file imports nothing of ours.)
const compiled = new Promise((resolve) => parentPort.once('message', (msg) => resolve(msg?.wasmModule)));
const bundle = readFile(path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data')).then(
  (b) => {
    // a file this size has a buffer of its own; copied only if it ever shares one
    const data = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    return { arrayBuffer: async () => data };
  },
  () => undefined,
);
// the extensions the migrations create (src/db/pglite-database.ts PGLITE_EXTENSIONS names the same)
const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')]);

/**
 * PGlite that only answers wire-protocol bytes. PGlite reads the catalog's array types when it
 * opens, to parse array columns; this thread never parses a result (the main thread's
 * PGliteThread does, and runs the same query itself). Here it was also the first query on a
 * cold catalog, which costs 50-100 ms whatever it is: the one the main thread sends now pays that.
 */
class WirePGlite extends PGlite {
  async _initArrayTypes() {}
}

let pg;
try {
  const [pgliteWasmModule, fsBundle] = await Promise.all([compiled, bundle]);
  pg = new WirePGlite({
    dataDir,
    startParams: [...PGlite.defaultStartParams, ...settings],
    extensions: { pg_trgm },
    ...(pgliteWasmModule ? { pgliteWasmModule } : {}),
    ...(fsBundle ? { fsBundle } : {}),
  });
  await pg.waitReady;
  parentPort.postMessage({ type: 'ready' });
} catch (err) {
  parentPort.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  parentPort.close();
}

/** One Uint8Array with a buffer of its own (transferable; never a pooled Buffer's shared one). */
function joined(chunks) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

parentPort.on('message', async ({ id, op, data }) => {
  try {
    if (op === 'exec') {
      // PGlite's output copied as it is written, handed over without another copy. Not
      // execProtocolRaw: in PGlite 0.5.16 it keeps memory for what it answers (the process grew by
      // about the bytes of every result, 1.5 GB after 50,000 results of 20 KB; the stream form
      // stays flat: bench/media-bench.ts serves 10,000 distinct images through it).
      const chunks = [];
      await pg.execProtocolRawStream(data, { syncToFs: false, onRawData: (chunk) => chunks.push(chunk.slice()) });
      const out = joined(chunks);
      parentPort.postMessage({ id, data: out }, [out.buffer]);
    } else if (op === 'close') {
      if (!pg.closed) await pg.close();
      parentPort.postMessage({ id });
      parentPort.close();
    }
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
