// A typed REST client made from our served document, as an integration team would make one:
// openapi-typescript generates the types from /api/v1/openapi.json of a listening server, a small
// openapi-fetch program calls every route with them (POST /orders with an order signed by the
// original v1 SDK), `tsc --strict` compiles it, and the compiled program runs against the server.
// A document change that breaks generated clients, or answers they cannot type, fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { DEMO_COLLECTION } from '../../src/demo/demo-addresses.js';
import { signWithV1Sdk } from '../helpers/maker-orders.js';
import { available, titled } from '../helpers/skip-reasons.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
// Hardhat's first development key: a signer the demo data does not know
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const SIGNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** The client program: every route through openapi-fetch, typed by the generated `paths`. */
const clientSource = (order: unknown) => `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Order = components['schemas']['Order'];
type MakerOrder = components['schemas']['MakerOrder'];

const order: MakerOrder = ${JSON.stringify(order, null, 2)};
const collection = ${JSON.stringify(DEMO_COLLECTION)};

const client = createClient<paths>({ baseUrl: process.argv[2] });
const results: Record<string, { status: number; [k: string]: unknown }> = {};

const listed = await client.GET('/api/v1/orders', {
  params: { query: { collection, isOrderAsk: 'true', 'status[]': ['VALID'], sort: 'PRICE_ASC', pagination: { first: '5' } } },
});
const orders: Order[] = listed.data?.data ?? [];
results.listOrders = { status: listed.response.status, count: orders.length, statuses: orders.map((o) => o.status), prices: orders.map((o) => o.price) };

const offers = await client.GET('/api/v1/orders', { params: { query: { isOrderAsk: 'false', pagination: { first: '150' } } } });
const tokenIds: (string | null)[] = (offers.data?.data ?? []).map((o) => o.tokenId);
results.listOffers = { status: offers.response.status, collectionOffers: tokenIds.filter((t) => t === null).length };

const nonce = await client.GET('/api/v1/orders/nonce', { params: { query: { address: order.signer } } });
const next: string | undefined = nonce.data?.data;
results.nonce = { status: nonce.response.status, nonce: next };

const dryRun = await client.POST('/api/v1/orders/validate', { body: order });
results.validate = { status: dryRun.response.status, valid: dryRun.data?.data.valid, hash: dryRun.data?.data.hash };

const created = await client.POST('/api/v1/orders', { body: order });
const stored: Order | undefined = created.data?.data;
results.createOrder = { status: created.response.status, hash: stored?.hash, orderStatus: stored?.status };

const again = await client.POST('/api/v1/orders', { body: order });
results.createAgain = { status: again.response.status, codes: again.error?.errors?.map((e) => e.code) ?? [], message: again.error?.message };

const found = await client.GET('/api/v1/orders', { params: { query: { hash: stored?.hash } } });
results.getByHash = { status: found.response.status, hashes: (found.data?.data ?? []).map((o) => o.hash) };

const one = await client.GET('/api/v1/collections', { params: { query: { address: collection } } });
results.collection = { status: one.response.status, name: one.data?.data?.name };

const stats = await client.GET('/api/v1/collections/stats', { params: { query: { address: collection } } });
results.collectionStats = { status: stats.response.status, floorPrice: stats.data?.data?.floorPrice };

const rewards = await client.GET('/api/v1/collections/listing-rewards');
results.listingRewards = { status: rewards.response.status, count: rewards.data?.data?.length ?? null };

const indexer = await client.GET('/api/v1/indexer/status');
const chainId: number | undefined = indexer.data?.data.chainId;
results.indexerStatus = { status: indexer.response.status, chainId };

const bad = await client.GET('/api/v1/orders/nonce', { params: { query: { address: 'nobody' } } });
results.badRequest = { status: bad.response.status, fields: bad.error?.errors?.map((e) => e.field) ?? [] };

console.log(JSON.stringify(results));
`;

let app: TestApp;
let server: Server;
let base: string;
let dir: string;
beforeAll(async () => {
  app = await startTestApp();
  await seedDemo(app.services, { orderCount: 60, saleCount: 60 });
  // the request handler the server listens with (src/server.ts), not yoga alone
  server = createServer(app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
  // the program resolves openapi-fetch and typescript's own types from this checkout
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a typed REST client generated from the served OpenAPI document', () => {
  it.runIf(available().sdk)(titled('compiles under tsc --strict and calls every route, POST /orders with a v1 SDK signed order', 'sdk'), async () => {
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(new URL(`${base}/api/v1/openapi.json`))));

    const net = app.config.network;
    const now = Math.floor(app.clock.now.getTime() / 1000);
    const nonce = (await app.rest(`/api/v1/orders/nonce?address=${SIGNER}`)).body.data as string;
    const [signed] = await signWithV1Sdk(net.chainId, net.exchange, [
      {
        privateKey: KEY,
        order: {
          isOrderAsk: true, signer: SIGNER, collection: DEMO_COLLECTION, price: '1000000000000000000', tokenId: '42', amount: '1',
          strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce, startTime: now - 60, endTime: now + 86_400,
          minPercentageToAsk: 9800, params: [],
        },
      },
    ]);
    writeFileSync(join(dir, 'client.ts'), clientSource(signed!.makerOrder));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noUncheckedIndexedAccess: true, target: 'ES2022', lib: ['ES2023', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], outDir: 'out' },
        files: ['client.ts', 'api.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    // tsc exits non-zero on a type error and prints it on stdout
    const compiled = await run(process.execPath, [tsc, '-p', dir, '--strict'], { cwd: dir }).catch((err: { stdout: string }) => err);
    expect(compiled.stdout, 'tsc --strict output').toBe('');

    const { stdout } = await run(process.execPath, [join(dir, 'out/client.js'), base], { cwd: dir });
    const r = JSON.parse(stdout);
    expect(r.listOrders).toMatchObject({ status: 200 });
    expect(r.listOrders.count).toBeGreaterThan(0);
    expect(new Set(r.listOrders.statuses)).toEqual(new Set(['VALID']));
    expect(r.listOrders.prices.map(BigInt)).toEqual([...r.listOrders.prices.map(BigInt)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(r.listOffers.status).toBe(200);
    expect(r.listOffers.collectionOffers).toBeGreaterThan(0);
    expect(r.nonce).toEqual({ status: 200, nonce });
    expect(r.validate).toEqual({ status: 200, valid: true, hash: signed!.structHash });
    expect(r.createOrder).toEqual({ status: 201, hash: signed!.structHash, orderStatus: 'VALID' });
    expect(r.createAgain).toMatchObject({ status: 400, codes: ['DUPLICATE_ORDER'] });
    expect(r.getByHash).toEqual({ status: 200, hashes: [signed!.structHash] });
    expect(r.collection).toEqual({ status: 200, name: 'Lantern Owls' });
    expect(r.collectionStats.status).toBe(200);
    expect(r.listingRewards.status).toBe(200);
    expect(r.indexerStatus).toEqual({ status: 200, chainId: net.chainId });
    expect(r.badRequest).toEqual({ status: 400, fields: ['address'] });
  });
});
