// A statement planned once per query shape and bound for each request (Grafast's plan cache with
// its constraints, made small). A request's inputs (GraphQL variables, a parsed REST query) shape
// the statement's text where the planner branches on them (`first`, a sort, which filters are
// set) and only fill parameters where it binds them. Which is which is not declared: it is
// checked. The second request of a shape (./query-shapes.ts) is planned three times:
//   - as it is;
//   - with each input that may be free (an Address, Hash or Uint256 value, set) replaced by
//     another value of its kind;
//   - at another clock (a day, an hour, a minute and a second later).
// The template holds when the three texts are equal and every parameter is either the same in
// all three (a constant), the free input's value in the first two (bound per request), or the
// value its planner declared as a function of the clock (`PlanParams.at`, computed per request).
// Anything else (a value that moved with the clock outside `at`, a text an input changed) leaves
// the shape planned per request, and says why once. Its key is the inputs with the free ones
// masked, so a market's many collections share their page's template.
// What the check cannot see is a planner that computes with a free value rather than binding it
// (`if (address === x)`): planners bind those values as they are, or as decimal text (a
// Uint256's), and the random-document tests compare answers at other values and clocks.
import { isDeepStrictEqual } from 'node:util';
import { normalizeAddress } from '../domain/address.js';

/** A statement as planned for one request. */
export interface PlannedStatement<P> {
  text: string;
  values: readonly unknown[];
  /** index of a value -> its function of the clock */
  clock: ReadonlyMap<number, (now: Date) => unknown>;
  /** planned from data or process state (a ranking computed in JavaScript, the indexer's view): this request's only */
  volatile: boolean;
  /** what else answering needs, the same for every request of the shape (the columns' keys, islands) */
  payload: P;
}

/** An input that may be bound rather than shape the text: a path into the inputs, and its kind. */
export interface FreeInput {
  path: string;
  kind: 'Address' | 'Hash' | 'Uint256';
}

type Binding = { value: unknown } | { input: string; text: boolean } | { clock: (now: Date) => unknown };

export interface StatementTemplate<P> {
  text: string;
  bindings: readonly Binding[];
  payload: P;
}

/** The shape's template, or why there is none: the shape is then planned for every request. */
export type TemplateOutcome<P> = { template: StatementTemplate<P> } | { none: string };

/** Planned at another clock by this much: seconds, minutes, hours and days all move. */
const PROBE_SHIFT_MS = 90_061_001;

const MASK = '\u0000bound';

/** The inputs as a cache key: free inputs that are set count as set, whatever their value. */
export function templateKey(inputs: Record<string, unknown>, free: readonly FreeInput[]): string {
  let masked = inputs;
  for (const f of free) if (valueAt(inputs, f.path) != null) masked = withValueAt(masked, f.path, MASK);
  return JSON.stringify(masked, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/**
 * Plans the request (`plan(inputs, now)`) and checks whether its statement is the shape's
 * template. `planned`: this request's statement (null: nothing the engine renders).
 */
export async function planTemplate<P>(
  plan: (inputs: Record<string, unknown>, now: Date) => Promise<PlannedStatement<P> | null>,
  inputs: Record<string, unknown>,
  free: readonly FreeInput[],
  now: Date,
  samePayload: (a: P, b: P) => boolean,
): Promise<{ planned: PlannedStatement<P> | null; outcome: TemplateOutcome<P> | null }> {
  const planned = await plan(inputs, now);
  if (!planned) return { planned, outcome: null };
  if (planned.volatile) return { planned, outcome: { none: 'planned from data or process state' } };
  const set = free.filter((f) => valueAt(inputs, f.path) != null);
  // each input another value, distinct from every other's (two inputs of one value must still tell
  // their parameters apart), numbers in the order of the values they replace: a range's bounds
  // (price min <= max) stay a range, which the parser would refuse otherwise
  const taken = new Set(set.map((f) => String(valueAt(inputs, f.path)).toLowerCase()));
  const numbers = set.filter((f) => f.kind === 'Uint256').map((f) => ({ f, n: asBigInt(valueAt(inputs, f.path)) }));
  numbers.sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
  const inOrder = [...set.filter((f) => f.kind !== 'Uint256'), ...numbers.map((x) => x.f)];
  let others = inputs;
  for (const f of inOrder) others = withValueAt(others, f.path, otherValue(f.kind, taken));
  const later = new Date(now.getTime() + PROBE_SHIFT_MS);
  let byValue: PlannedStatement<P> | null;
  let byClock: PlannedStatement<P> | null;
  try {
    [byValue, byClock] = await Promise.all([set.length ? plan(others, now) : planned, plan(inputs, later)]);
  } catch (err) {
    return { planned, outcome: { none: `planning at another value or clock failed: ${err instanceof Error ? err.message : String(err)}` } };
  }
  const same = (x: PlannedStatement<P> | null): x is PlannedStatement<P> =>
    x !== null && !x.volatile && x.text === planned.text && x.values.length === planned.values.length && samePayload(x.payload, planned.payload);
  if (!same(byValue)) return { planned, outcome: { none: 'an Address, Hash or Uint256 input shaped the statement' } };
  if (!same(byClock)) return { planned, outcome: { none: 'the clock shaped the statement' } };
  const bindings: Binding[] = [];
  for (let i = 0; i < planned.values.length; i++) {
    const value = planned.values[i];
    const clock = planned.clock.get(i);
    if (clock) {
      if (!byValue.clock.has(i) || !byClock.clock.has(i) || !isDeepStrictEqual(clock(later), byClock.values[i])) return { planned, outcome: { none: `parameter ${i + 1}: not the same function of the clock` } };
      bindings.push({ clock });
      continue;
    }
    if (byValue.clock.has(i) || byClock.clock.has(i)) return { planned, outcome: { none: `parameter ${i + 1}: from the clock in one planning only` } };
    if (!isDeepStrictEqual(value, byClock.values[i])) return { planned, outcome: { none: `parameter ${i + 1}: moved with the clock but not declared so` } };
    if (isDeepStrictEqual(value, byValue.values[i])) {
      bindings.push({ value });
      continue;
    }
    const input = set.find((f) => bound(byValue.values[i], valueAt(others, f.path)));
    if (!input || !bound(value, valueAt(inputs, input.path))) return { planned, outcome: { none: `parameter ${i + 1}: computed from an input, not bound to it` } };
    bindings.push({ input: input.path, text: typeof value === 'string' && typeof valueAt(inputs, input.path) === 'bigint' });
  }
  return { planned, outcome: { template: { text: planned.text, bindings, payload: planned.payload } } };
}

/** The template's parameter values for a request's inputs and clock. */
export function bindTemplate(template: StatementTemplate<unknown>, inputs: Record<string, unknown>, now: Date): unknown[] {
  return template.bindings.map((b) => {
    if ('value' in b) return b.value;
    if ('clock' in b) return b.clock(now);
    const v = valueAt(inputs, b.input);
    return b.text ? String(v) : v;
  });
}

/** A parameter holding an input's value as it is, or a Uint256 as its decimal text. */
const bound = (param: unknown, input: unknown) => param === input || (typeof input === 'bigint' && param === input.toString());

/** A Uint256 input as a number to order by (one that is not a decimal orders first). */
function asBigInt(v: unknown): bigint {
  try {
    return BigInt(v as bigint | string);
  } catch {
    return -1n;
  }
}

/** A valid value of the kind, as its scalar parses it (addresses checksummed), none of `taken` (lower case); added to it. */
function otherValue(kind: FreeInput['kind'], taken: Set<string>): unknown {
  for (let n = 1; ; n++) {
    const value = kind === 'Uint256' ? BigInt(n) : kind === 'Hash' ? `0x${n.toString(16).padStart(64, '0')}` : normalizeAddress(`0x${n.toString(16).padStart(40, '0')}`);
    const text = String(value).toLowerCase();
    if (taken.has(text)) continue;
    taken.add(text);
    return value;
  }
}

function valueAt(inputs: Record<string, unknown>, path: string): unknown {
  let v: unknown = inputs;
  for (const k of path.split('.')) v = v == null ? undefined : (v as Record<string, unknown>)[k];
  return v;
}

/** A copy of `inputs` with `value` at `path` (the objects along the path copied). */
function withValueAt(inputs: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  const inner = rest.length ? withValueAt((inputs[head!] ?? {}) as Record<string, unknown>, rest.join('.'), value) : value;
  return { ...inputs, [head!]: inner };
}
