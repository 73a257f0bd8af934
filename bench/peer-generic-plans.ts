// The floor's statements (bench/peer-floor-sql.ts) on a loaded market, each planned both ways:
// a custom plan (planned for the request's values at every execution) and the generic plan
// (planned once for any value, from average statistics), under the floor's own connection
// settings. Per shape: the median time of an EXECUTE under each, PostgreSQL's cost estimate of
// each, which one plan_cache_mode `auto` (the default, what the floor and PostGraphile run under)
// keeps after its five custom executions, and EXPLAIN (ANALYZE, BUFFERS) of both plans when they
// differ. The values are the peer bench's (its hot collection, busiest token, ...): where a generic
// plan made for an average collection is wrong for the hot one, this is where it shows.
//
//   npx tsx bench/peer-generic-plans.ts [--orders 100000 | --db-url postgresql://.../db]
//                                       [--shapes a,b] [--runs 100] [--all-plans] [--set name=value ...]
//
// --orders names the database `npm run bench:peer -- --keep-db` (or bench/scale-loader.ts) kept.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { BENCH_APP_ENV, DEFAULT_PG_URL, fixed, runBench, table } from './helpers.js';
import { FLOOR_SETTINGS, floorContext } from './peer-floor-sql.js';
import { SHAPES, type Shape } from './peer-shapes.js';
import { keptDatabaseName, pickTargets, scaleDefaults } from './scale-loader.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '100000' },
    'db-url': { type: 'string' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    shapes: { type: 'string' },
    runs: { type: 'string', default: '100' },
    'all-plans': { type: 'boolean', default: false },
    /** a setting on top of the floor's (name=value), to see what moves the generic plan; repeatable */
    set: { type: 'string', multiple: true },
  },
});
const runs = Number(values.runs);
const shapes: Shape[] = values.shapes ? values.shapes.split(',').map((k) => SHAPES.find((s) => s.key === k.trim()) ?? fail(`--shapes: no shape ${k}`)) : SHAPES;
const SETTINGS: Record<string, string> = { ...FLOOR_SETTINGS, ...Object.fromEntries((values.set ?? []).map((kv) => kv.split('=', 2) as [string, string])) };
function fail(m: string): never {
  throw new Error(m);
}

/** A bound value as pg sends it (text; arrays as array literals). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => string | null };
const literal = (v: unknown) => {
  const t = prepareValue(v);
  return t === null ? 'NULL' : `'${t.replace(/'/g, "''")}'`;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** A plan's nodes (what it scans and how, without conditions or figures), to tell whether two plans are the same. */
const planShape = (lines: string[]) =>
  lines
    .filter((l, i) => i === 0 || /->|^\s*(InitPlan|SubPlan|CTE) /.test(l))
    .map((l) => l.replace(/\s*\((actual|never executed|returns)[^)]*\)/g, '').trimEnd())
    .join('\n');

interface Side {
  medianMs: number;
  cost: number;
  plan: string[];
}

async function sideOf(client: pg.Client, name: string, args: string, mode: string): Promise<Side> {
  await client.query(`SET plan_cache_mode = ${mode}`);
  for (let i = 0; i < 3; i++) await client.query(`EXECUTE ${name}${args}`);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await client.query(`EXECUTE ${name}${args}`);
    times.push(performance.now() - t0);
  }
  const [json] = (await client.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args}`)).rows;
  const cost = Number(json['QUERY PLAN'][0].Plan['Total Cost']);
  const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE ${name}${args}`)).rows.map((r) => r['QUERY PLAN']);
  return { medianMs: median(times), cost, plan };
}

/** What `auto` settles on: a fresh statement executed ten times, then its plan counts. */
async function autoChoice(client: pg.Client, name: string, text: string, args: string): Promise<string> {
  await client.query(`DEALLOCATE ${name}`);
  await client.query(`PREPARE ${name} AS ${text}`);
  await client.query(`SET plan_cache_mode = auto`);
  for (let i = 0; i < 10; i++) await client.query(`EXECUTE ${name}${args}`);
  const [row] = (await client.query(`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1`, [name])).rows;
  return Number(row.generic_plans) > 0 ? `generic (from execution ${Number(row.custom_plans) + 1})` : 'custom';
}

async function main() {
  const dbUrl =
    values['db-url'] ??
    (() => {
      const url = new URL(values['pg-url']!);
      url.pathname = `/${keptDatabaseName(scaleDefaults(Number(values.orders)))}`;
      return url.toString();
    })();
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const picks = await pickTargets({ query: async (text, params) => (await client.query(text, params as unknown[])).rows });
    const ctx = floorContext(loadConfig({ ...BENCH_APP_ENV, DATABASE_URL: dbUrl }));
    const settings = Object.entries(SETTINGS).map(([k, v]) => `${k}=${v}`);
    console.log(`floor statements, custom against generic plan, ${new Date().toISOString()}; ${new URL(dbUrl).pathname.slice(1)}; settings ${settings.join(', ')}${values.set ? ' (--set on top of the floor\'s)' : " (the floor's)"}; ${runs} EXECUTEs each (median, client round trip); targets ${JSON.stringify(picks)}`);
    const rows: (string | number)[][] = [];
    for (const shape of shapes) {
      const ms = Date.now();
      const params = shape.floor.params(shape.vars(picks), { sec: Math.floor(ms / 1000), iso: new Date(ms).toISOString() }, ctx);
      const args = params.length ? `(${params.map(literal).join(', ')})` : '';
      const name = `generic_vs_custom_${shape.key}`;
      await client.query('RESET ALL');
      for (const [k, v] of Object.entries(SETTINGS)) await client.query(`SET ${k} = ${v}`);
      await client.query(`PREPARE ${name} AS ${shape.floor.text}`);
      const custom = await sideOf(client, name, args, 'force_custom_plan');
      const generic = await sideOf(client, name, args, 'force_generic_plan');
      const auto = await autoChoice(client, name, shape.floor.text, args);
      await client.query(`DEALLOCATE ${name}`);
      const same = planShape(custom.plan) === planShape(generic.plan);
      rows.push([`${shape.key} ${shape.title}`, fixed(custom.medianMs, 3), fixed(generic.medianMs, 3), `${fixed(generic.medianMs / custom.medianMs, 2)}x`, fixed(custom.cost, 1), fixed(generic.cost, 1), same ? 'same' : 'DIFFERENT', auto]);
      if (!same || values['all-plans']) {
        console.log(`\n--- shape ${shape.key}: ${shape.title}: ${same ? 'the same plan' : 'the plans differ'}; auto keeps: ${auto}`);
        console.log(`  custom plan (force_custom_plan; estimated cost ${fixed(custom.cost, 1)}, median ${fixed(custom.medianMs, 3)} ms):`);
        for (const l of custom.plan) console.log(`    ${l}`);
        console.log(`  generic plan (force_generic_plan; estimated cost ${fixed(generic.cost, 1)}, median ${fixed(generic.medianMs, 3)} ms):`);
        for (const l of generic.plan) console.log(`    ${l}`);
      }
    }
    console.log(`\n=== custom against generic plan per floor statement (auto: what plan_cache_mode auto keeps after five custom executions)`);
    console.log(table(['shape', 'custom ms', 'generic ms', 'generic/custom', 'custom cost', 'generic cost', 'plans', 'auto keeps'], rows));
  } finally {
    await client.end();
  }
}

await runBench(main);
