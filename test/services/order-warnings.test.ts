// Warnings at validate and submit time (src/services/order-warnings.ts) against a real book: a
// listing at 1 ETH and an offer at 0.5 ETH on token 7, five recent sales at 1 ETH. The dry run
// (REST and GraphQL) answers them beside a valid order; createOrder's `warnings` compares the
// stored order with the book without itself.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { signWithEthers6, standardAsk, type MakerOrderBody } from '../helpers/maker-orders.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const ETH = 10n ** 18n;
const seller = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const buyer = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
let COLLECTION = '0x' + 'b8'.repeat(20);

let app: TestApp;
let nonce = 1;
const order = (w: Wallet, over: Partial<MakerOrderBody>) => standardAsk(app.config.network, { signer: w.address, collection: COLLECTION, nonce: nonce++, now: NOW }, over);
const sign = (w: Wallet, o: MakerOrderBody) => signWithEthers6(w, app.config.network.chainId, app.config.network.exchange, o);
const restValidate = async (body: unknown) =>
  (await app.rest('/api/v1/orders/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).body;
const codes = (ws: { code: string }[]) => ws.map((w) => w.code);

beforeAll(async () => {
  app = await startTestApp({}, { now: FIXED_NOW });
  COLLECTION = (await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721', name: 'Warned' })).collection.address;
  await app.services.submissions.createOrder(await sign(seller, order(seller, { price: ETH.toString() })));
  await app.services.submissions.createOrder(await sign(buyer, order(buyer, { isOrderAsk: false, price: (ETH / 2n).toString() })));
  for (let i = 0; i < 5; i++) {
    await app.services.sales.recordSale({
      collection: COLLECTION, tokenId: BigInt(100 + i), amount: 1n, price: ETH, currency: app.config.network.weth, buyer: buyer.address, seller: seller.address,
      orderHash: null, strategy: app.config.network.strategies.standardSale[0]!, isTakerAsk: false, blockNumber: BigInt(10 + i),
      txHash: `0x${(0xabc0 + i).toString(16).padStart(64, '0')}`, logIndex: 0, timestamp: new Date(FIXED_NOW.getTime() - (i + 1) * 3_600_000),
    });
  }
});
afterAll(() => app?.close());

describe(`order warnings (${backendName})`, () => {
  it('answers none for an ordinary listing, and a valid order stays valid with warnings', async () => {
    const fine = await restValidate(await sign(seller, order(seller, { tokenId: '8', price: ((11n * ETH) / 10n).toString() })));
    expect(fine.data).toMatchObject({ valid: true, warnings: [] });
    const cheap = await restValidate(await sign(seller, order(seller, { tokenId: '8', price: ((3n * ETH) / 10n).toString() })));
    expect(cheap.data.valid).toBe(true);
    expect(codes(cheap.data.warnings)).toEqual(['BELOW_FLOOR', 'PRICE_UNLIKE_SALES']);
    expect(cheap.data.warnings[0]).toEqual({ code: 'BELOW_FLOOR', message: 'This listing is 30.00% of the collection floor (1 ETH)', reference: ETH.toString(), value: ((3n * ETH) / 10n).toString() });
  });

  it('warns of an order that crosses the book: a bid above the listing, a listing under the offer', async () => {
    const q = `query($input: MakerOrderInput!) { validateOrder(input: $input) { valid warnings { code message reference value } } }`;
    const highBid = await app.gql(q, { input: await sign(buyer, order(buyer, { isOrderAsk: false, price: ((12n * ETH) / 10n).toString() })) });
    expect((highBid.data as any).validateOrder).toMatchObject({ valid: true, warnings: [{ code: 'CROSSES_BOOK', reference: ETH.toString() }] });
    const lowAsk = await app.gql(q, { input: await sign(seller, order(seller, { price: ((4n * ETH) / 10n).toString() })) });
    expect(codes((lowAsk.data as any).validateOrder.warnings)).toEqual(['BELOW_FLOOR', 'CROSSES_BOOK']);
    // a malformed order has problems and no warnings
    const bad = await restValidate({ ...(await sign(seller, order(seller, {}))), price: 'lots' });
    expect(bad.data).toMatchObject({ valid: false, warnings: [] });
  });

  it('createOrder answers the warnings of the stored order without comparing it with itself', async () => {
    const m = `mutation($input: MakerOrderInput!) { createOrder(input: $input) { __typename ... on CreateOrderSuccess { order { hash } warnings { code reference } } } }`;
    const r = await app.gql(m, { input: await sign(seller, order(seller, { tokenId: '9', price: (ETH / 2n).toString(), endTime: NOW + 400 * 86_400 })) });
    const created = (r.data as any).createOrder;
    expect(created.__typename).toBe('CreateOrderSuccess');
    // the floor it meets is the other listing's 1 ETH, not its own 0.5 ETH
    expect(created.warnings).toEqual([
      { code: 'BELOW_FLOOR', reference: ETH.toString() },
      { code: 'EXPIRY_FAR', reference: String(180 * 86_400) },
    ]);
  });
});
