// EXPLAIN of what each server of the peer bench actually sent for one request: the statements
// recorded on the wire (bench/pg-wire-count.mjs: text, bound parameter values and the settings
// its connection's StartupMessage set), each prepared under a throwaway name with the parameter
// types it was parsed with and explained through EXECUTE with the recorded values, under the
// settings of the connection that sent it (this service's generic-plan pool: plan_cache_mode
// force_generic_plan and its random_page_cost; its other pool: force_custom_plan), so PostgreSQL
// plans exactly what it planned for the server (prepared, parameterised statements included).
// Only reads are explained (SELECT / WITH).
// A statement the server sent as a named prepared statement is executed five times first, under
// the plan_cache_mode of that server's connections, so the plan shown is the one its connections
// settle on (PostgreSQL may switch such a statement to a generic plan at the sixth execution);
// any other statement once, so no server's timings pay for pages another one read first.
import type pg from 'pg';
import type { WireStatement } from './pg-wire-count.mjs';

export interface Explained {
  text: string;
  /** its prepared-statement name on the server's connection (unnamed: planned at each execution) */
  name?: string;
  values: (string | null)[];
  plan: string[];
  /** the session settings it was planned under (`name=value`, from its connection or the bench's defaults) */
  settings: string[];
  /** index names the plan reads, and tables it scans sequentially */
  indexes: string[];
  seqScans: string[];
}

export type ExplainMode = 'analyze' | 'plain';

const quote = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);
const isRead = (text: string) => /^\s*(?:\/\*[\s\S]*?\*\/\s*|--[^\n]*\n\s*)*(select|with)\b/i.test(text);
/** statements of the service's own timers (the floor catch-up, under an advisory lock) that may run during a capture */
const isBackground = (text: string) => /pg_advisory|floor_time_cursor/i.test(text);

let counter = 0;

/** `-c name=value` pairs of a StartupMessage's options. */
export function optionSettings(options: string | undefined): Record<string, string> | null {
  if (!options) return null;
  const out: Record<string, string> = {};
  for (const m of options.matchAll(/-c\s*([a-z_.]+)=(\S+)/g)) out[m[1]!] = m[2]!;
  return Object.keys(out).length ? out : null;
}

/**
 * Prepares and explains every read among `statements` on `client` (EXPLAIN (ANALYZE, BUFFERS) once,
 * or plain), each under the settings its connection set, or else `planCacheMode` and `settings`.
 */
export async function explainStatements(
  client: pg.Client,
  statements: readonly WireStatement[],
  mode: ExplainMode,
  planCacheMode = 'auto',
  /** the other settings of that server's connections when a statement's own are not recorded */
  settings: Record<string, string> = {},
): Promise<Explained[]> {
  const out: Explained[] = [];
  for (const st of statements) {
    if (!isRead(st.text) || isBackground(st.text)) continue;
    const session = optionSettings(st.options) ?? { plan_cache_mode: planCacheMode, ...settings };
    await client.query('RESET ALL');
    for (const [k, v] of Object.entries(session)) await client.query(`SET ${k} = ${v}`);
    const name = `bench_explain_${++counter}`;
    let plan: string[];
    try {
      const types = st.types.length ? (await client.query<{ t: string }>(`SELECT CASE WHEN o = 0 THEN 'unknown' ELSE format_type(o, NULL) END AS t FROM unnest($1::oid[]) WITH ORDINALITY AS u(o, i) ORDER BY i`, [st.types])).rows.map((r) => r.t) : [];
      await client.query(`PREPARE ${name}${types.length ? `(${types.join(', ')})` : ''} AS ${st.text}`);
      const options = mode === 'analyze' ? 'ANALYZE, BUFFERS, COSTS OFF' : 'COSTS OFF';
      const args = st.values.length ? `(${st.values.map(quote).join(', ')})` : '';
      for (let i = 0; i < (st.name ? 5 : 1); i++) await client.query(`EXECUTE ${name}${args}`);
      const r = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (${options}) EXECUTE ${name}${args}`);
      plan = r.rows.map((row) => row['QUERY PLAN']);
    } catch (err) {
      plan = [`(EXPLAIN failed: ${err instanceof Error ? err.message : String(err)})`];
      await client.query(`DEALLOCATE ALL`).catch(() => {});
    }
    await client.query(`DEALLOCATE ${name}`).catch(() => {});
    const joined = plan.join('\n');
    out.push({
      text: st.text,
      name: st.name,
      values: st.values,
      settings: Object.entries(session).map(([k, v]) => `${k}=${v}`),
      plan,
      indexes: [...new Set([...joined.matchAll(/(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) (\S+)/g)].map((m) => m[1]!))].sort(),
      seqScans: [...new Set([...joined.matchAll(/Seq Scan on (\S+)/g)].map((m) => m[1]!))].sort(),
    });
  }
  return out;
}

const oneLine = (text: string, max: number) => {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max)}... (${s.length} chars)` : s;
};

/** The statements and plans of one system for one shape, indented, for the bench output. */
export function formatExplained(system: string, list: readonly Explained[], opts: { maxText?: number } = {}): string {
  const lines = [`  ${system}: ${list.length} read statement(s); indexes: ${summary(list)}`];
  list.forEach((e, i) => {
    lines.push(`    #${i + 1}${e.name ? ` (prepared statement ${e.name}: plan after 5 executions)` : ''} ${oneLine(e.text, opts.maxText ?? 700)}`);
    lines.push(`       planned under: ${e.settings.join(', ')}`);
    if (e.values.length) lines.push(`       values: ${e.values.map((v, j) => `$${j + 1}=${v === null ? 'NULL' : oneLine(v, 80)}`).join(', ')}`);
    for (const p of e.plan) lines.push(`       ${p}`);
  });
  return lines.join('\n');
}

/** "idx_a, idx_b; Seq Scan on t" */
export function summary(list: readonly Explained[]): string {
  const idx = [...new Set(list.flatMap((e) => e.indexes))].sort();
  const seq = [...new Set(list.flatMap((e) => e.seqScans))].sort();
  return `${idx.join(', ') || '(none)'}${seq.length ? `; Seq Scan on ${seq.join(', ')}` : ''}`;
}

/** The indexes of `a` not in `b` and of `b` not in `a` (for "same indexes?"). */
export function indexDifference(a: readonly Explained[], b: readonly Explained[]): { onlyA: string[]; onlyB: string[] } {
  const ia = new Set(a.flatMap((e) => e.indexes));
  const ib = new Set(b.flatMap((e) => e.indexes));
  return { onlyA: [...ia].filter((x) => !ib.has(x)).sort(), onlyB: [...ib].filter((x) => !ia.has(x)).sort() };
}
