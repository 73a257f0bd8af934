// Readiness: the database answers.
import type { ServiceDeps } from './deps.js';

export function createHealthService(deps: ServiceDeps) {
  async function databaseReachable(): Promise<{ ok: boolean; detail: string }> {
    try {
      await deps.db.sql.query('SELECT 1');
      return { ok: true, detail: deps.db.describe };
    } catch (err) {
      return { ok: false, detail: `database unreachable: ${(err as Error).message}` };
    }
  }
  return { databaseReachable };
}
