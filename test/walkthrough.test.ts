// README "Who uses this and how", executed: every GraphQL block and every curl of that section
// runs against the demo marketplace and must succeed, and the bot's path (nonce, sign with the
// original v1 SDK, POST /api/v1/orders) stores the order. A README edit that breaks a step fails here.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/db/seed-demo.js';
import { DEMO_COLLECTION } from '../src/http/pages/demo-addresses.js';
import { signWithV1Sdk } from './helpers/maker-orders.js';
import { available, titled } from './helpers/skip-reasons.js';
import { FIXED_NOW, startTestApp, type TestApp } from './helpers/test-app.js';
import { backendName } from './helpers/test-database.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Who uses this and how'), readme.indexOf('\n## ', readme.indexOf('## Who uses this and how') + 5));
const graphqlBlocks = [...section.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!);
const curlPaths = [...section.matchAll(/^curl [^']*'localhost:4000([^']+)'/gm)].map((m) => m[1]!);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await seedDemo(app.services, { orderCount: 120, saleCount: 400 });
});
afterAll(() => app?.close());

describe(`README walk-through (${backendName})`, () => {
  it('has steps to run', () => {
    expect(graphqlBlocks.length).toBeGreaterThanOrEqual(3);
    expect(curlPaths.length).toBeGreaterThanOrEqual(5);
  });

  it.each(graphqlBlocks.map((q, i) => [i + 1, q] as const))('GraphQL block %i answers without errors', async (_i, query) => {
    const r = await app.gql(query);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.data)).not.toBe('{}');
  });

  it.each(curlPaths)('curl %s answers 200', async (path) => {
    const r = await app.rest(path);
    expect(r.status).toBe(200);
    if (path.startsWith('/api/v1/') && !path.endsWith('openapi.json')) expect(r.body.success).toBe(true);
  });

  it('the demo data answers the frontend query with a collection page', async () => {
    const r = await app.gql(graphqlBlocks[0]!);
    const c = (r.data as any).collection;
    expect(c.name).toBe('Lantern Owls');
    expect(c.orders.edges.length).toBeGreaterThan(0);
  });

  it.runIf(available().sdk)(titled('a bot: nonce, sign with the v1 SDK, POST /api/v1/orders -> 201', 'sdk'), async () => {
    const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'; // Hardhat's first development key
    const signer = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    const nonce = await app.rest(`/api/v1/orders/nonce?address=${signer}`);
    expect(nonce.body.success).toBe(true);
    const net = app.config.network;
    const now = Math.floor(FIXED_NOW.getTime() / 1000);
    const [signed] = await signWithV1Sdk(net.chainId, net.exchange, [
      {
        privateKey: KEY,
        order: {
          isOrderAsk: true,
          signer,
          collection: DEMO_COLLECTION,
          price: '1000000000000000000',
          tokenId: '77',
          amount: '1',
          strategy: net.strategies.standardSale[0]!,
          currency: net.weth,
          nonce: nonce.body.data,
          startTime: now - 60,
          endTime: now + 86_400,
          minPercentageToAsk: 9800,
          params: [],
        },
      },
    ]);
    const posted = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed!.makerOrder) });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body.data).toMatchObject({ hash: signed!.structHash, status: 'VALID' });
  });
});
