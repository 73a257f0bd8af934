// Order submission end to end, without chain state (no RPC_URL): orders signed by the
// original v1 SDK are accepted with the hash ethers 5 computes; every rule has its failure code
// on REST and on GraphQL; nothing is written for a refused order; the nonce cap holds under a
// parallel burst; write keys; batches; the dry run.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, FIXED_NOW, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { signWithEthers6, signWithV1Sdk, type MakerOrderBody, standardAsk } from '../helpers/maker-orders.js';

const NOW = Math.floor(FIXED_NOW.getTime() / 1000);
// Hardhat's first two well-known development keys.
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const KEY2 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const wallet = new Wallet(KEY);
const other = new Wallet(KEY2);
const ERC721 = '0x' + 'a7'.repeat(20);
const ERC1155 = '0x' + 'b1'.repeat(20);

let app: TestApp;
let net: TestApp['config']['network'];
const CREATE = `mutation($input: MakerOrderInput!) { createOrder(input: $input) { __typename
  ... on CreateOrderSuccess { order { hash status } }
  ... on OrderRejected { code message hash problems { code field message } } } }`;
const VALIDATE = `query($input: MakerOrderInput!) { validateOrder(input: $input) { hash recoveredSigner valid problems { code field } } }`;

beforeAll(async () => {
  app = await startTestApp({}, { now: FIXED_NOW });
  net = app.config.network;
  await app.services.collections.upsertCollection({ address: ERC721, type: 'ERC721', name: 'Seven' });
  await app.services.collections.upsertCollection({ address: ERC1155, type: 'ERC1155', name: 'Eleven' });
});
afterAll(() => app?.close());

let nonceSeq = 100;
function base(over: Partial<MakerOrderBody> = {}): MakerOrderBody {
  return standardAsk(net, { signer: wallet.address, collection: ERC721, nonce: nonceSeq++, now: NOW }, { strategy: net.strategies.standardSale[1]!, ...over });
}
const sign = (order: MakerOrderBody, w = wallet) => signWithEthers6(w, net.chainId, net.exchange, order);
const post = (body: unknown, headers: Record<string, string> = {}) =>
  app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const gqlCreate = (input: unknown, headers?: Record<string, string>) => app.gql(CREATE, { input }, headers);
const orderCount = () => app.db.prisma.order.count();

describe(`order submission (${backendName})`, () => {
  it('accepts asks, bids, collection offers, private-sale and Dutch-auction orders signed by the v1 SDK, with the hash ethers 5 computes', async () => {
    const buyer = other.address;
    const orders: MakerOrderBody[] = [
      base({ tokenId: '1' }),
      base({ isOrderAsk: false, tokenId: '2', price: '500000000000000000' }),
      base({ isOrderAsk: false, tokenId: null, strategy: net.strategies.collectionOffer[0]!, price: '400000000000000000' }),
      base({ tokenId: '3', strategy: net.strategies.privateSale[0]!, params: [buyer] }),
      base({ tokenId: '4', strategy: net.strategies.dutchAuction[0]!, params: ['5000000000000000000'], price: '1000000000000000000' }),
      base({ collection: ERC1155, tokenId: '9', amount: '5', strategy: net.strategies.standardSale[0]! }),
    ];
    const signed = await signWithV1Sdk(net.chainId, net.exchange, orders.map((order) => ({ privateKey: KEY, order })));
    for (const s of signed) {
      const res = await post(s.makerOrder);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.success).toBe(true);
      const o = res.body.data;
      expect(o.hash).toBe(s.structHash);
      expect(o.status).toBe('VALID');
      expect(o.params).toBe(s.encodedParams === '0x' ? '' : s.encodedParams);
      expect(o.collectionAddress.toLowerCase()).toBe(s.makerOrder.collection.toLowerCase());
      expect(o.currencyAddress).toBe(net.weth);
      expect(o.tokenId).toBe(s.makerOrder.tokenId);
      expect(o.signature).toBe(s.makerOrder.signature.toLowerCase());
      expect(o.r + o.s.slice(2) + o.v.toString(16)).toBe(s.makerOrder.signature.toLowerCase());
    }
    const listed = await app.rest(`/api/v1/orders?signer=${wallet.address}&pagination[first]=50`);
    expect(listed.body.data.map((o: { hash: string }) => o.hash).sort()).toEqual(signed.map((s) => s.structHash).sort());
  });

  it('refuses tampered fields, another chain id, another exchange and high-s signatures from the SDK', async () => {
    const order = base({ tokenId: '11' });
    const [good] = await signWithV1Sdk(net.chainId, net.exchange, [{ privateKey: KEY, order }]);
    const [otherChain] = await signWithV1Sdk(5, net.exchange, [{ privateKey: KEY, order }]);
    const [otherExchange] = await signWithV1Sdk(net.chainId, '0x' + '12'.repeat(20), [{ privateKey: KEY, order }]);
    const sig = good!.makerOrder.signature;
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt('0x' + sig.slice(66, 130));
    const v = parseInt(sig.slice(130), 16);
    const highS = sig.slice(0, 66) + (n - s).toString(16).padStart(64, '0') + (v === 27 ? '1c' : '1b');
    const cases: [string, unknown, string][] = [
      ['tampered price', { ...good!.makerOrder, price: '999' }, 'SIGNATURE_MISMATCH'],
      ['tampered tokenId', { ...good!.makerOrder, tokenId: '12' }, 'SIGNATURE_MISMATCH'],
      ['wrong chain id', otherChain!.makerOrder, 'SIGNATURE_MISMATCH'],
      ['wrong verifying contract', otherExchange!.makerOrder, 'SIGNATURE_MISMATCH'],
      ['high s', { ...good!.makerOrder, signature: highS }, 'HIGH_S_SIGNATURE'],
    ];
    const before = await orderCount();
    for (const [name, body, code] of cases) {
      const res = await post(body);
      expect(res.status, name).toBe(400);
      expect(res.body.errors.map((e: { code: string }) => e.code), name).toContain(code);
      const g = (await gqlCreate(body)).data as any;
      expect(g.createOrder.__typename, name).toBe('OrderRejected');
      expect(g.createOrder.problems.map((p: { code: string }) => p.code), name).toContain(code);
    }
    expect(await orderCount()).toBe(before);
  });

  // One mutation per rule, signed validly so only the rule fails; code expected on both surfaces.
  const ruleCases: [string, () => Promise<unknown>, string][] = [
    ['collection offer with a tokenId', async () => sign(base({ isOrderAsk: false, strategy: net.strategies.collectionOffer[1]!, tokenId: '5' })), 'COLLECTION_OFFER_TOKEN_ID'],
    ['collection offer as an ask', async () => sign(base({ strategy: net.strategies.collectionOffer[1]!, tokenId: null })), 'COLLECTION_OFFER_ASK'],
    ['standard order without tokenId', async () => sign(base({ tokenId: null })), 'TOKEN_ID_REQUIRED'],
    ['currency other than WETH', async () => sign(base({ currency: '0x' + '33'.repeat(20) })), 'CURRENCY_NOT_WHITELISTED'],
    ['strategy not whitelisted', async () => sign(base({ strategy: '0x' + '44'.repeat(20) })), 'STRATEGY_NOT_WHITELISTED'],
    ['ERC-721 amount 2', async () => sign(base({ amount: '2' })), 'INVALID_AMOUNT'],
    ['ERC-1155 amount 0', async () => sign(base({ collection: ERC1155, amount: '0' })), 'INVALID_AMOUNT'],
    ['minPercentageToAsk 9801', async () => sign(base({ minPercentageToAsk: 9801 })), 'MIN_PERCENTAGE_TOO_HIGH'],
    ['price 0', async () => sign(base({ price: '0' })), 'PRICE_ZERO'],
    ['ended', async () => sign(base({ startTime: NOW - 100, endTime: NOW - 1 })), 'EXPIRED'],
    ['end before start', async () => sign(base({ startTime: NOW + 1000, endTime: NOW + 500 })), 'END_BEFORE_START'],
    ['private sale without buyer', async () => sign(base({ strategy: net.strategies.privateSale[0]! })), 'PRIVATE_SALE_PARAMS'],
    ['private sale as a bid', async () => sign(base({ isOrderAsk: false, strategy: net.strategies.privateSale[0]!, params: [other.address] })), 'PRIVATE_SALE_BID'],
    ['Dutch auction start below price', async () => sign(base({ strategy: net.strategies.dutchAuction[0]!, params: ['1'] })), 'DUTCH_AUCTION_PARAMS'],
    ['Dutch auction as a bid', async () => sign(base({ isOrderAsk: false, strategy: net.strategies.dutchAuction[0]!, params: ['5000000000000000000'] })), 'DUTCH_AUCTION_BID'],
    ['unknown collection', async () => sign(base({ collection: '0x' + '55'.repeat(20) })), 'UNKNOWN_COLLECTION'],
    ['signed by another key', async () => sign(base(), other), 'SIGNATURE_MISMATCH'],
    ['short signature', async () => ({ ...(await sign(base())), signature: '0x1234' }), 'INVALID_SIGNATURE_FORMAT'],
    ['v = 29', async () => {
      const b = await sign(base());
      return { ...b, signature: b.signature.slice(0, 130) + '1d' };
    }, 'INVALID_SIGNATURE_V'],
    ['bad address and uint256', async () => ({ ...(await sign(base())), signer: '0x12', price: '-1' }), 'INVALID_ADDRESS'],
    ['missing fields', async () => {
      const { nonce: _n, ...rest } = await sign(base());
      return rest;
    }, 'MISSING_FIELD'],
  ];
  for (const [name, make, code] of ruleCases) {
    it(`refuses ${name} with ${code} on REST and GraphQL, writing nothing`, async () => {
      const body = await make();
      const before = await orderCount();
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.data).toBeNull();
      expect(typeof res.body.message).toBe('string');
      expect(res.body.errors.map((e: { code: string }) => e.code)).toContain(code);
      const g = await gqlCreate(body);
      if (g.errors) {
        // a body GraphQL's own input types refuse (a missing field, a malformed address or
        // uint256) never reaches the resolver: a BAD_USER_INPUT error naming the field, no result
        expect(['MISSING_FIELD', 'INVALID_ADDRESS']).toContain(code);
        expect(g.status).toBe(400);
        expect(g.errors[0]!.extensions!.code).toBe('BAD_USER_INPUT');
        expect(g.errors[0]!.message).toMatch(code === 'MISSING_FIELD' ? /nonce/ : /input\.(signer|price)/);
        if (code === 'INVALID_ADDRESS') {
          expect(g.errors.flatMap((e) => e.extensions!.problems as unknown[])).toEqual([
            { field: '$input.price', code: 'INVALID_UINT256', message: expect.any(String) },
            { field: '$input.signer', code: 'INVALID_ADDRESS', message: expect.any(String) },
          ]);
        }
        expect(g.data ?? null).toBeNull();
      } else {
        const r = (g.data as any).createOrder;
        expect(r.__typename).toBe('OrderRejected');
        expect(r.problems.map((p: { code: string }) => p.code)).toContain(code);
      }
      expect(await orderCount()).toBe(before);
    });
  }

  it('lists every problem of an order at once', async () => {
    const body = { ...(await sign(base({ price: '0', minPercentageToAsk: 9900, currency: '0x' + '66'.repeat(20) }))) };
    const res = await post(body);
    const codes = res.body.errors.map((e: { code: string }) => e.code);
    expect(codes).toEqual(expect.arrayContaining(['PRICE_ZERO', 'MIN_PERCENTAGE_TOO_HIGH', 'CURRENCY_NOT_WHITELISTED']));
  });

  it('refuses a nonce below the signer minimum and a nonce already executed or cancelled', async () => {
    const w = Wallet.createRandom();
    await app.db.prisma.signerNonceState.create({ data: { signer: w.address, minNonce: '10' } });
    await app.db.prisma.deadNonce.create({ data: { signer: w.address, nonce: '12', reason: 'CANCELLED' } });
    const low = await post(await sign(base({ signer: w.address, nonce: '9' }), w as unknown as Wallet));
    expect(low.body.errors.map((e: { code: string }) => e.code)).toContain('NONCE_TOO_LOW');
    const dead = await post(await sign(base({ signer: w.address, nonce: '12' }), w as unknown as Wallet));
    expect(dead.body.errors.map((e: { code: string }) => e.code)).toContain('NONCE_USED');
    const ok = await post(await sign(base({ signer: w.address, nonce: '11' }), w as unknown as Wallet));
    expect(ok.status).toBe(201);
    expect((await app.rest(`/api/v1/orders/nonce?address=${w.address}`)).body.data).toBe('12');
  });

  it('stores the same order once: the second submission is DUPLICATE_ORDER', async () => {
    const body = await sign(base({ tokenId: '21' }));
    expect((await post(body)).status).toBe(201);
    const again = await post(body);
    expect(again.status).toBe(400);
    expect(again.body.errors[0].code).toBe('DUPLICATE_ORDER');
    expect(await app.db.prisma.order.count({ where: { tokenId: '21', signer: wallet.address } })).toBe(1);
  });

  it('creates exactly 20 orders from a parallel burst of 40 on one nonce', async () => {
    const w = Wallet.createRandom() as unknown as Wallet;
    const bodies = await Promise.all(Array.from({ length: 40 }, (_, i) => sign(base({ signer: w.address, nonce: '7', tokenId: String(1000 + i) }), w)));
    const results = await Promise.all(bodies.map((b, i) => (i % 2 ? post(b) : gqlCreate(b).then((g) => ({ status: (g.data as any)?.createOrder?.__typename === 'CreateOrderSuccess' ? 201 : 400, body: g })))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    expect(await app.db.prisma.order.count({ where: { signer: w.address, nonce: '7' } })).toBe(20);
    const capped = await post(await sign(base({ signer: w.address, nonce: '7', tokenId: '9999' }), w));
    expect(capped.body.errors[0].code).toBe('NONCE_CAP_REACHED');
  });

  it('creates a batch with createOrders, each order accepted or refused on its own', async () => {
    const good = await sign(base({ tokenId: '31' }));
    const bad = await sign(base({ tokenId: '32', price: '0' }));
    const r = await app.gql(
      `mutation($inputs: [MakerOrderInput!]!) { createOrders(inputs: $inputs) { __typename ... on CreateOrderSuccess { order { hash } } ... on OrderRejected { code } } }`,
      { inputs: [good, bad, good] },
    );
    expect((r.data as any).createOrders.map((x: any) => x.__typename)).toEqual(['CreateOrderSuccess', 'OrderRejected', 'OrderRejected']);
    expect((r.data as any).createOrders.map((x: any) => x.code ?? null)).toEqual([null, 'PRICE_ZERO', 'DUPLICATE_ORDER']);
    const tooMany = await app.gql(`mutation($inputs: [MakerOrderInput!]!) { createOrders(inputs: $inputs) { __typename } }`, { inputs: Array(101).fill(good) });
    expect(tooMany.errors?.[0]?.extensions?.code).toMatch(/BAD_REQUEST|QUERY_TOO_COMPLEX/);
  });

  it('decides the orders of one createOrders call on one nonce in input order: 20 stored, the rest NONCE_CAP_REACHED', async () => {
    const w = Wallet.createRandom() as unknown as Wallet;
    const inputs = await Promise.all(Array.from({ length: 25 }, (_, i) => sign(base({ signer: w.address, nonce: '3', tokenId: String(2000 + i) }), w)));
    const r = await app.gql(`mutation($inputs: [MakerOrderInput!]!) { createOrders(inputs: $inputs) { __typename ... on OrderRejected { code problems { code field } } } }`, { inputs });
    const out = (r.data as any).createOrders;
    expect(out.slice(0, 20).every((x: any) => x.__typename === 'CreateOrderSuccess')).toBe(true);
    expect(out.slice(20).map((x: any) => x.problems)).toEqual(Array(5).fill([{ code: 'NONCE_CAP_REACHED', field: 'nonce' }]));
    expect(await app.db.prisma.order.count({ where: { signer: w.address, nonce: '3' } })).toBe(20);
  });

  it('stores concurrent submissions together and refuses the one at fault alone, with the full problem list', async () => {
    const w = Wallet.createRandom() as unknown as Wallet;
    await app.db.prisma.signerNonceState.create({ data: { signer: w.address, minNonce: '5' } });
    const bodies = await Promise.all(Array.from({ length: 12 }, (_, i) => sign(base({ signer: w.address, nonce: String(i === 6 ? 2 : 10 + i), tokenId: String(3000 + i) }), w)));
    const results = await Promise.all(bodies.map((b) => post(b)));
    expect(results.map((r) => r.status)).toEqual(bodies.map((_, i) => (i === 6 ? 400 : 201)));
    // the refusal is what the dry run says: the same problems, in the same order
    const dry = await app.rest('/api/v1/orders/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bodies[6]) });
    expect(results[6]!.body.errors.map((e: any) => e.code)).toEqual(dry.body.data.problems.map((p: any) => p.code));
    expect(results[6]!.body.errors.map((e: any) => e.code)).toEqual(['NONCE_TOO_LOW']);
    expect(await app.db.prisma.order.count({ where: { signer: w.address } })).toBe(11);
  });

  it('follows an operator changing a collection type after orders were accepted for it', async () => {
    const address = '0x' + 'c4'.repeat(20);
    await app.services.collections.upsertCollection({ address, type: 'ERC721', name: 'Shifty' });
    expect((await post(await sign(base({ collection: address, tokenId: '1' })))).status).toBe(201); // the type is now remembered
    await app.services.collections.upsertCollection({ address, type: 'ERC1155' });
    // amount 2 is refused for an ERC-721 and fine for an ERC-1155: the stored type decides
    const two = await post(await sign(base({ collection: address, tokenId: '2', amount: '2' })));
    expect(two.status).toBe(201);
    await app.services.collections.upsertCollection({ address, type: 'ERC721' });
    const again = await post(await sign(base({ collection: address, tokenId: '3', amount: '2' })));
    expect(again.status).toBe(400);
    const dry = await app.rest('/api/v1/orders/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(await sign(base({ collection: address, tokenId: '3', amount: '2' }))) });
    expect(again.body.errors.map((e: any) => e.code)).toEqual(dry.body.data.problems.map((p: any) => p.code));
    expect(again.body.errors.map((e: any) => e.code)).toEqual(['INVALID_AMOUNT']);
  });

  it('validates without storing: hash and recovered signer whatever else is wrong, EXPIRED included', async () => {
    const expired = await sign(base({ tokenId: '41', startTime: NOW - 1000, endTime: NOW - 10 }));
    const before = await orderCount();
    const v = (await app.gql(VALIDATE, { input: expired })).data as any;
    expect(v.validateOrder.valid).toBe(false);
    expect(v.validateOrder.recoveredSigner).toBe(wallet.address);
    expect(v.validateOrder.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(v.validateOrder.problems.map((p: any) => p.code)).toContain('EXPIRED');
    const rest = await app.rest('/api/v1/orders/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(expired) });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({ hash: v.validateOrder.hash, signer: v.validateOrder.recoveredSigner, valid: false });
    expect(rest.body.data.problems.map((p: any) => p.code)).toEqual(v.validateOrder.problems.map((p: any) => p.code));
    const fine = (await app.gql(VALIDATE, { input: await sign(base({ tokenId: '42' })) })).data as any;
    expect(fine.validateOrder).toMatchObject({ valid: true, recoveredSigner: wallet.address, problems: [] });
    expect(await orderCount()).toBe(before);
  });

  it('answers bad JSON with 400 and oversized bodies with 413', async () => {
    const bad = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"isOrderAsk": tru' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/JSON/);
    const big = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'y'.repeat(2_000_000) }) });
    expect(big.status).toBe(413);
  });
});

describe(`write keys (${backendName})`, () => {
  it('needs X-Looks-Api-Key for order writes when WRITE_API_KEYS is set', async () => {
    const keyed = await startTestApp({ WRITE_API_KEYS: 'k-one,k-two' }, { now: FIXED_NOW });
    try {
      await keyed.services.collections.upsertCollection({ address: ERC721, type: 'ERC721' });
      const body = await signWithEthers6(wallet, keyed.config.network.chainId, keyed.config.network.exchange, base({ tokenId: '51' }));
      const postK = (h: Record<string, string>) => keyed.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify(body) });
      expect((await postK({})).status).toBe(401);
      expect((await postK({ 'x-looks-api-key': 'nope' })).status).toBe(401);
      const g = await keyed.gql(CREATE, { input: body });
      expect(g.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect((await postK({ 'x-looks-api-key': 'k-two' })).status).toBe(201);
      // reads stay open
      expect((await keyed.rest('/api/v1/orders')).status).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});
