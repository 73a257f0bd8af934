// Prometheus metrics at /metrics (prom-client), one registry per app instance.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics(collectDefaults: boolean) {
  const registry = new Registry();
  if (collectDefaults) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    observe(route: string, method: string, status: number, seconds: number) {
      requests.inc({ route, method, status: String(status) });
      duration.observe({ route }, seconds);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
