// What the read engine costs in Node per request, without the database or HTTP in the figure:
// each GraphQL shape of the peer mix (bench/peer-shapes.ts) planned into its statement again and
// again, the statement answered by a stub that returns the row the real one returned once. So a
// figure is the planning (the SQL text built from the document, its parameters) and the
// assembly of the answer, the work a template per document would save in part (TODO.md). It runs
// the sources through tsx, whose esbuild transform names every closure it creates (`__name`,
// about a tenth of planCollectionStats' time in a profile); the built server does not, so its
// share is somewhat lower than printed here.
//
// Two client patterns follow the mix, with values that change on every request: a book page whose
// filter is one variable (another collection each time, as Apollo and Relay clients send it) and
// a page by cursor (another `after` each time, an infinite scroll). They show what a request costs
// when its shape is bound into a template, planned once, or checked.
//
//   npx tsx bench/plan-cost.ts --reuse-url postgresql://.../a database the peer bench loaded
//                              [--shapes a,e,f,x,y] [--iterations 2000]
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

  const keys = values.shapes?.split(',') ?? [...SHAPES.map((s) => s.key), ...Object.keys(VARYING)];
  const iterations = Number(values.iterations);
  const pools = await varyingPools(real, picks.collection);
  const cases = [
    ...SHAPES.filter((s) => 'query' in s.ours).map((s) => ({ key: s.key, title: s.title, query: (s.ours as { query: string }).query, vars: () => s.vars(picks) })),
    ...Object.entries(VARYING).map(([key, c]) => ({ key, title: c.title, query: c.query, vars: (i: number) => c.vars(pools, i) })),
  ];
  const rows: string[][] = [];
  for (const shape of cases.filter((c) => keys.includes(c.key))) {
    const document = parse(shape.query);
    let n = 0;
    const once = () => answerWithEngine({ schema, document, variableValues: shape.vars(n++), contextValue: createContext(app.services, new Headers()) });
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

interface Pools {
  collections: string[];
  /** order hashes of the picked collection's asks: a GraphQL order cursor is the order's hash */
  cursors: string[];
}

const VARYING: Record<string, { title: string; query: string; vars: (p: Pools, i: number) => Record<string, unknown> }> = {
  x: {
    title: 'book page, the filter one variable, another collection each request',
    query: `query Book($filter: OrderFilterInput) { orders(filter: $filter, first: 50, sort: PRICE_ASC) { edges { node { hash price tokenId signer } } } }`,
    vars: (p, i) => ({ filter: { collection: p.collections[i % p.collections.length], isOrderAsk: true, status: ['VALID'] } }),
  },
  y: {
    title: 'a page by cursor, another `after` each request',
    query: `query Scroll($c: Address!, $after: String) { orders(filter: { collection: $c }, first: 20, after: $after) { edges { cursor node { hash price } } } }`,
    vars: (p, i) => ({ c: p.collections[0], after: p.cursors[i % p.cursors.length] }),
  },
};

async function varyingPools(query: (text: string, params?: never) => Promise<unknown[]>, collection: string): Promise<Pools> {
  const collections = (await query(`SELECT address FROM collections ORDER BY address LIMIT 1000`)) as { address: string }[];
  const cursors = (await query(`SELECT hash FROM orders WHERE collection_address = $1 ORDER BY id LIMIT 5000`, [collection] as never)) as { hash: string }[];
  return { collections: [collection, ...collections.map((r) => r.address).filter((a) => a !== collection)], cursors: cursors.map((r) => r.hash) };
}

await runBench(main);
