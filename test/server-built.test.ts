// The built service, as `npm start` and the operator commands run it: scripts/run-built.mjs with
// npm start's Node flags, running dist/ (esbuild bundles, worker threads beside their chunks,
// packages left external) with plain Node. The rest of the suite runs the TypeScript sources, so
// this file is what catches a build that bundles wrongly or misses a file. The global setup
// (test/helpers/build-dist.ts) rebuilt dist/ first if a source was newer.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START_NODE_FLAGS } from '../scripts/start-node-flags.js';
import { ENTRIES } from '../scripts/build.mjs';
import { loadConfig } from '../src/config.js';
import { DEMO_COLLECTION } from '../src/demo/demo-addresses.js';
import { DEMO_API_KEY } from '../src/demo/demo-api-key.js';
import { signWithEthers6, standardAsk } from './helpers/maker-orders.js';
import { spawnServerProcess } from './helpers/server-process.js';
import { backendName, createPostgresDatabase, TEST_DATABASE_URL } from './helpers/test-database.js';

const run = promisify(execFile);
const root = mkdtempSync(path.join(tmpdir(), 'mkt-built-'));
const children: ChildProcess[] = [];
let database: { env: Record<string, string>; drop(): Promise<void> };

beforeAll(async () => {
  if (TEST_DATABASE_URL) {
    const created = await createPostgresDatabase();
    database = { env: { DATABASE_URL: created.url }, drop: created.drop };
    // PostgreSQL is never seeded by the server: an operator runs `npm run seed`, the built command.
    await run(process.execPath, ['scripts/run-built.mjs', 'seed'], { env: env({ LOG_LEVEL: 'warn' }) });
  } else {
    // The embedded database seeds itself on its first start (from dist/demo-template when the build made one).
    database = { env: { DATABASE_URL: '', DATA_DIR: path.join(root, 'data') }, drop: async () => {} };
  }
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await database?.drop();
  rmSync(root, { recursive: true, force: true });
});

const env = (over: Record<string, string> = {}) => ({ ...process.env, LOG_LEVEL: 'info', SIGNATURE_WORKERS: '0', PORT: '0', HOST: '127.0.0.1', ...database.env, ...over });

/** `npm start` without npm: the same script and flags. `ready` resolves with its base URL. */
function startBuilt() {
  const server = spawnServerProcess([...START_NODE_FLAGS, 'scripts/run-built.mjs', 'server'], env());
  children.push(server.child);
  return { ...server, ready: server.ready.then((port) => `http://127.0.0.1:${port}`) };
}

async function stop(server: ReturnType<typeof startBuilt>) {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

describe(`the built service (${backendName})`, () => {
  let hash: string;

  it('starts from dist/, says each step with its time, serves the demo and stores a signed order', async () => {
    const server = startBuilt();
    const base = await server.ready;
    const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    // Startup says what it does and how long each step took, from the built code.
    const steps = lines.filter((l) => typeof l.step === 'string' && typeof l.ms === 'number').map((l) => l.step as string);
    expect(steps).toEqual(expect.arrayContaining(['load modules', 'http app', 'migrations', 'listen']));
    expect(server.output()).not.toContain('rebuilt dist/'); // the global setup left it current
    // The demo it seeded has its own API key, said at start; PostgreSQL (seeded by `npm run seed`) never has it.
    const demoKey = lines.find((l) => l.apiKey === DEMO_API_KEY);
    const webhooks = await fetch(`${base}/api/v1/webhooks`, { headers: { 'x-looks-api-key': DEMO_API_KEY } });
    if (TEST_DATABASE_URL) {
      expect(demoKey).toBeUndefined();
      expect(webhooks.status).toBe(403);
    } else {
      expect(demoKey?.msg).toContain(DEMO_API_KEY);
      expect(webhooks.status).toBe(200);
    }

    // Reads: the demo marketplace through REST and GraphQL.
    const collection = await (await fetch(`${base}/api/v1/collections?address=${DEMO_COLLECTION}`)).json();
    expect(collection.success).toBe(true);
    expect(collection.data.name).toBe('Lantern Owls');
    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ collection(address: "${DEMO_COLLECTION}") { name orders(first: 2) { edges { node { hash } } } } }` }),
    });
    const page = await gql.json();
    expect(page.errors).toBeUndefined();
    expect(page.data.collection.orders.edges.length).toBeGreaterThan(0);

    // A write through the signature check (native or JS crypto, whichever started) and the database.
    const net = loadConfig({}).network;
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const nonce = await (await fetch(`${base}/api/v1/orders/nonce?address=${wallet.address}`)).json();
    expect(nonce.success).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    const order = await signWithEthers6(wallet, net.chainId, net.exchange, standardAsk(net, { signer: wallet.address, collection: DEMO_COLLECTION, nonce: nonce.data, now }));
    const created = await fetch(`${base}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) });
    const body = await created.json();
    expect(created.status, JSON.stringify(body)).toBe(201);
    hash = body.data.hash;

    // Bad input still gets the envelope from the bundle (zod and the REST adapter bundled in).
    const bad = await fetch(`${base}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"signer":1' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).success).toBe(false);

    // The GraphiQL page (an external package loaded on demand) and the metrics.
    const ide = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(ide.status).toBe(200);
    expect(ide.headers.get('content-security-policy')).toMatch(/script-src 'sha256-/);
    expect(await ide.text()).toContain('GraphiQL');
    expect((await fetch(`${base}/api/v1/docs`)).headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);

    // A collection page and the files it loads (uPlot from node_modules, the page scripts from src/).
    const collectionPage = await (await fetch(`${base}/collections/${DEMO_COLLECTION}`)).text();
    const assets = [...collectionPage.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(5);
    for (const asset of assets) expect([asset, (await fetch(base + asset)).status]).toEqual([asset, 200]);
    await stop(server);
  });

  it('restarts on the same data and still has the order', async () => {
    const server = startBuilt();
    const base = await server.ready;
    const found = await (await fetch(`${base}/api/v1/orders?hash=${hash}`)).json();
    expect(found.success).toBe(true);
    expect(found.data.map((o: { hash: string }) => o.hash)).toEqual([hash]);
    await stop(server);
  });

  it('every built command answers --help without touching a database', async () => {
    const entries = Object.keys(ENTRIES).filter((e) => e !== 'build-demo-template');
    const dataDir = path.join(root, 'help');
    const results = await Promise.all(entries.map((e) => run(process.execPath, ['scripts/run-built.mjs', e, '--help'], { env: env({ DATA_DIR: dataDir, DATABASE_URL: '' }) })));
    for (const [i, r] of results.entries()) {
      expect(r.stdout, entries[i]).toMatch(/^usage: /);
      expect(r.stderr, entries[i]).toBe('');
    }
    expect(existsSync(dataDir)).toBe(false);
  });
});
