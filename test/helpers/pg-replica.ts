// A private PostgreSQL primary and a streaming replica of it, each on a free port with its data
// directory under /tmp, for the read-replica tests and benchmark. The server binaries refuse to
// run as root, so they run as the `postgres` OS user (runuser) when this process is root.
// Replay can be paused on the replica (pg_wal_replay_pause) to make replication lag visible.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

export const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
const asRoot = userInfo().uid === 0;

/** null when a primary and a replica can be started here, else why not */
export const pgReplicaUnavailable: string | null = (() => {
  for (const b of ['initdb', 'pg_ctl', 'pg_basebackup']) {
    if (!existsSync(path.join(PG_BIN, b))) return `no PostgreSQL server binaries in ${PG_BIN} (install postgresql-15 or set PG_BIN)`;
  }
  if (asRoot && spawnSync('id', ['postgres']).status !== 0) return 'running as root without a `postgres` OS user to run the server binaries as';
  return null;
})();

function run(bin: string, args: string[]) {
  const cmd = path.join(PG_BIN, bin);
  return asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe', encoding: 'utf8' })
    : execFileSync(cmd, args, { stdio: 'pipe', encoding: 'utf8' });
}

export interface PrimaryWithReplica {
  primaryUrl: string;
  replicaUrl: string;
  /** stops applying WAL on the replica: it keeps receiving but shows old data */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** waits until the replica has replayed everything the primary has written so far */
  waitCaughtUp(timeoutMs?: number): Promise<void>;
  query<T = any>(url: string, sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startPrimaryWithReplica(): Promise<PrimaryWithReplica> {
  const base = mkdtempSync('/tmp/pg-replica-');
  chmodSync(base, 0o777);
  if (asRoot) execFileSync('chown', ['postgres:postgres', base]);
  const primaryDir = path.join(base, 'primary');
  const replicaDir = path.join(base, 'replica');
  const [pPort, rPort] = [await freePort(), await freePort()];
  const opts = (port: number) => `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c shared_buffers=32MB`;
  const started: string[] = [];
  const stopAll = () => {
    for (const dir of started.reverse()) {
      try {
        run('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
      } catch {}
    }
    rmSync(base, { recursive: true, force: true });
  };
  try {
    // trust auth and replication connections from 127.0.0.1 are initdb's defaults with --auth=trust
    run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    run('pg_ctl', ['-D', primaryDir, '-o', `${opts(pPort)} -c wal_level=replica -c max_wal_senders=4`, '-l', path.join(base, 'primary.log'), '-w', 'start']);
    started.push(primaryDir);
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--no-sync']);
    run('pg_ctl', ['-D', replicaDir, '-o', `${opts(rPort)} -c hot_standby=on`, '-l', path.join(base, 'replica.log'), '-w', 'start']);
    started.push(replicaDir);
  } catch (err) {
    stopAll();
    throw new Error(`could not start a primary and a replica: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
  const primaryUrl = `postgresql://postgres@127.0.0.1:${pPort}/postgres`;
  const replicaUrl = `postgresql://postgres@127.0.0.1:${rPort}/postgres`;
  async function query<T>(url: string, sql: string, params?: unknown[]): Promise<T[]> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end();
    }
  }
  return {
    primaryUrl,
    replicaUrl,
    query,
    pauseReplay: async () => void (await query(replicaUrl, 'SELECT pg_wal_replay_pause()')),
    resumeReplay: async () => void (await query(replicaUrl, 'SELECT pg_wal_replay_resume()')),
    async waitCaughtUp(timeoutMs = 20_000) {
      const lsn = (await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn'))[0]!.lsn;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ok = (await query<{ ok: boolean }>(replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]))[0]!.ok;
        if (ok) return;
        if (Date.now() > deadline) throw new Error('the replica did not catch up');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: async () => stopAll(),
  };
}
