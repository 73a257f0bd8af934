// On-chain pre-checks of order submission against a real local EVM (Hardhat Network) with real
// contracts: collection discovery (ERC-165), ownership and transfer-manager approval for asks,
// WETH balance and allowance for bids, EIP-1271 contract signers, an unreachable node.
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeOrderDigest, exchangeDomain } from '../../src/domain/maker-order.js';
import { toSignedMakerOrder, parseMakerOrderInput } from '../../src/domain/maker-order-input.js';
import { deployTestContracts, type TestContracts } from '../helpers/evm/deploy.js';
import { startLocalEvm, type LocalEvm } from '../helpers/evm/local-evm.js';
import { signWithEthers6, type MakerOrderBody } from '../helpers/maker-orders.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const STANDARD = '0x' + '5a'.repeat(20);
const COLLECTION_OFFER = '0x' + '6b'.repeat(20);

let evm: LocalEvm;
let c: TestContracts;
let app: TestApp;
let seller: Wallet;
let buyer: Wallet;
let now: number;

function chainEnv(rpcUrl: string) {
  return {
    CHAIN_ID: '31337',
    RPC_URL: rpcUrl,
    EXCHANGE_ADDRESS: c.addresses.exchange,
    WETH_ADDRESS: c.addresses.weth,
    TRANSFER_MANAGER_ERC721_ADDRESS: c.addresses.transferManager721,
    TRANSFER_MANAGER_ERC1155_ADDRESS: c.addresses.transferManager1155,
    STRATEGY_STANDARD_SALE_ADDRESSES: STANDARD,
    STRATEGY_COLLECTION_OFFER_ADDRESSES: COLLECTION_OFFER,
  };
}

beforeAll(async () => {
  evm = await startLocalEvm();
  c = await deployTestContracts(evm);
  seller = evm.wallets[2]!;
  buyer = evm.wallets[3]!;
  now = (await evm.provider.getBlock('latest'))!.timestamp;
  app = await startTestApp(chainEnv(evm.rpcUrl), { now: new Date(now * 1000) });
  await (await c.erc721.connect(evm.wallets[0]!).mint(seller.address, 1)).wait();
  await (await c.erc721.connect(evm.wallets[0]!).mint(seller.address, 2)).wait();
  await (await c.erc1155.connect(evm.wallets[0]!).mint(seller.address, 7, 3)).wait();
});
afterAll(async () => {
  await app?.close();
  await evm?.stop();
});

let nonce = 0;
const order = (over: Partial<MakerOrderBody>): MakerOrderBody => ({
  isOrderAsk: true,
  signer: seller.address,
  collection: c.addresses.erc721,
  price: '1000000000000000000',
  tokenId: '1',
  amount: '1',
  strategy: STANDARD,
  currency: c.addresses.weth,
  nonce: String(nonce++),
  startTime: now - 10,
  endTime: now + 86_400,
  minPercentageToAsk: 9800,
  params: [],
  ...over,
});
const submit = async (w: Wallet, o: MakerOrderBody) => {
  const body = await signWithEthers6(w, 31337, c.addresses.exchange, o);
  return app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
};
const codes = (res: { body: any }) => (res.body.errors ?? []).map((e: { code: string }) => e.code);

describe(`on-chain pre-checks (${backendName}, local EVM)`, () => {
  it('discovers an unknown collection on chain and registers it with the accepted order only', async () => {
    const refused = await submit(seller, order({ tokenId: '1' })); // not approved yet: refused
    expect(codes(refused)).toEqual(['NOT_APPROVED']);
    expect(refused.body.message).toBe('Signer did not approve to sell the token');
    expect(await app.db.prisma.collection.findUnique({ where: { address: c.addresses.erc721 } })).toBeNull();

    await (await c.erc721.connect(seller).setApprovalForAll(c.addresses.transferManager721, true)).wait();
    const accepted = await submit(seller, order({ tokenId: '1' }));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const col = await app.rest(`/api/v1/collections?address=${c.addresses.erc721}`);
    expect(col.body.data).toMatchObject({ type: 'ERC721', name: await c.erc721.name(), symbol: await c.erc721.symbol(), owner: await c.erc721.owner() });
  });

  it('refuses a collection address that is not an ERC-721/1155 contract', async () => {
    const eoa = await submit(seller, order({ collection: evm.wallets[9]!.address }));
    expect(codes(eoa)).toContain('UNKNOWN_COLLECTION');
    const weth = await submit(seller, order({ collection: c.addresses.weth }));
    expect(codes(weth)).toContain('UNKNOWN_COLLECTION');
  });

  it('refuses an ask for a token the signer does not own (ERC-721 ownerOf, ERC-1155 balance)', async () => {
    await (await c.erc721.connect(evm.wallets[0]!).mint(buyer.address, 3)).wait();
    expect(codes(await submit(seller, order({ tokenId: '3' })))).toEqual(['NOT_OWNER']);
    expect(codes(await submit(seller, order({ tokenId: '404' })))).toEqual(['NOT_OWNER']);
    await (await c.erc1155.connect(seller).setApprovalForAll(c.addresses.transferManager1155, true)).wait();
    const tooMany = await submit(seller, order({ collection: c.addresses.erc1155, tokenId: '7', amount: '4' }));
    expect(codes(tooMany)).toEqual(['NOT_OWNER']);
    const ok = await submit(seller, order({ collection: c.addresses.erc1155, tokenId: '7', amount: '3' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('checks the approval against the transfer manager of the right standard', async () => {
    const w = evm.wallets[4]!;
    await (await c.erc721.connect(evm.wallets[0]!).mint(w.address, 50)).wait();
    // approving the ERC-1155 manager (or the exchange) does not count for an ERC-721
    await (await c.erc721.connect(w).setApprovalForAll(c.addresses.transferManager1155, true)).wait();
    await (await c.erc721.connect(w).setApprovalForAll(c.addresses.exchange, true)).wait();
    expect(codes(await submit(w, order({ signer: w.address, tokenId: '50' })))).toEqual(['NOT_APPROVED']);
  });

  it('refuses a bid without WETH balance and allowance to the exchange, then accepts it', async () => {
    const price = 2n * 10n ** 18n;
    const bid = () => order({ isOrderAsk: false, signer: buyer.address, tokenId: '2', price: price.toString() });
    expect(codes(await submit(buyer, bid())).sort()).toEqual(['INSUFFICIENT_WETH_ALLOWANCE', 'INSUFFICIENT_WETH_BALANCE']);
    await (await c.weth.connect(buyer).deposit({ value: price })).wait();
    expect(codes(await submit(buyer, bid()))).toEqual(['INSUFFICIENT_WETH_ALLOWANCE']);
    await (await c.weth.connect(buyer).approve(c.addresses.exchange, price - 1n)).wait();
    expect(codes(await submit(buyer, bid()))).toEqual(['INSUFFICIENT_WETH_ALLOWANCE']);
    await (await c.weth.connect(buyer).approve(c.addresses.exchange, price)).wait();
    const ok = await submit(buyer, order({ isOrderAsk: false, signer: buyer.address, tokenId: null, strategy: COLLECTION_OFFER, price: price.toString() }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('accepts an EIP-1271 contract signer whose owner signed, and refuses another key', async () => {
    const owner = evm.wallets[1]!;
    const wallet = c.addresses.wallet1271;
    const price = 10n ** 17n;
    // the contract wallet holds WETH and approves the exchange through execute()
    await (await c.weth.connect(owner).deposit({ value: price })).wait();
    await (await c.weth.connect(owner).transfer(wallet, price)).wait();
    const approveData = c.weth.interface.encodeFunctionData('approve', [c.addresses.exchange, price]);
    await (await c.wallet1271.connect(owner).execute(c.addresses.weth, approveData)).wait();

    const body = order({ isOrderAsk: false, signer: wallet, tokenId: '1', price: price.toString() });
    const parsed = parseMakerOrderInput({ ...body, signature: '0x' + '00'.repeat(65) });
    if (!parsed.ok) throw new Error('fixture');
    const digest = computeOrderDigest(toSignedMakerOrder(parsed.value), exchangeDomain(31337, c.addresses.exchange));
    const sigBy = (w: Wallet) => w.signingKey.sign(digest).serialized;
    const post = (signature: string) =>
      app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, signature }) });

    const wrong = await post(sigBy(evm.wallets[5]!));
    expect(codes(wrong)).toEqual(['CONTRACT_SIGNATURE_INVALID']);
    const v = (await app.gql(`query($input: MakerOrderInput!) { validateOrder(input: $input) { valid signer } }`, { input: { ...body, signature: sigBy(owner) } })).data as any;
    expect(v.validateOrder).toEqual({ valid: true, signer: wallet });
    const ok = await post(sigBy(owner));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.data.signer).toBe(wallet);
  });

  it('refuses with CHAIN_UNAVAILABLE when the node cannot be reached, writing nothing', async () => {
    const down = await startTestApp({ ...chainEnv('http://127.0.0.1:9'), CHAIN_ID: '31337' }, { now: new Date(now * 1000) });
    try {
      await down.services.collections.upsertCollection({ address: c.addresses.erc721, type: 'ERC721' });
      const body = await signWithEthers6(seller, 31337, c.addresses.exchange, order({ tokenId: '2' }));
      const res = await down.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(codes(res)).toContain('CHAIN_UNAVAILABLE');
      expect(await down.db.prisma.order.count()).toBe(0);
    } finally {
      await down.close();
    }
  });
});
