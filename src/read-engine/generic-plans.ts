// Which statement templates run on a generic plan. A template's statement is the same text for
// every request of its shape; PostgreSQL plans it per run (force_custom_plan), which for a light
// page is a third of the statement's time (the activity page: 0.33 ms planning, 0.75 ms
// execution). Where its generic plan (planned once per connection, without values) can serve
// every value (./bounded-plan.ts), the template runs on the connections that keep such plans
// (src/db/database.ts, the generic pool). The verdict is PostgreSQL's plan at the time it was
// asked: new statistics (ANALYZE) may change a generic plan, so a template in use is asked again
// once `recheckMs` has passed since its last verdict; until a verdict exists it runs as before.
import type { SqlRunner } from '../db/sql-runner.js';
import type { ServiceDeps } from '../services/deps.js';
import { createListeners } from '../services/listeners.js';
import { unboundedBecause } from './bounded-plan.js';
import type { StatementTemplate } from './statement-template.js';

export const GENERIC_PLAN_VERDICTS = ['generic', 'custom', 'failed'] as const;
export type GenericPlanVerdict = (typeof GENERIC_PLAN_VERDICTS)[number];

interface Verdict {
  generic: boolean;
  at: number;
  asking: boolean;
}

/** templates with a verdict, at most; past it they start over (a template without one runs custom) */
const MAX_TEMPLATES = 1024;
/** a verdict in use is asked again after this long (statistics move with the market) */
const RECHECK_MS = 60_000;

const byDeps = new WeakMap<object, GenericPlans>();

/** The app's verdicts (one per app, as its query shapes: ./query-shapes.ts). */
export function genericPlansOf(deps: { config: Pick<ServiceDeps['config'], 'readGenericPlans'> }): GenericPlans {
  let plans = byDeps.get(deps);
  if (!plans) byDeps.set(deps, (plans = createGenericPlans({ enabled: deps.config.readGenericPlans, recheckMs: RECHECK_MS })));
  return plans;
}

export function createGenericPlans(opts: { enabled: boolean; recheckMs: number; clock?: () => number }) {
  const clock = opts.clock ?? Date.now;
  const verdicts = new Map<string, Verdict>();
  const listeners = createListeners<[verdict: GenericPlanVerdict, reason?: string]>();

  async function ask(template: StatementTemplate<unknown>, runner: Required<Pick<SqlRunner, 'genericPlan'>>, v: Verdict) {
    v.asking = true;
    try {
      const clientParams = new Set<number>();
      template.bindings.forEach((b, i) => 'input' in b && clientParams.add(i + 1));
      const why = unboundedBecause(await runner.genericPlan(template.text, template.bindings.length), clientParams);
      v.generic = why === null;
      listeners.emit(v.generic ? 'generic' : 'custom', why ?? undefined);
    } catch (err) {
      // the database could not say (an outage): custom, asked again after recheckMs
      v.generic = false;
      listeners.emit('failed', err instanceof Error ? err.message : String(err));
    } finally {
      v.at = clock();
      v.asking = false;
    }
  }

  return {
    /**
     * Whether this request of `template` runs on a generic plan; asks PostgreSQL first (in the
     * background: this request and those until the answer run as before) or again when stale.
     */
    generic(template: StatementTemplate<unknown>, runner: Pick<SqlRunner, 'genericPlan'>): boolean {
      if (!opts.enabled || !runner.genericPlan) return false;
      let v = verdicts.get(template.text);
      if (!v) {
        if (verdicts.size >= MAX_TEMPLATES) verdicts.clear();
        // never asked: stale from the start
        verdicts.set(template.text, (v = { generic: false, at: -Infinity, asking: false }));
      }
      if (!v.asking && clock() - v.at >= opts.recheckMs) void ask(template, runner as Required<Pick<SqlRunner, 'genericPlan'>>, v);
      return v.generic;
    },
    /** each verdict PostgreSQL's plan gave (metrics; the reason of a custom one for the log) */
    onVerdict: listeners.on,
  };
}

export type GenericPlans = ReturnType<typeof createGenericPlans>;
