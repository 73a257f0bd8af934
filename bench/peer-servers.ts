// The three servers of the peer benchmark, each in its own process (so its resident memory is
// its own and no two share an event loop), started by bench/peer-bench.ts:
//   app          this service (boot() of the real app) over DATABASE_URL or DATA_DIR
//   postgraphile PostGraphile v5, amber preset, over the same PostgreSQL tables
//   floor        the hand-written SQL floor: one statement through pg that builds the exact JSON
//                this service answers for the nested query, served by node:http
// Each counts the SQL statements it sends at its pg driver and reports its port over IPC.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
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
  // Node 20 lacks Promise.withResolvers, which PostGraphile 5 uses; it must exist before it loads.
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= () => {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
  // Installed in its own package, bench/peer (scripts/ensure-bench-peer.mjs, prebench:peer); CommonJS.
  const peer = createRequire(new URL('./peer/package.json', import.meta.url));
  const { postgraphile } = peer('postgraphile') as { postgraphile: (preset: never) => any };
  const { PostGraphileAmberPreset } = peer('postgraphile/presets/amber') as { PostGraphileAmberPreset: unknown };
  const { makePgService } = peer('postgraphile/adaptors/pg') as { makePgService: (opts: never) => unknown };
  const { grafserv } = peer('postgraphile/grafserv/node') as { grafserv: unknown };
  const pgl = postgraphile({
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ connectionString: process.env.DATABASE_URL!, schemas: ['public'], poolMaxSize: 10 } as never)],
    grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
    grafast: { explain: false },
  } as never);
  const serv = pgl.createServ(grafserv);
  const server = createServer();
  serv.addTo(server);
  await pgl.getSchema();
  await listen(server);
} else if (mode === 'floor') {
  const pg = (await import('pg')).default;
  const { FLOOR_NESTED_SQL } = await import('./peer-queries.js');
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const { variables } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const { rows } = await pool.query(FLOOR_NESTED_SQL, [variables.collection, Math.floor(Date.now() / 1000)]);
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
