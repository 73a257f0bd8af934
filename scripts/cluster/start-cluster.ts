// N gateway processes on one PostgreSQL (and usually one Redis): the module behind
// `npm run cluster` and the cluster tests. Each instance is `node <npm start's flags>
// dist/server.js`, the built server as docs/operations.md tells a supervisor to run it (no npm or other
// wrapper process, so a signal or kill -9 reaches the server itself, and no TypeScript compiled
// at run time), on its own port, logging to <logDir>/instance-<i>.log; ready once /readyz
// answers 200. dist/ is rebuilt first when a source is newer than it.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDistCurrent } from '../ensure-dist-current.mjs';
import { START_NODE_FLAGS } from '../start-node-flags.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ClusterOptions {
  instances: number;
  /** environment for every instance, on top of this process's (DATABASE_URL is required) */
  env: Record<string, string | undefined>;
  /** per-instance additions, by index */
  envFor?: (index: number) => Record<string, string>;
  /** first port; instance i listens on basePort + i. 0 (default): free ports picked by the OS */
  basePort?: number;
  /** folder for the logs and cluster.json (the state file `stop` reads) */
  logDir: string;
  readyTimeoutMs?: number;
}

export interface Instance {
  index: number;
  port: number;
  url: string;
  logFile: string;
  readonly pid: number;
  readonly exited: boolean;
  /** the instance's log so far */
  log(): string;
  /** resolves with the first log line matching `re` (JSON-parsed when it is JSON) after `fromOffset` */
  waitForLog(re: RegExp, timeoutMs?: number, fromOffset?: number): Promise<{ line: string; at: number }>;
  /** SIGTERM (clean: drains and exits) or SIGKILL (a crash) */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** start this instance again on the same port and log file */
  restart(): Promise<void>;
}

export interface Cluster {
  instances: Instance[];
  logDir: string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(inst: Instance, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (inst.exited) throw new Error(`instance ${inst.index} exited before it was ready; see ${inst.logFile}:\n${inst.log().slice(-2000)}`);
    try {
      const res = await fetch(`${inst.url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`instance ${inst.index} not ready after ${timeoutMs} ms; see ${inst.logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startInstance(index: number, port: number, opts: ClusterOptions): Instance {
  const logFile = path.join(opts.logDir, `instance-${index}.log`);
  let child: ChildProcess;
  let exited = false;
  let exitPromise: Promise<void>;
  const spawnIt = () => {
    const fd = openSync(logFile, 'a');
    exited = false;
    child = spawn(process.execPath, [...START_NODE_FLAGS, 'dist/server.js'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...opts.env, ...opts.envFor?.(index), PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    exitPromise = new Promise((resolve) => child.once('exit', () => ((exited = true), resolve())));
  };
  spawnIt();
  const inst: Instance = {
    index,
    port,
    url: `http://127.0.0.1:${port}`,
    logFile,
    get pid() {
      return child.pid!;
    },
    get exited() {
      return exited;
    },
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
    async waitForLog(re, timeoutMs = 30_000, fromOffset = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = inst.log().slice(fromOffset);
        const line = text.split('\n').find((l) => re.test(l));
        if (line) {
          let at = Date.now();
          try {
            at = Date.parse(JSON.parse(line).time) || at;
          } catch {}
          return { line, at };
        }
        if (Date.now() > deadline) throw new Error(`instance ${index}: no log line matching ${re} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async kill(signal = 'SIGTERM') {
      if (exited) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exitPromise;
      clearTimeout(timer);
    },
    async restart() {
      if (!exited) await inst.kill('SIGTERM');
      spawnIt();
      await waitReady(inst, opts.readyTimeoutMs ?? 120_000);
    },
  };
  return inst;
}

/** Starts the instances together (migrations are serialised by their advisory lock) and waits until every one is ready. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  if (!opts.env.DATABASE_URL && !process.env.DATABASE_URL) {
    throw new Error('a cluster needs DATABASE_URL: the embedded database lives inside one process');
  }
  if (opts.instances < 1) throw new Error('instances must be at least 1');
  mkdirSync(opts.logDir, { recursive: true });
  await ensureDistCurrent();
  const ports: number[] = [];
  for (let i = 0; i < opts.instances; i++) ports.push(opts.basePort ? opts.basePort + i : await freePort());
  const instances = ports.map((port, i) => startInstance(i, port, opts));
  const stop = async () => {
    await Promise.all(instances.map((i) => i.kill('SIGTERM')));
  };
  writeFileSync(
    path.join(opts.logDir, 'cluster.json'),
    JSON.stringify({ instances: instances.map((i) => ({ index: i.index, pid: i.pid, port: i.port, url: i.url, log: i.logFile })) }, null, 2),
  );
  try {
    await Promise.all(instances.map((i) => waitReady(i, opts.readyTimeoutMs ?? 120_000)));
  } catch (err) {
    await stop();
    throw err;
  }
  return { instances, logDir: opts.logDir, stop };
}

/** `npm run cluster -- stop`: SIGTERM every instance recorded in <logDir>/cluster.json. */
export function stopRecordedCluster(logDir: string): number {
  const state = JSON.parse(readFileSync(path.join(logDir, 'cluster.json'), 'utf8')) as { instances: { pid: number }[] };
  let signalled = 0;
  for (const { pid } of state.instances) {
    try {
      process.kill(pid, 'SIGTERM');
      signalled++;
    } catch {
      // already gone
    }
  }
  return signalled;
}
