// Readiness per component: the database, Redis, the chain indexer, and whatever else
// registers a check. Each check is bounded in time, so /readyz answers within about the timeout
// even when a dependency hangs, and it never shows connection details (host, port, user): it is
// public. Only `required` components decide readiness; a degraded optional one (Redis: limits and
// events fall back to this instance) is reported but keeps the instance in the load balancer.
import type { ServiceDeps } from './deps.js';

export interface ComponentStatus {
  /** 'up' answers; 'down' does not; 'off' is not configured here; other words are component-specific */
  status: string;
  /** component-specific details, never connection details */
  [detail: string]: unknown;
}

export type ComponentCheck = () => ComponentStatus | Promise<ComponentStatus>;

export interface Readiness {
  ready: boolean;
  components: Record<string, ComponentStatus & { required: boolean }>;
}

interface Registered {
  check: ComponentCheck;
  /** only required components decide readiness */
  required: boolean;
}

export function createHealthService(deps: ServiceDeps) {
  const checks = new Map<string, Registered>();
  checks.set('database', {
    required: true,
    check: async () => {
      await deps.db.sql.query('SELECT 1');
      return { status: 'up' };
    },
  });

  async function run({ check }: Registered, timeoutMs: number): Promise<ComponentStatus> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ComponentStatus>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'down', reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(check), timeout]);
    } catch {
      // The error message can name the host; the log has it, the public answer does not.
      return { status: 'down', reason: 'not answering' };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** Adds or replaces a component of /readyz (the indexer, Redis, ...). */
    register(name: string, check: ComponentCheck, opts: { required: boolean }) {
      checks.set(name, { check, required: opts.required });
    },
    async readiness(timeoutMs = 1000): Promise<Readiness> {
      const entries = [...checks.entries()];
      const results = await Promise.all(entries.map(([, c]) => run(c, timeoutMs)));
      const components = Object.fromEntries(entries.map(([name, c], i) => [name, { ...results[i]!, required: c.required }]));
      return { ready: Object.values(components).every((r) => !r.required || r.status === 'up'), components };
    },
  };
}
