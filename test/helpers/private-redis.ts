// A private redis-server on a free port, so a test can stop and restart it (a Redis outage)
// without touching the shared Redis every helper uses. Nothing is persisted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN || 'redis-server';
/** null when redis-server can run here, else why not (tests skip with it) */
export const redisServerMissing: string | null = (() => {
  const r = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? null : `no redis-server binary (install redis-server or set REDIS_SERVER_BIN)`;
})();

export interface PrivateRedis {
  url: string;
  port: number;
  /** kill -9: the outage */
  kill(): Promise<void>;
  /** start again on the same port */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  async function start() {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
  async function kill() {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  }
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, stop: kill };
}
