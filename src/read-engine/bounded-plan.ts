// Whether a generic plan (PostgreSQL's plan of a statement without its parameter values, kept and
// reused: src/read-engine/generic-plans.ts) can serve every value a client may send. A generic
// plan is made for a value of average selectivity; on a skewed market the same plan then runs
// for a collection holding 6 % of the book. It is safe when its work is what its index conditions
// find, whatever they find:
//   - every node reads rows through an index or combines rows its children give (an allowlist:
//     no Sort, no Hash, no Bitmap or Seq Scan, whose cost grows with the rows a value selects
//     before a LIMIT can stop it; one that only a custom plan for a small value would choose). A
//     Sort of rows that LIMITs have already counted (the best of two one-row probes) is bounded;
//   - no client value filters rows an index did not select (`Filter: signer = $3` above an index
//     on the collection reads a hot collection's whole book to find one maker's orders), and no
//     other row's value does either (`Filter: token_id = k.token_id`, where k holds the client's
//     token: the same scan by way of a join). The clock's parameters and constants may filter:
//     they do not vary with the client.
// The node types come from EXPLAIN (FORMAT JSON); parameters show as $n in its expressions (as
// do the outputs of InitPlans, which may only make this stricter).

/** Node types whose work is bounded by what their children or their index conditions return. */
const BOUNDED = new Set([
  'Result',
  'Limit',
  'Index Scan',
  'Index Only Scan',
  'Nested Loop',
  'Subquery Scan',
  'Function Scan',
  'Values Scan',
  'ProjectSet',
  'Append',
  'Merge Append',
  'Unique',
  'Group',
  'WindowAgg',
  'Memoize',
  'Materialize',
  'CTE Scan',
]);

/** Nodes that return what their children return, no more rows (InitPlans and SubPlans aside). */
const PASS_THROUGH = new Set(['Append', 'Merge Append', 'Subquery Scan', 'Result']);

/** Aggregate strategies that read their input once, in its order (a hashed one builds a table). */
const BOUNDED_AGGREGATES = new Set(['Plain', 'Sorted']);

/** A qualified column (`k.token_id`, `o1."timestamp"`) outside a quoted literal or name. */
const OTHER_ROW = /(?:^|[\s(,])([a-z_][a-z0-9_]*\.(?:[a-z_][a-z0-9_]*|"[^"]+"))/i;

/** Expressions of a node that drop rows it has already read. */
const FILTERS = ['Filter', 'Join Filter'] as const;

interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  Strategy?: string;
  'Relation Name'?: string;
  Filter?: string;
  'Join Filter'?: string;
  Plans?: PlanNode[];
}

/** The children whose rows a node returns or consumes (an InitPlan's or SubPlan's are their own). */
const inputs = (node: PlanNode) => (node.Plans ?? []).filter((p) => p['Parent Relationship'] !== 'InitPlan' && p['Parent Relationship'] !== 'SubPlan');

/** Whether a node returns a number of rows no value can raise: a LIMIT, or only such nodes' rows. */
function countedRows(node: PlanNode): boolean {
  if (node['Node Type'] === 'Limit') return true;
  // a Result without input computes one row
  if (node['Node Type'] === 'Result' && inputs(node).length === 0) return true;
  return PASS_THROUGH.has(node['Node Type']) && countedInputs(node);
}

/** Whether a node has input and every input's rows are counted (a Sort of them is bounded). */
function countedInputs(node: PlanNode): boolean {
  const from = inputs(node);
  return from.length > 0 && from.every(countedRows);
}

/**
 * Why the generic plan `explained` (EXPLAIN (FORMAT JSON) output) cannot serve every value, or
 * null when it can. `clientParams`: the numbers ($n) of the parameters a client's value fills.
 */
export function unboundedBecause(explained: unknown, clientParams: ReadonlySet<number>): string | null {
  const root = (Array.isArray(explained) ? explained[0] : explained) as { Plan?: PlanNode } | undefined;
  if (!root?.Plan) return 'no plan';
  const stack: PlanNode[] = [root.Plan];
  while (stack.length) {
    const node = stack.pop()!;
    const type = node['Node Type'];
    const on = node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
    const bounded =
      type === 'Aggregate' ? BOUNDED_AGGREGATES.has(node.Strategy ?? '') : BOUNDED.has(type) || (type === 'Sort' && countedInputs(node));
    if (!bounded) {
      return `${type === 'Aggregate' ? `${node.Strategy} Aggregate` : type}${on}`;
    }
    for (const key of FILTERS) {
      const expr = node[key];
      if (!expr) continue;
      for (const m of expr.matchAll(/\$(\d+)/g)) {
        if (clientParams.has(Number(m[1]))) return `${key}${on} on $${m[1]}, a client's value: ${expr}`;
      }
      // EXPLAIN names the scanned relation's own columns bare and another relation's qualified
      const other = OTHER_ROW.exec(expr);
      if (other) return `${key}${on} on ${other[1]}, another row's value: ${expr}`;
    }
    if (node.Plans) stack.push(...node.Plans);
  }
  return null;
}
