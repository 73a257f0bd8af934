// The embedded database on a thread of its own. PostgreSQL in WASM is CPU work: in-process it
// runs on the main thread, where it opened the database (about 0.65 s of a restart, measured)
// only after the application's modules had loaded, and where every statement it runs
// holds up HTTP. Here the worker (pglite-thread-worker.mjs) owns the PGlite instance and answers
// raw wire-protocol messages; this class is PGlite's own client half (BasePGlite: query, exec,
// transaction, parameter and result parsing, the same code the in-process PGlite runs) with the
// transport replaced by messages to that thread. So a start opens the database on the second core
// while the first loads the application, and a query's execution leaves the event loop free.
//
// Not supported here, and not used by the service: LISTEN/NOTIFY, COPY through /dev/blob, dumpDataDir.
import type { Worker } from 'node:worker_threads';
import { Mutex, PGlite, protocol, type DebugLevel, type ExecProtocolOptions, type ExecProtocolResult } from '@electric-sql/pglite';
import { PGliteWorker } from '@electric-sql/pglite/worker';
import type { StartedPgliteThread } from './pglite-thread-start.js';

type BackendMessage = ExecProtocolResult['messages'][number];

/**
 * PGlite's BasePGlite is not exported by name; PGliteWorker (its browser worker client) extends it,
 * so its prototype is the class. Checked at load: a PGlite release that moves it fails loudly here.
 */
const BasePGlite = Object.getPrototypeOf(PGliteWorker) as abstract new () => Pick<PGlite, 'query' | 'exec' | 'transaction' | 'sql' | 'parsers' | 'serializers'> & {
  _initArrayTypes(opts?: { force?: boolean }): Promise<void>;
};
if (typeof BasePGlite !== 'function' || typeof (BasePGlite.prototype as { _initArrayTypes?: unknown })._initArrayTypes !== 'function') {
  throw new Error('@electric-sql/pglite no longer exposes BasePGlite through PGliteWorker: src/db/pglite-thread.ts needs updating');
}

interface Pending {
  resolve(data: Uint8Array | undefined): void;
  reject(err: Error): void;
}

export class PGliteThread extends BasePGlite {
  readonly debug: DebugLevel = 0;
  readonly waitReady: Promise<void>;
  #worker: Worker;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #queryMutex = new Mutex();
  #transactionMutex = new Mutex();
  #ready = false;
  #closed = false;
  #failure: Error | null = null;
  /** messages held for the next call (execProtocolStream) */
  #held: Uint8Array[] = [];

  /** Takes over a thread started by startPgliteThread (pglite-thread-start.ts). */
  constructor({ worker, started }: StartedPgliteThread) {
    super();
    this.#worker = worker;
    worker.on('message', (msg: { id?: number; data?: Uint8Array; error?: string }) => {
      const waiting = msg.id === undefined ? undefined : this.#pending.get(msg.id);
      if (!waiting) return;
      this.#pending.delete(msg.id!);
      if (msg.error !== undefined) waiting.reject(new Error(msg.error));
      else waiting.resolve(msg.data);
    });
    // A thread that dies (out of memory, a crash in WASM) fails whatever waits on it, now and later.
    const fail = (err: Error) => {
      this.#failure ??= err;
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the embedded database's thread exited (code ${code})`)));
    this.waitReady = started.then(async () => {
      this.#ready = true;
      await this._initArrayTypes();
    });
  }

  get ready(): boolean {
    return this.#ready && !this.#closed;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #call(op: 'exec' | 'close', data?: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, op, data });
    });
  }

  async execProtocolRaw(message: Uint8Array, _opts: ExecProtocolOptions = {}): Promise<Uint8Array> {
    return (await this.#call('exec', message))!;
  }

  async execProtocolRawStream(message: Uint8Array, opts: { onRawData: (data: Uint8Array) => void }): Promise<void> {
    opts.onRawData(await this.execProtocolRaw(message));
  }

  /**
   * PGlite's query() sends Parse, Describe, Bind, Describe, Execute and Sync one call at a time.
   * Only the statement's Describe (its parameter types, needed to serialise the values) and Sync
   * are awaited for what they answer: Parse, Bind, the portal's Describe and Execute are held and
   * sent with the next message, as a pipelining driver would, and their replies join that call's
   * (the result list keeps its order). So a statement costs two trips to the thread instead of
   * six. An error in a held message comes back with the next reply, where PostgreSQL reports it
   * too (it skips to Sync after an error), and is thrown there: an error of execution then reaches
   * the caller from Sync, without the `query`/`params` properties PGlite adds to errors it catches
   * earlier (nothing here reads them; code, message and detail are PostgreSQL's, unchanged).
   */
  async execProtocolStream(message: Uint8Array, opts: ExecProtocolOptions = {}): Promise<BackendMessage[]> {
    if (isHeld(message)) {
      this.#held.push(message);
      return [];
    }
    const batch = this.#held.length ? concat([...this.#held.splice(0), message]) : message;
    return parseMessages(await this.execProtocolRaw(batch), opts);
  }

  async execProtocol(message: Uint8Array, opts: ExecProtocolOptions = {}): Promise<ExecProtocolResult> {
    const data = await this.execProtocolRaw(message);
    return { messages: parseMessages(data, opts), data };
  }

  /** PGlite's NODEFS writes through to the data folder: there is nothing to sync. */
  async syncToFs(): Promise<void> {}

  async _handleBlob(blob?: Blob): Promise<void> {
    if (blob) throw new Error('COPY through /dev/blob is not supported by the threaded embedded database');
  }

  async _getWrittenBlob(): Promise<undefined> {
    return undefined;
  }

  async _cleanupBlob(): Promise<void> {}

  async _checkReady(): Promise<void> {
    if (this.#closed) throw new Error('PGlite is closed');
    if (!this.#ready) await this.waitReady;
  }

  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queryMutex.runExclusive(fn);
  }

  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactionMutex.runExclusive(fn);
  }

  async listen(): Promise<never> {
    throw new Error('LISTEN is not supported by the threaded embedded database');
  }

  async unlisten(): Promise<never> {
    throw new Error('UNLISTEN is not supported by the threaded embedded database');
  }

  /** Waits for running statements, closes PostgreSQL cleanly (a checkpoint), then ends the thread. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.waitReady.catch(() => {});
    await this.#transactionMutex.runExclusive(() =>
      this.#queryMutex.runExclusive(async () => {
        if (this.#closed) return;
        this.#closed = true;
        if (!this.#failure) await this.#call('close');
        await this.#worker.terminate();
      }),
    );
  }
}

/**
 * As PGlite's own parsing of a response: the messages up to and including the first error, which
 * is thrown when throwOnError. Each response arrives whole, so a fresh parser reads it.
 */
function parseMessages(data: Uint8Array, { throwOnError = true, onNotice }: ExecProtocolOptions): BackendMessage[] {
  const results: BackendMessage[] = [];
  let databaseError: Error | null = null;
  new protocol.Parser().parse(data, (msg: BackendMessage) => {
    if (databaseError) return;
    if (msg instanceof protocol.messages.DatabaseError) {
      if (throwOnError) databaseError = msg;
    } else if (msg instanceof protocol.messages.NoticeMessage) onNotice?.(msg);
    results.push(msg);
  });
  if (databaseError) throw databaseError;
  return results;
}

const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
const DESCRIBE = 0x44; // 'D'
const EXECUTE = 0x45; // 'E'
const PORTAL = 0x50; // Describe's target 'P' (a statement is 'S')

/** Parse, Bind, Describe of a portal and Execute: replies nobody waits for (see execProtocolStream). */
function isHeld(message: Uint8Array): boolean {
  const type = message[0];
  return type === PARSE || type === BIND || type === EXECUTE || (type === DESCRIBE && message[5] === PORTAL);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
