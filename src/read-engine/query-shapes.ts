// A query shape's statement across requests (./statement-template.ts does the check and the
// binding): per document and app, each shape keyed by its inputs' template key holds its cost
// for the complexity limit, its template or why it has none, and the template's prepared name.
import type { Context } from '../context.js';
import { createPreparedNames, type PreparedNames } from '../db/prepared-names.js';
import type { Prepared } from '../db/sql-runner.js';
import { genericPlansOf } from './generic-plans.js';
import type { PlanParams } from './plan-params.js';
import { bindTemplate, planTemplate, type FreeInput, type PlannedStatement, type TemplateOutcome } from './statement-template.js';
import { usedParams } from './used-params.js';

/** A query shape (a document with its inputs' template key), per app. */
export interface Shape<P> {
  /** complexity and depth (the plugin's figures; they depend on `first`), null when it could not tell */
  cost?: { complexity: number; depth: number } | null;
  /** unset until its second request is planned (the check) */
  outcome?: TemplateOutcome<P>;
  /** the template's prepared statement name */
  name?: string;
  /** planned once already: the check waits for a shape's second request (see statementFor) */
  seen?: boolean;
}

/**
 * The engine's templates are few texts sent over and over: prepared (src/db/prepared-names.ts).
 * The names are bounded per app, as its connections are (each app opens its own pools).
 */
const namesByDeps = new WeakMap<object, PreparedNames>();
function preparedNamesOf(deps: object): PreparedNames {
  let names = namesByDeps.get(deps);
  if (!names) namesByDeps.set(deps, (names = createPreparedNames()));
  return names;
}
/** shapes kept per document and app; a client that varies `first` endlessly starts them over */
const MAX_SHAPES = 256;

/** The shape of `key` in an app's shapes (made on first sight). */
export function shapeOf<P>(byApp: WeakMap<object, Map<string, Shape<P>>>, app: object, key: string): Shape<P> {
  let shapes = byApp.get(app);
  if (!shapes) byApp.set(app, (shapes = new Map()));
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, (shape = {}));
  }
  return shape;
}

/** A statement ready to send, and what answering with it needs. */
interface Ready<P> {
  text: string;
  values: unknown[];
  name: Prepared | undefined;
  payload: P;
}

/**
 * The request's statement: the shape's template bound to its inputs and clock, or planned (the
 * second request of the shape also checks whether the statement is a template). Null: nothing to render.
 */
export async function statementFor<P>(
  shape: Shape<P>,
  ctx: Context,
  free: readonly FreeInput[],
  inputs: Record<string, unknown>,
  plan: (inputs: Record<string, unknown>, now: Date) => Promise<PlannedStatement<P> | null>,
  samePayload: (a: P, b: P) => boolean,
): Promise<Ready<P> | null> {
  const now = ctx.services.deps.now();
  const known = shape.outcome;
  if (known && 'template' in known) {
    const { template } = known;
    // a template's text is the same for every request of the shape: planned once where that plan serves every value
    const name = shape.name === undefined ? undefined : { name: shape.name, generic: genericPlansOf(ctx.services.deps).generic(template, ctx.sql) };
    return { text: template.text, values: bindTemplate(template, inputs, now), name, payload: template.payload };
  }
  let planned: PlannedStatement<P> | null;
  // A shape is checked (three plannings) at its second request: one that never comes back (a
  // page cursor, a time window computed from the client's clock: inputs that shape the key)
  // costs one planning, as it did before templates, instead of three.
  if (known) planned = await plan(inputs, now);
  else if (!shape.seen) {
    shape.seen = true;
    planned = await plan(inputs, now);
  } else {
    const made = await planTemplate(plan, inputs, free, now, samePayload);
    planned = made.planned;
    if (made.outcome) {
      shape.outcome = made.outcome;
      if ('template' in made.outcome) {
        shape.name = preparedNamesOf(ctx.services.deps).name(made.outcome.template.text);
        ctx.services.readTemplates.record('made');
      } else ctx.services.readTemplates.record(planned!.volatile ? 'volatile' : 'refused', made.outcome.none);
    }
  }
  if (!planned) return null;
  // a planned text may never come again (a cursor's page, a refused template): named only if it is a template's
  const name = preparedNamesOf(ctx.services.deps).existing(planned.text);
  return { text: planned.text, values: [...planned.values], name: name === undefined ? undefined : { name }, payload: planned.payload };
}

/** A statement's parameters as sent (./used-params.ts), with the clock's functions renumbered alike. */
export function sentStatement<P>(text: string, query: { params: PlanParams; volatile: boolean }, payload: P): PlannedStatement<P> {
  const sent = usedParams(text, query.params.values);
  const clock = new Map<number, (now: Date) => unknown>();
  sent.kept.forEach((from, i) => {
    const f = query.params.clock.get(from);
    if (f) clock.set(i, f);
  });
  return { text: sent.text, values: sent.values, clock, volatile: query.volatile, payload };
}
