// Out-of-range and wrongly typed inputs: a 400 envelope or a typed GraphQL error that
// names the field, never a 500, never a row.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWithEthers6, standardAsk } from '../helpers/maker-orders.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const COLLECTION = '0x' + 'a7'.repeat(20);
let app: TestApp;
let nonce = 1;

beforeAll(async () => {
  app = await startTestApp();
  await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721', name: 'Seven' });
});
afterAll(() => app?.close());

async function order(over: Record<string, unknown>) {
  const net = app.config.network;
  const base = standardAsk(net, { signer: wallet.address, collection: COLLECTION, nonce: nonce++, now: NOW });
  // signed over the in-range base; the value under test replaces it afterwards (shape comes first)
  return { ...(await signWithEthers6(wallet, net.chainId, net.exchange, base)), ...over };
}
const post = (path: string, body: unknown) =>
  app.rest(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe(`integer fields beyond their range (${backendName})`, () => {
  for (const value of [2 ** 31, 2 ** 32, 2 ** 53 - 1, '4294967296', 1e300]) {
    it(`minPercentageToAsk = ${value}: POST /orders 400 naming the field, /orders/validate names it, nothing stored`, async () => {
      const before = await app.db.prisma.order.count();
      const created = await post('/api/v1/orders', await order({ minPercentageToAsk: value }));
      expect(created.status, JSON.stringify(created.body)).toBe(400);
      expect(created.body).toMatchObject({ success: false, data: null });
      expect(created.body.errors.map((e: { field: string }) => e.field)).toContain('minPercentageToAsk');
      const validated = await post('/api/v1/orders/validate', await order({ minPercentageToAsk: value }));
      expect(validated.status, JSON.stringify(validated.body)).toBeLessThan(500);
      const problems = validated.status === 200 ? validated.body.data.problems : validated.body.errors;
      expect(problems.map((e: { field: string }) => e.field)).toContain('minPercentageToAsk');
      expect(await app.db.prisma.order.count()).toBe(before);
    });
  }

  it('GraphQL createOrder with minPercentageToAsk beyond 32 bits is a typed input error', async () => {
    const input = await order({ minPercentageToAsk: 2 ** 32 });
    const res = await app.gql('mutation($input: MakerOrderInput!) { createOrder(input: $input) { __typename } }', { input });
    expect(res.errors?.[0]?.extensions?.code).toMatch(/BAD_USER_INPUT|BAD_REQUEST/);
    expect(res.errors?.[0]?.message).toMatch(/minPercentageToAsk/);
    expect(res.status).toBe(400);
  });
});
