// Startup failures an operator can act on, as one line saying what to do: no stack.
// Anything else is a bug and keeps its stack.
import type { Config } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { MigrationError } from './db/migrate.js';
import { StartupError } from './startup-error.js';

export function describeStartupFailure(err: unknown, config: Pick<Config, 'port' | 'host' | 'dataDir'>): string | null {
  if (err instanceof StartupError || err instanceof DataDirLockedError || err instanceof MigrationError) return err.message;
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EADDRINUSE':
      return `port ${config.port} on ${config.host} is already in use (another instance?); stop it or set PORT to a free port`;
    case 'EACCES':
      if (e.syscall === 'listen') return `not allowed to listen on port ${config.port}; use a port above 1023 (PORT=4000)`;
      return `permission denied: ${e.path ?? e.message}; check the owner of DATA_DIR (${config.dataDir})`;
    case 'EADDRNOTAVAIL':
      return `HOST ${config.host} is not an address of this machine; use 0.0.0.0 or 127.0.0.1`;
    case 'ENOSPC':
      return `no space left on the device holding ${e.path ?? 'DATA_DIR'}; free some space`;
    case 'EROFS':
      return `${e.path ?? 'DATA_DIR'} is read-only; point DATA_DIR at a writable folder`;
    default:
      return null;
  }
}
