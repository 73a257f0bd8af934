// The embedded database's own thread (src/db/pglite-thread-start.ts starts it). It owns the PGlite
// instance and answers raw wire-protocol messages; the main thread keeps PGlite's query,
// transaction and parsing logic. Plain JavaScript: it imports nothing of ours, so it runs as is
// from src/ (tests, tsx) and is copied next to the bundle in dist/ by scripts/build.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const { dataDir, settings } = workerData;
let pg;
try {
  pg = new PGlite({ dataDir, startParams: [...PGlite.defaultStartParams, ...settings] });
  await pg.waitReady;
  parentPort.postMessage({ type: 'ready' });
} catch (err) {
  parentPort.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  parentPort.close();
}

parentPort.on('message', async ({ id, op, data }) => {
  try {
    if (op === 'exec') {
      // a copy of PGlite's output buffer, handed over without another copy
      const out = (await pg.execProtocolRaw(data, { syncToFs: false })).slice();
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
