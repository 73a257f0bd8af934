// The webhook sender in the server process: started at boot unless WEBHOOKS=false, its attempts
// counted by the metrics, and the outbox on /readyz. The outbox component is reported, not
// required: a stuck outbox is not fixed by taking this instance out of the load balancer.
import type { Services } from './index.js';
import { createWebhookWorker, type WebhookWorker } from './webhook-worker.js';

export function startWebhookWorker(services: Services, log: { warn(o: object, m: string): void }): WebhookWorker | null {
  services.health.register('webhooks', () => services.webhooks.outboxHealth(), { required: false });
  if (!services.deps.config.webhooks.enabled) return null;
  const worker = createWebhookWorker(services.deps, {
    log,
    onAttempt: (outcome, r) => services.webhooks.noteAttempt(outcome, r.durationMs),
  });
  worker.start();
  return worker;
}
