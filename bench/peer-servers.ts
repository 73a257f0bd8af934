// The servers of the peer benchmark, each in its own process (so its resident memory is its own
// and no two share an event loop), started by bench/peer-bench.ts:
//   app          this service (boot() of the real app) over DATABASE_URL or DATA_DIR (the bench
//                serves dist/ instead, as npm start does; this mode is for --app tsx and read-levers)
//   postgraphile PostGraphile v5 as bench/peer-postgraphile.ts configures it, over the same tables
//   floor        the hand-written server: POST /<shape key> {variables} runs that shape's one
//                statement (bench/peer-floor-sql.ts) and sends the JSON text PostgreSQL built,
//                through node:http and pg. The statement is prepared under a name, so each
//                connection parses it once and PostgreSQL's plan cache (plan_cache_mode auto, its
//                default) may keep a generic plan after five executions; JIT is off on its
//                connections (compiling costs more than these statements run). Where a generic
//                plan would be wrong for a skewed collection, bench/peer-generic-plans.ts shows
//                both plans: the floor is not given force_custom_plan to hide it.
// Each counts (and on request records) the SQL statements it sends and reports its port over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_APP_ENV, countPgStatements, reportToParent } from './helpers.js';

const mode = process.argv[2];
const counter = countPgStatements();

async function listen(server: import('node:http').Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reportToParent((server.address() as AddressInfo).port, counter);
}

if (mode === 'app') {
  const { boot } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const env: Record<string, string> = { ...BENCH_APP_ENV };
  for (const k of ['DATABASE_URL', 'DATA_DIR'] as const) if (process.env[k]) env[k] = process.env[k]!;
  const running = await boot(loadConfig(env), createLogger('silent'), { indexer: false });
  await listen(createServer(running.yoga));
} else if (mode === 'postgraphile') {
  const { makePostGraphile } = await import('./peer-postgraphile.js');
  const { createRequire } = await import('node:module');
  const { grafserv } = createRequire(new URL('./peer/package.json', import.meta.url))('postgraphile/grafserv/node');
  const pgl = makePostGraphile(process.env.DATABASE_URL!);
  const serv = pgl.createServ(grafserv);
  const server = createServer();
  serv.addTo(server);
  await pgl.getSchema();
  await listen(server);
} else if (mode === 'floor') {
  const pg = (await import('pg')).default;
  const { SHAPES } = await import('./peer-shapes.js');
  const { FLOOR_CONNECTION_OPTIONS, floorContext } = await import('./peer-floor-sql.js');
  const { loadConfig } = await import('../src/config.js');
  // the same configuration the app reads (network strategies, listing rewards)
  const config = loadConfig({ ...BENCH_APP_ENV, DATABASE_URL: process.env.DATABASE_URL! });
  const ctx = floorContext(config);
  const byPath = new Map(SHAPES.map((s) => [`/${s.key}`, s]));
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10, options: FLOOR_CONNECTION_OPTIONS });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const shape = byPath.get(req.url ?? '');
        if (!shape) throw new Error(`no shape at ${req.url}`);
        const { variables } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        const ms = Date.now();
        const now = { sec: Math.floor(ms / 1000), iso: new Date(ms).toISOString() };
        const { rows } = await pool.query({ name: `floor_${shape.key}`, text: shape.floor.text, values: shape.floor.params(variables ?? {}, now, ctx) });
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(rows[0].body);
      } catch (err) {
        res.writeHead(500);
        res.end(String(err));
      }
    });
  });
  await listen(server);
} else {
  throw new Error(`peer-servers: unknown mode ${mode}; expected app, postgraphile or floor`);
}
