// One process at a time on an embedded data directory: PGlite is PostgreSQL inside
// one process, so a second process (an import CLI, the indexer CLI) opening the same folder would
// write where the server never looks, or corrupt it. The lock is a file holding the owner's pid,
// created with O_EXCL. It is hand-written rather than proper-lockfile's mtime leases because it
// must clear at once after a kill -9 (a dead pid is a stale lock) and needs no refresh timer.
// Same-machine only, which is all an embedded database can be.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid} (the server?); stop it first, or point this command at PostgreSQL with DATABASE_URL`,
    );
  }
}

const held = new Map<string, number>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock on dataDir (re-entrant within this process); returns its release. */
export function lockDataDir(dataDir: string): () => void {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, 'lock.pid');
  const count = held.get(file);
  if (count !== undefined) {
    held.set(file, count + 1);
    return once(() => release(file));
  }
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw err;
      let pid = NaN;
      try {
        pid = Number(readFileSync(file, 'utf8').trim());
      } catch {
        continue; // removed meanwhile: try again
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DataDirLockedError(dir, pid);
      // Left by a process that died (kill -9, crash) or a half-written file: stale.
      rmSync(file, { force: true });
    }
  }
  held.set(file, 1);
  return once(() => release(file));
}

function release(file: string) {
  const count = held.get(file) ?? 0;
  if (count > 1) return void held.set(file, count - 1);
  held.delete(file);
  try {
    if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
  } catch {
    // already gone
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
