// Statement templates of the read engine (src/read-engine/statement-template.ts) as operators see
// them: the second request of a query shape either makes the shape's template (later requests
// only bind their values) or finds that it cannot, and the shape is then planned per request.
// Shapes planned from data or process state (a ranking computed in JavaScript, the indexer's
// status) never make one; any other refusal is a planner that reads an input or the clock in a
// way the template cannot reproduce: correct answers, slower. Counted by outcome in /metrics
// (read_engine_templates_total) and refusals logged with their reason.
import { createListeners } from './listeners.js';

export const READ_TEMPLATE_OUTCOMES = ['made', 'volatile', 'refused'] as const;
export type ReadTemplateOutcome = (typeof READ_TEMPLATE_OUTCOMES)[number];

export function createReadTemplates() {
  const listeners = createListeners<[outcome: ReadTemplateOutcome, reason?: string]>();
  return { record: listeners.emit, onOutcome: listeners.on };
}

export type ReadTemplates = ReturnType<typeof createReadTemplates>;
