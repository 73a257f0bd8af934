// What the read engine costs in Node per request, without the database or HTTP in the figure:
// each GraphQL shape of the peer mix (bench/peer-shapes.ts) planned into its statement again and
// again, the statement answered by a stub that returns the row the real one returned once. So a
// figure is the planning (the SQL text built from the document, its parameters) and the
// assembly of the answer, the work a template per document would save in part (TODO.md). It runs
// the sources through tsx, whose esbuild transform names every closure it creates (`__name`,
// about a tenth of planCollectionStats' time in a profile); the built server does not, so its
// share is somewhat lower than printed here.
//
//   npx tsx bench/plan-cost.ts --reuse-url postgresql://.../a database the peer bench loaded
//                              [--shapes a,e,f] [--iterations 2000]
import { parseArgs } from 'node:util';
import { parse } from 'graphql';
import pg from 'pg';
import { createContext } from '../src/context.js';
import { answerWithEngine } from '../src/read-engine/read-engine.js';
import { schema } from '../src/schema/index.js';
import { bootBenchApp, fixed, machine, runBench, table } from './helpers.js';
import { SHAPES } from './peer-shapes.js';
import { pickTargets } from './scale-loader.js';

const { values } = parseArgs({
  options: {
    'reuse-url': { type: 'string' },
    shapes: { type: 'string' },
    iterations: { type: 'string', default: '2000' },
  },
});

async function main() {
  const url = values['reuse-url'];
  if (!url) throw new Error('--reuse-url: a database `npm run bench:peer -- --keep-db` loaded');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const picks = await pickTargets({ query: async (text: string, params?: unknown[]) => (await client.query(text, params as unknown[])).rows });
  await client.end();
  const app = await bootBenchApp({ kind: 'postgres', env: { DATABASE_URL: url }, url, describe: url });
  const sql = app.services.deps.db.sql;
  const real = sql.query.bind(sql);
  // the engine's statement (it selects r0, r1, ... of finished JSON) answered from the first real answer
  let recorded: unknown[] | null = null;
  let stubbed = false;
  sql.query = (async (text: string, params?: unknown[], name?: string) => {
    if (!/ AS r0\b/.test(text)) return real(text, params as never, name);
    if (stubbed && recorded) return recorded;
    recorded = await real(text, params as never, name);
    return recorded;
  }) as typeof sql.query;

  const keys = values.shapes?.split(',') ?? SHAPES.map((s) => s.key);
  const iterations = Number(values.iterations);
  const rows: string[][] = [];
  for (const shape of SHAPES.filter((s) => keys.includes(s.key) && 'query' in s.ours)) {
    const document = parse((shape.ours as { query: string }).query);
    const variableValues = shape.vars(picks);
    const once = () => answerWithEngine({ schema, document, variableValues, contextValue: createContext(app.services, new Headers()) });
    recorded = null;
    stubbed = false;
    const first = await once();
    if (first === null) {
      rows.push([shape.key, shape.title, 'not answered by the engine', '', '']);
      continue;
    }
    stubbed = true;
    for (let i = 0; i < Math.min(200, iterations); i++) await once(); // warm-up
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await once();
    const wallUs = ((performance.now() - t0) * 1000) / iterations;
    const cpu = process.cpuUsage(cpu0);
    rows.push([shape.key, shape.title, fixed(wallUs, 1), fixed((cpu.user + cpu.system) / iterations, 1), String(first.length)]);
  }
  console.log(`\n=== read engine in Node per request (no database, no HTTP), ${new Date().toISOString()}, ${machine()}; ${iterations} requests per shape`);
  console.log(table(['shape', 'title', 'µs per request', 'CPU µs per request', 'answer bytes'], rows));
  await app.close();
}

await runBench(main);
