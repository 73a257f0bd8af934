// POST /api/v1/orders and /orders/validate answer without a GraphQL execution: their
// JSON must stay byte-identical to what the GraphQL fields behind the v1 shapes give for the same
// order (RestOrderFields, OrderValidation), for asks, bids, collection offers and params.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderFieldsFragment } from '../../src/rest/documents.js';
import { startTestApp, FIXED_NOW, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { signWithEthers6, type MakerOrderBody, standardAsk } from '../helpers/maker-orders.js';
import { print } from 'graphql';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const ERC721 = '0x' + 'a7'.repeat(20);
let app: TestApp;
let net: TestApp['config']['network'];

beforeAll(async () => {
  app = await startTestApp({}, { now: FIXED_NOW });
  net = app.config.network;
  await app.services.collections.upsertCollection({ address: ERC721, type: 'ERC721', name: 'Seven' });
});
afterAll(() => app?.close());

let nonce = 1;
const body = (over: Partial<MakerOrderBody>): MakerOrderBody =>
  standardAsk(
    net,
    { signer: wallet.address.toLowerCase(), collection: ERC721, nonce: nonce++, now: NOW },
    { price: '1234500000000000000', tokenId: '115792089237316195423570985008687907853269984665640564039457584007913129639935', minPercentageToAsk: 8500, ...over },
  );

const ORDER_BY_HASH = `query($hash: Hash!) { order(hash: $hash) { ...RestOrderFields } } ${print(OrderFieldsFragment)}`;
const VALIDATE = `query($input: MakerOrderInput!) { validateOrder(input: $input) { hash signer valid problems { code field message } warnings { code message reference value } } }`;

describe(`REST order JSON without GraphQL (${backendName})`, () => {
  const cases: [string, Partial<MakerOrderBody>][] = [
    ['an ask with a max tokenId', {}],
    ['a bid with a private-sale-like address param', { isOrderAsk: false, tokenId: '5', params: ['0x000000000000000000000000000000000000dEaD'] }],
    ['a collection offer', { isOrderAsk: false, tokenId: null, strategy: net?.strategies.collectionOffer[0] }],
    ['an ask with an integer param', { tokenId: '0', params: ['1000'] }],
  ];
  for (const [name, over] of cases) {
    it(`POST /orders: ${name}`, async () => {
      const o = body({ ...over, strategy: over.strategy ?? (over.tokenId === null ? net.strategies.collectionOffer[0] : net.strategies.standardSale[0]) });
      const signed = await signWithEthers6(wallet, net.chainId, net.exchange, o);
      const res = await app.yoga.fetch('http://test/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed) });
      const text = await res.text();
      expect(res.status, text).toBe(201);
      const hash = JSON.parse(text).data.hash;
      const viaGraphql = await app.gql(ORDER_BY_HASH, { hash });
      expect(viaGraphql.errors).toBeUndefined();
      expect(text).toBe(JSON.stringify({ success: true, message: null, data: (viaGraphql.data as { order: unknown }).order }));

      // and the dry run of the same order (now a duplicate): same bytes as the GraphQL field
      const v = await app.yoga.fetch('http://test/api/v1/orders/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed) });
      const vText = await v.text();
      const { params, ...rest } = signed;
      const input = { ...rest, params, startTime: Number(signed.startTime), endTime: Number(signed.endTime) };
      const vGql = await app.gql(VALIDATE, { input });
      expect(vGql.errors).toBeUndefined();
      expect(vText).toBe(JSON.stringify({ success: true, message: null, data: (vGql.data as { validateOrder: unknown }).validateOrder }));
      expect(JSON.parse(vText).data.problems.map((p: { code: string }) => p.code)).toEqual(['DUPLICATE_ORDER']);
    });
  }
});
