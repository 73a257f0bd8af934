// The read engine's statement failing is a defect or an outage, and the resolvers answering in
// its place hide it from the client (the answer is right, only slower): so it is logged, with the
// database's message, at most once a minute (an outage fails every request). A query shape that
// cannot have a statement template is logged too, once per reason.
import type { Logger } from '../logger.js';
import { genericPlansOf } from '../read-engine/generic-plans.js';
import type { Services } from '../services/index.js';

export const READ_FALLBACK_LOG_INTERVAL_MS = 60_000;

export function logReadFallbacks(services: Services, logger: Logger, now: () => number = Date.now): () => void {
  let last = -Infinity;
  let skipped = 0;
  return services.readFallbacks.onFallback((cause, error) => {
    if (cause !== 'database-error') return;
    if (now() - last < READ_FALLBACK_LOG_INTERVAL_MS) {
      skipped++;
      return;
    }
    last = now();
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ err: message, alsoSince: skipped }, 'read engine: its statement failed, the resolvers answered (metric read_engine_fallbacks_total)');
    skipped = 0;
  });
}

/** A refused template is a planner defect (src/services/read-templates.ts): each reason once per process. */
export function logReadTemplateRefusals(services: Services, logger: Logger): () => void {
  const seen = new Set<string>();
  return services.readTemplates.onOutcome((outcome, reason) => {
    if (outcome !== 'refused' || seen.has(reason ?? '')) return;
    seen.add(reason ?? '');
    logger.warn({ reason }, 'read engine: a query shape is planned per request, its statement cannot be a template (metric read_engine_templates_total)');
  });
}

/**
 * Why a template stays planned per run (src/read-engine/generic-plans.ts): a plan's shape, not a
 * defect, so at debug, each reason once per process; a verdict the database could not give, at warn.
 */
export function logGenericPlanVerdicts(services: Services, logger: Logger): () => void {
  const seen = new Set<string>();
  return genericPlansOf(services.deps).onVerdict((verdict, reason) => {
    if (verdict === 'generic' || seen.has(reason ?? '')) return;
    seen.add(reason ?? '');
    if (verdict === 'failed') logger.warn({ err: reason }, 'read engine: could not read a generic plan; the template is planned per run (metric read_engine_generic_plans_total)');
    else logger.debug({ reason }, 'read engine: a template is planned per run, its generic plan would not serve every value');
  });
}
