// MakerOrderInput over GraphQL: the fields use the Address, Uint256, UnixTime and
// OrderParam scalars, so generated client types are exact; a malformed value is a BAD_USER_INPUT
// error naming the field (variable path or argument path) with the problem code REST uses, and
// never reaches the service. Decision (docs/api.md, "Submitting orders"): on GraphQL the format of a
// field is the type system's, for createOrder, createOrders and the validateOrder dry run alike;
// only a well-formed order gets `valid: false` / OrderRejected with problems. REST is unchanged:
// POST /orders/validate still answers 200 valid:false for a malformed field.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../../src/gql/index.js';
import type { MakerOrderInput } from '../../src/gql/graphql.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { signWithEthers6, type MakerOrderBody, standardAsk } from '../helpers/maker-orders.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const COLLECTION = '0x' + 'a7'.repeat(20);

const ValidateOrder = graphql(`
  query ValidateMakerOrder($input: MakerOrderInput!) {
    validateOrder(input: $input) { hash recoveredSigner valid problems { code field message } }
  }
`);
const CREATE_MANY = `mutation($inputs: [MakerOrderInput!]!) { createOrders(inputs: $inputs) { __typename ... on OrderRejected { code } } }`;

let app: TestApp;
let nonce = 1;
beforeAll(async () => {
  app = await startTestApp({}, { now: FIXED_NOW });
  await app.services.collections.upsertCollection({ address: COLLECTION, type: 'ERC721', name: 'Seven' });
});
afterAll(() => app?.close());

const order = (over: Partial<MakerOrderBody> = {}): MakerOrderBody =>
  standardAsk(app.config.network, { signer: wallet.address, collection: COLLECTION, nonce: nonce++, now: NOW }, over);
const sign = (o: MakerOrderBody) => signWithEthers6(wallet, app.config.network.chainId, app.config.network.exchange, o);
const restValidate = (body: unknown) =>
  app.rest('/api/v1/orders/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe(`MakerOrderInput scalars (${backendName})`, () => {
  it('a v1 request body is a MakerOrderInput of the generated client types, and validates as before', async () => {
    const signed = await sign(order({ params: [] }));
    const input: MakerOrderInput = signed; // compile-time: the generated type takes the v1 body as is
    const r = await app.gql(ValidateOrder, { input });
    expect(r.errors).toBeUndefined();
    expect(r.data!.validateOrder).toMatchObject({ valid: true, recoveredSigner: wallet.address, problems: [] });
    // lower-case addresses and numeric strings for times are accepted too, with the same hash
    const loose = await app.gql(ValidateOrder, { input: { ...input, signer: input.signer.toLowerCase(), startTime: String(input.startTime) as unknown as number } });
    expect(loose.data!.validateOrder.hash).toBe(r.data!.validateOrder.hash);
  });

  it('validateOrder: a malformed field is BAD_USER_INPUT naming it on GraphQL, and valid:false naming it on REST', async () => {
    const body = { ...(await sign(order())), signer: '0x12', price: '1e18', endTime: -5, params: ['not a number'] };
    const g = await app.gql(ValidateOrder, { input: body as unknown as MakerOrderInput });
    expect(g.status).toBe(400);
    expect(g.data ?? null).toBeNull();
    expect(g.errors!.every((e) => e.extensions!.code === 'BAD_USER_INPUT')).toBe(true);
    expect(g.errors!.flatMap((e) => e.extensions!.problems as { field: string; code: string }[]).map((p) => [p.field, p.code])).toEqual([
      ['$input.endTime', 'INVALID_TIMESTAMP'],
      ['$input.params[0]', 'INVALID_PARAMS'],
      ['$input.price', 'INVALID_UINT256'],
      ['$input.signer', 'INVALID_ADDRESS'],
    ]);
    expect(g.errors!.map((e) => e.message)).toContain(
      'Variable "$input" got invalid value "0x12" at "input.signer"; Invalid Address: expected 0x followed by 40 hexadecimal digits',
    );

    const rest = await restValidate(body);
    expect(rest.status).toBe(200);
    expect(rest.body.data.valid).toBe(false);
    expect(rest.body.data.problems.map((p: { field: string; code: string }) => [p.field, p.code])).toEqual([
      ['signer', 'INVALID_ADDRESS'],
      ['price', 'INVALID_UINT256'],
      ['endTime', 'INVALID_TIMESTAMP'],
      ['params[0]', 'INVALID_PARAMS'],
    ]);
  });

  it('a rule problem of a well-formed order is still valid:false with its problem, on both surfaces', async () => {
    const body = await sign(order({ price: '0', minPercentageToAsk: 9900 }));
    const g = await app.gql(ValidateOrder, { input: body });
    expect(g.errors).toBeUndefined();
    expect(g.data!.validateOrder.valid).toBe(false);
    const codes = g.data!.validateOrder.problems.map((p) => p.code);
    expect(codes).toEqual(expect.arrayContaining(['PRICE_ZERO', 'MIN_PERCENTAGE_TOO_HIGH']));
    const rest = await restValidate(body);
    expect(rest.body.data.problems.map((p: { code: string }) => p.code)).toEqual(codes);
  });

  it('createOrder with a literal names the argument path; createOrders refuses the whole batch for one malformed value and writes nothing', async () => {
    const literal = await app.gql(`mutation { createOrder(input: {
      isOrderAsk: true, signer: "${wallet.address}", collection: "${COLLECTION}", price: "-1", tokenId: "7", amount: "1",
      strategy: "${COLLECTION}", currency: "${COLLECTION}", nonce: "1", startTime: 1, endTime: 2, minPercentageToAsk: 0, params: [], signature: "0x" }) { __typename } }`);
    expect(literal.status).toBe(400);
    expect(literal.errors!.map((e) => [e.message, e.extensions!.code, e.extensions!.problems])).toEqual([
      [
        'Invalid argument input.price: Invalid Uint256: expected a decimal integer string from 0 to 2^256-1',
        'BAD_USER_INPUT',
        [{ field: 'input.price', code: 'INVALID_UINT256', message: 'expected a decimal integer string from 0 to 2^256-1' }],
      ],
    ]);

    const before = await app.db.prisma.order.count();
    const good = await sign(order({ tokenId: '8' }));
    const bad = { ...(await sign(order({ tokenId: '9' }))), nonce: 'seven' };
    const batch = await app.gql(CREATE_MANY, { inputs: [good, bad] });
    expect(batch.status).toBe(400);
    expect(batch.errors!.map((e) => (e.extensions!.problems as { field: string }[])[0]!.field)).toEqual(['$inputs[1].nonce']);
    expect(await app.db.prisma.order.count()).toBe(before);
    const fine = await app.gql(CREATE_MANY, { inputs: [good, { ...bad, nonce: '0' }] });
    expect((fine.data as { createOrders: { __typename: string }[] }).createOrders.map((x) => x.__typename)).toEqual(['CreateOrderSuccess', 'OrderRejected']);
  });
});
