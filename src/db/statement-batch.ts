// Per-request statement batching: the reads one GraphQL level issues together (a collection
// page's collection and listing rewards; then its stats and orders) go to the database as ONE
// statement, so a page costs two round trips whatever it selects. Like DataLoader, but for
// statements: calls made before the event loop moves on (setImmediate, after DataLoader's own
// batches ran) are combined as
//   SELECT (SELECT COALESCE(json_agg(t), '[]') FROM (<q1>) t) AS r0, (... <q2> ...) AS r1
// with each query's $n parameters renumbered. A lone statement is sent unchanged.
// Only queries that are JSON-safe take part (callers opt in by passing this runner): every
// NUMERIC/BIGINT cast to text, no '$<digit>' inside literals; timestamps come back as ISO
// strings. json_agg keeps the order of an ordered sub-select (PostgreSQL aggregates its input
// in scan order; PostGraphile v4 built every list this way). If the combined statement fails,
// each query is re-run alone so every caller gets its own answer or its own error.
import type { Prepared, SqlRunner } from './sql-runner.js';

interface Pending {
  text: string;
  values: unknown[];
  prepareAs?: string | Prepared;
  resolve(rows: unknown[]): void;
  reject(err: unknown): void;
}

export type StatementBatch = Pick<SqlRunner, 'query' | 'genericPlan'>;

const PARAM = /\$(\d+)/g;

export function combineStatements(list: readonly { text: string; values: readonly unknown[] }[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts = list.map((q, i) => {
    const offset = values.length;
    values.push(...q.values);
    const text = offset ? q.text.replace(PARAM, (_m, n: string) => `$${Number(n) + offset}`) : q.text;
    return `(SELECT COALESCE(json_agg(t), '[]'::json) FROM (${text}) t) AS r${i}`;
  });
  return { text: `SELECT ${parts.join(', ')}`, values };
}

export function createStatementBatch(sql: SqlRunner): StatementBatch {
  let queue: Pending[] = [];

  async function flush() {
    const batch = queue;
    queue = [];
    if (batch.length === 1) {
      const [q] = batch;
      return sql.query(q!.text, q!.values, q!.prepareAs).then(q!.resolve, q!.reject);
    }
    try {
      const combined = combineStatements(batch);
      const [row] = await sql.query<Record<string, unknown>>(combined.text, combined.values);
      batch.forEach((q, i) => {
        const v = row![`r${i}`];
        q.resolve((typeof v === 'string' ? JSON.parse(v) : v) as unknown[]);
      });
    } catch {
      for (const q of batch) await sql.query(q.text, q.values).then(q.resolve, q.reject);
    }
  }

  return {
    /** `prepareAs` names a statement that runs alone (a combined one is never named). */
    query<T>(text: string, values: unknown[] = [], prepareAs?: string | Prepared): Promise<T[]> {
      return new Promise<T[]>((resolve, reject) => {
        if (queue.length === 0) setImmediate(() => void flush());
        queue.push({ text, values, prepareAs, resolve: resolve as (rows: unknown[]) => void, reject });
      });
    },
    ...(sql.genericPlan ? { genericPlan: sql.genericPlan } : {}),
  };
}
