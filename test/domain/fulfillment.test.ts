// The taker side of a fill: calldata built by hand in src/domain/fulfillment.ts, compared with
// ethers' Interface over the v1 SDK's own ABI (@looksrare/sdk 0.12.1) and with fixed vectors
// (keccak256 of the calldata, so the vectors hold without the SDK installed).
import { readFileSync } from 'node:fs';
import { Interface, keccak256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  buyerSteps,
  encodeApprove,
  encodeFill,
  encodeSetApprovalForAll,
  encodeWethDeposit,
  fillFunctionFor,
  fillValue,
  sellerSteps,
  takerOrderFor,
  type SignedMakerOrder,
} from '../../src/domain/fulfillment.js';
import { available, titled } from '../helpers/skip-reasons.js';

const EXCHANGE = '0x59728544B08AB483533076417FbBB2fD0B17CE3a';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const TAKER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TM721 = '0xf42aa99F011A1fA7CDA90E5E98b277E306BcA83e';

const listing: SignedMakerOrder = {
  isOrderAsk: true,
  signer: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  collection: '0xC9573CD9E8D6601AF3EcA06CEC3d7d4378fBAE56',
  price: 1_250_000_000_000_000_000n,
  tokenId: 77n,
  amount: 1n,
  strategy: '0x56244Bb70CbD3EA9Dc8007399F61dFC065190031',
  currency: WETH,
  nonce: 12n,
  startTime: 1_795_000_000n,
  endTime: 1_795_086_400n,
  minPercentageToAsk: 9800n,
  params: '0x',
  v: 28,
  r: '0x' + '1b'.repeat(32),
  s: '0x' + '2c'.repeat(32),
};
const collectionOffer: SignedMakerOrder = {
  ...listing,
  isOrderAsk: false,
  signer: TAKER,
  tokenId: 0n,
  strategy: '0x86F909F70813CdB1Bc733f4D97Dc6b03B8e7E8F3',
  amount: 3n,
  minPercentageToAsk: 8500n,
  // 33 bytes: one word and a padded one
  params: '0x' + 'ab'.repeat(33),
  v: 27,
};

const sdkAbi = available().sdk
  ? new Interface(JSON.parse(readFileSync(new URL('../sdk-client/node_modules/@looksrare/sdk/dist/LooksRareExchangeAbi.json', import.meta.url), 'utf8')))
  : null;
const steps = new Interface(['function deposit() payable', 'function approve(address spender, uint256 amount) returns (bool)', 'function setApprovalForAll(address operator, bool approved)']);

const cases = [
  // selector + 2 offsets + taker (6 head words, params length) + maker (16 head words, params length)
  ['listing paid in ETH', listing, 'ETH', 77n, '0xb4e4b296', 4 + 64 + 224 + 544],
  ['listing paid in WETH', listing, 'WETH', 77n, '0x38e29209', 4 + 64 + 224 + 544],
  // the maker's 33 bytes of params take two more words
  ['collection offer, token 4242', collectionOffer, 'ETH', 4242n, '0x3b6d032e', 4 + 64 + 224 + 544 + 64],
] as const;

describe('fill calldata', () => {
  it.each(cases)('%s: the v1 function, its selector, the taker order', (_label, maker, payWith, tokenId, sel, bytes) => {
    const fn = fillFunctionFor(maker.isOrderAsk, payWith);
    const taker = takerOrderFor(maker, TAKER, tokenId);
    expect(taker).toEqual({ isOrderAsk: !maker.isOrderAsk, taker: TAKER, price: maker.price, tokenId, minPercentageToAsk: maker.minPercentageToAsk, params: '0x' });
    const data = encodeFill(fn, taker, maker);
    expect(data.slice(0, 10)).toBe(sel);
    expect((data.length - 2) / 2).toBe(bytes);
    expect(fillValue(fn, taker)).toBe(fn === 'matchAskWithTakerBidUsingETHAndWETH' ? maker.price : 0n);
  });

  it('fixed vectors: keccak256 of each calldata', () => {
    const got = cases.map(([label, maker, payWith, tokenId]) => [label, keccak256(encodeFill(fillFunctionFor(maker.isOrderAsk, payWith), takerOrderFor(maker, TAKER, tokenId), maker))]);
    expect(got).toEqual(VECTORS);
  });

  it.runIf(sdkAbi)(titled("equals ethers' encoding with the v1 SDK's ABI", 'sdk'), () => {
    for (const [, maker, payWith, tokenId] of cases) {
      const fn = fillFunctionFor(maker.isOrderAsk, payWith);
      const taker = takerOrderFor(maker, TAKER, tokenId);
      const expected = sdkAbi!.encodeFunctionData(fn, [taker, { ...maker }]);
      expect(encodeFill(fn, taker, maker)).toBe(expected);
      // and it decodes back to the same orders
      const [t, m] = sdkAbi!.decodeFunctionData(fn, expected);
      expect([t.taker, t.tokenId, m.signer, m.params, Number(m.v)]).toEqual([TAKER, tokenId, maker.signer, maker.params, maker.v]);
    }
  });

  it('refuses values the ABI cannot carry', () => {
    const fn = 'matchAskWithTakerBid';
    expect(() => encodeFill(fn, takerOrderFor(listing, TAKER), { ...listing, price: 1n << 256n })).toThrow(RangeError);
    expect(() => encodeFill(fn, takerOrderFor(listing, 'nobody'), listing)).toThrow(TypeError);
    expect(() => encodeFill(fn, takerOrderFor(listing, TAKER), { ...listing, params: '0xabc' })).toThrow(TypeError);
  });
});

describe('step transactions', () => {
  it("encode as ethers does with the tokens' ABIs", () => {
    expect(encodeWethDeposit()).toBe(steps.encodeFunctionData('deposit', []));
    expect(encodeApprove(EXCHANGE, 10n ** 18n)).toBe(steps.encodeFunctionData('approve', [EXCHANGE, 10n ** 18n]));
    expect(encodeSetApprovalForAll(TM721, true)).toBe(steps.encodeFunctionData('setApprovalForAll', [TM721, true]));
  });

  const ctx = { exchange: EXCHANGE, weth: WETH, collection: listing.collection, transferManager: TM721 };
  it('a buyer paying ETH needs the price in ETH; one paying WETH needs balance and allowance', () => {
    const price = 10n;
    expect(buyerSteps('matchAskWithTakerBidUsingETHAndWETH', price, { ethBalance: 10n, wethBalance: 0n, wethAllowance: 0n }, ctx)).toEqual([]);
    expect(buyerSteps('matchAskWithTakerBidUsingETHAndWETH', price, { ethBalance: 9n, wethBalance: 0n, wethAllowance: 0n }, ctx).map((s) => [s.code, s.transaction])).toEqual([['INSUFFICIENT_ETH', null]]);
    expect(buyerSteps('matchAskWithTakerBid', price, { ethBalance: 100n, wethBalance: 10n, wethAllowance: 10n }, ctx)).toEqual([]);
    const short = buyerSteps('matchAskWithTakerBid', price, { ethBalance: 100n, wethBalance: 4n, wethAllowance: 9n }, ctx);
    expect(short.map((s) => [s.code, s.transaction])).toEqual([
      ['WRAP_ETH', { to: WETH, data: encodeWethDeposit(), value: 6n }],
      ['APPROVE_WETH', { to: WETH, data: encodeApprove(EXCHANGE, price), value: 0n }],
    ]);
  });

  it('a seller needs the token and the transfer manager approved', () => {
    expect(sellerSteps(7n, 1n, { ownsToken: true, approvedForTransfer: true }, ctx)).toEqual([]);
    const missing = sellerSteps(7n, 1n, { ownsToken: false, approvedForTransfer: false }, ctx);
    expect(missing.map((s) => [s.code, s.transaction])).toEqual([
      ['NOT_TOKEN_OWNER', null],
      ['APPROVE_TRANSFER_MANAGER', { to: listing.collection, data: encodeSetApprovalForAll(TM721, true), value: 0n }],
    ]);
  });
});

// Taken from ethers' encoding with the SDK's ABI (the test above holds the two equal).
const VECTORS: [string, string][] = [
  ['listing paid in ETH', '0xba93f441c2b6de3624229c631d29081c722cfe5fe6ad86dc5d844d055e4df795'],
  ['listing paid in WETH', '0x678e2d1a6fd244e144d71a0f8c3a453882ae1af6a6fb2d0752ab9d08f02baea7'],
  ['collection offer, token 4242', '0xeeb34f4a8b5687e49d24064478f3be44c849992ecb142ee645f0ec70adfd4814'],
];
