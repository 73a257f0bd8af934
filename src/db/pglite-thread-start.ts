// Starts the embedded database's thread (pglite-thread-worker.mjs) with nothing else loaded: only
// Node's built-ins, so the server can start it before importing anything heavy, and PostgreSQL
// boots on the second core while the first loads the application (src/db/open-database-early.ts).
// PGliteThread (pglite-thread.ts) then talks to it.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { lockDataDir } from './data-dir-lock.js';
import { embeddedDatabaseDir } from './embedded-dir.js';

/**
 * Settings added to PGlite's defaults. PostgreSQL sizes shared memory for a server
 * (shared_buffers = 128MB), which PGlite allocates and zeroes on every open in WASM: about 0.5 s
 * of CPU per start, measured; 32MB cost about 0.1 s more than 16MB. 16MB still holds
 * the demo database (about 12 MB); what does not fit is read through the OS page cache.
 */
export const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

export interface StartedPgliteThread {
  worker: Worker;
  /** resolves when PostgreSQL is up in the thread; rejects if it fails or the thread dies first */
  started: Promise<void>;
}

const WORKER_ENTRY = new URL('./pglite-thread-worker.mjs', import.meta.url);

/** PGlite's own folder in node_modules: its WASM and file bundle sit beside its JavaScript. */
function pgliteDistDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
}

/**
 * PostgreSQL compiled to WASM (9 MB), compiled here, synchronously, while the new thread boots (a
 * new isolate, then PGlite's JavaScript: about 0.1 s here), and handed to it, shared, not copied.
 * PGlite itself reads and compiles it only once constructed, after its import. Measured on
 * restarts, against the alternatives: an asynchronous compile here reaches the thread
 * only when this event loop turns, which the application's module loading holds up for half a
 * second; reading it here and compiling it on the thread left the database later, and the
 * application no sooner, than compiling it here (1.08-1.14 s to the database against 0.94-0.98 s).
 */
export function compilePgliteWasm(): WebAssembly.Module {
  return new WebAssembly.Module(readFileSync(path.join(pgliteDistDir(), 'pglite.wasm')));
}

/** compilePgliteWasm, or null when the WASM cannot be read or is not valid: PGlite then compiles its own and reports what is wrong. */
function compiledOrNull(): WebAssembly.Module | null {
  try {
    return compilePgliteWasm();
  } catch {
    return null;
  }
}

/**
 * Starts the thread on dataDir. `wasm` is compiled after the thread is created, so both proceed at
 * once; null hands it none (tests of that path).
 */
export function startPgliteThread(dataDir: string, wasm?: null): StartedPgliteThread {
  // execArgv []: the thread is plain JavaScript; a parent's loader flags (tsx under tests and the
  // CLIs' development runs) would only slow its start. V8's flags are per process and still apply.
  const worker = new Worker(WORKER_ENTRY, { workerData: { dataDir, settings: PGLITE_SETTINGS }, execArgv: [] });
  // the thread's first message
  worker.postMessage({ type: 'wasm', wasmModule: wasm === null ? null : compiledOrNull() });
  // listening from the first moment: a 'ready' emitted before anyone listens would be lost
  const started = new Promise<void>((resolve, reject) => {
    const onMessage = (msg: { type?: string; message?: string }) => {
      if (msg.type !== 'ready' && msg.type !== 'failed') return;
      off();
      if (msg.type === 'ready') resolve();
      else reject(new Error(`the embedded database did not open: ${msg.message}`));
    };
    const onError = (err: Error) => {
      off();
      reject(err);
    };
    const onExit = (code: number) => onError(new Error(`the embedded database's thread exited while opening (code ${code})`));
    const off = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
  started.catch(() => {}); // whoever takes the thread over awaits it
  return { worker, started };
}

/** A persistent embedded database being opened: its folder, its thread and the data folder's lock. */
export interface OpeningEmbedded {
  dir: string;
  thread: StartedPgliteThread;
  /** releases DATA_DIR's lock (data-dir-lock.ts): when the database closes, or if opening fails */
  unlock: () => void;
}

/** Locks DATA_DIR (one process per folder) and starts PostgreSQL's thread on its database. */
export function startEmbeddedOnDisk(dataDir: string): OpeningEmbedded {
  const unlock = lockDataDir(dataDir);
  try {
    const dir = embeddedDatabaseDir(dataDir);
    mkdirSync(dir, { recursive: true });
    return { dir, thread: startPgliteThread(dir), unlock };
  } catch (err) {
    unlock();
    throw err;
  }
}
