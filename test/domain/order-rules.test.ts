// Spec 2.3 business rules: one mutation of a valid order per rule.
import { describe, it, expect } from 'vitest';
import { parseMakerOrderInput, type ParsedMakerOrderInput } from '../../src/domain/maker-order-input.js';
import { checkOrderRules, privateSaleBuyer, type OrderRuleContext } from '../../src/domain/order-rules.js';
import type { ParamValue } from '../../src/domain/order-params.js';
import { mainnet, NOW, vector } from './v1-vectors.js';

const parsed = (name: string): ParsedMakerOrderInput => {
  const p = parseMakerOrderInput(vector(name).order);
  if (!p.ok) throw new Error(name);
  return p.value;
};

const ask = parsed('standard-ask-erc721-v1b');
const collectionOffer = parsed('collection-offer-v1b');
const privateSale = parsed('private-sale-ask');
const dutch = parsed('dutch-auction-ask');
const ctx: OrderRuleContext = { network: mainnet, nowSeconds: NOW, collectionType: 'ERC721' };
const BUYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const codes = (order: ParsedMakerOrderInput, c: Partial<OrderRuleContext> = {}) => checkOrderRules(order, { ...ctx, ...c }).map((p) => p.code);

describe('checkOrderRules', () => {
  it('accepts every kind of valid order in the vectors', () => {
    for (const o of [ask, parsed('standard-bid-erc721'), collectionOffer, parsed('collection-offer-original-strategy'), privateSale, dutch]) {
      expect(codes(o)).toEqual([]);
    }
    expect(codes(parsed('erc1155-ask-amount5-uint256-max'), { collectionType: 'ERC1155' })).toEqual([]);
  });

  it('STRATEGY_NOT_WHITELISTED: an unknown strategy address', () => {
    expect(codes({ ...ask, strategy: '0x000000000000000000000000000000000000dEaD' })).toEqual(['STRATEGY_NOT_WHITELISTED']);
  });

  it('COLLECTION_OFFER_TOKEN_ID: a collection offer with a tokenId, even "0"', () => {
    expect(codes({ ...collectionOffer, tokenId: 0n })).toEqual(['COLLECTION_OFFER_TOKEN_ID']);
  });

  it('COLLECTION_OFFER_ASK: a collection offer must be a bid', () => {
    expect(codes({ ...collectionOffer, isOrderAsk: true })).toEqual(['COLLECTION_OFFER_ASK']);
  });

  it('TOKEN_ID_REQUIRED: a standard order without tokenId', () => {
    expect(codes({ ...ask, tokenId: null })).toEqual(['TOKEN_ID_REQUIRED']);
  });

  it('CURRENCY_NOT_WHITELISTED: anything but the network WETH', () => {
    expect(codes({ ...ask, currency: '0x6B175474E89094C44Da98b954EedeAC495271d0F' })).toEqual(['CURRENCY_NOT_WHITELISTED']);
  });

  it('INVALID_AMOUNT: ERC-721 amount must be 1', () => {
    expect(codes({ ...ask, amount: 2n })).toEqual(['INVALID_AMOUNT']);
  });

  it('INVALID_AMOUNT: 0 is refused for ERC-1155 and for an unknown collection; >1 is fine there', () => {
    expect(codes({ ...ask, amount: 0n }, { collectionType: 'ERC1155' })).toEqual(['INVALID_AMOUNT']);
    expect(codes({ ...ask, amount: 0n }, { collectionType: null })).toEqual(['INVALID_AMOUNT']);
    expect(codes({ ...ask, amount: 7n }, { collectionType: 'ERC1155' })).toEqual([]);
    expect(codes({ ...ask, amount: 7n }, { collectionType: null })).toEqual([]);
  });

  it('MIN_PERCENTAGE_TOO_HIGH: above 9800 (9800 itself is allowed)', () => {
    expect(codes({ ...ask, minPercentageToAsk: 9801n })).toEqual(['MIN_PERCENTAGE_TOO_HIGH']);
    expect(codes({ ...ask, minPercentageToAsk: 9800n })).toEqual([]);
  });

  it('PRICE_ZERO', () => {
    expect(codes({ ...ask, price: 0n })).toEqual(['PRICE_ZERO']);
  });

  it('EXPIRED: endTime must be in the future (endTime == now is refused)', () => {
    expect(codes({ ...ask, endTime: NOW - 1n })).toEqual(['EXPIRED']);
    expect(codes({ ...ask, endTime: NOW })).toEqual(['EXPIRED']);
    expect(codes({ ...ask, endTime: NOW + 1n })).toEqual([]);
  });

  it('END_BEFORE_START: endTime must be after startTime', () => {
    expect(codes({ ...ask, startTime: ask.endTime })).toEqual(['END_BEFORE_START']);
    expect(codes({ ...ask, startTime: ask.endTime + 10n })).toEqual(['END_BEFORE_START']);
  });

  it('PRIVATE_SALE_PARAMS: exactly one address, not zero, not the signer', () => {
    const withParams = (params: ParamValue[]) => codes({ ...privateSale, params });
    expect(withParams([])).toEqual(['PRIVATE_SALE_PARAMS']);
    expect(withParams([{ type: 'address', value: BUYER }, { type: 'address', value: BUYER }])).toEqual(['PRIVATE_SALE_PARAMS']);
    expect(withParams([{ type: 'bool', value: true }])).toEqual(['PRIVATE_SALE_PARAMS']);
    expect(withParams([{ type: 'address', value: privateSale.signer }])).toEqual(['PRIVATE_SALE_PARAMS']);
    expect(withParams([{ type: 'address', value: '0x0000000000000000000000000000000000000000' }])).toEqual(['PRIVATE_SALE_PARAMS']);
  });

  it('private sale: a wrong-checksum address (typed uint256 by the SDK) is the same buyer', () => {
    expect(privateSaleBuyer([{ type: 'uint256', value: BigInt(BUYER) }])).toBe(BUYER);
    expect(codes({ ...privateSale, params: [{ type: 'uint256', value: BigInt(BUYER) }] })).toEqual([]);
  });

  it('PRIVATE_SALE_BID: a private sale must be an ask', () => {
    expect(codes({ ...privateSale, isOrderAsk: false })).toEqual(['PRIVATE_SALE_BID']);
  });

  it('DUTCH_AUCTION_PARAMS: one uint256 start price strictly above price', () => {
    const startPrice = (dutch.params[0] as { value: bigint }).value;
    expect(codes({ ...dutch, params: [] })).toEqual(['DUTCH_AUCTION_PARAMS']);
    expect(codes({ ...dutch, params: [{ type: 'address', value: BUYER }] })).toEqual(['DUTCH_AUCTION_PARAMS']);
    expect(codes({ ...dutch, price: startPrice })).toEqual(['DUTCH_AUCTION_PARAMS']);
    expect(codes({ ...dutch, price: startPrice - 1n })).toEqual([]);
  });

  it('DUTCH_AUCTION_BID: a Dutch auction must be an ask', () => {
    expect(codes({ ...dutch, isOrderAsk: false })).toEqual(['DUTCH_AUCTION_BID']);
  });

  it('DUTCH_AUCTION_TOO_SHORT: at least 15 minutes (the contract minimum)', () => {
    expect(codes({ ...dutch, startTime: NOW, endTime: NOW + 899n })).toEqual(['DUTCH_AUCTION_TOO_SHORT']);
    expect(codes({ ...dutch, startTime: NOW, endTime: NOW + 900n })).toEqual([]);
  });

  it('reports several problems at once', () => {
    const bad = { ...collectionOffer, isOrderAsk: true, tokenId: 5n, currency: ask.signer, amount: 3n, minPercentageToAsk: 10000n, price: 0n, startTime: NOW + 10n, endTime: NOW };
    expect(codes(bad)).toEqual([
      'COLLECTION_OFFER_TOKEN_ID',
      'COLLECTION_OFFER_ASK',
      'CURRENCY_NOT_WHITELISTED',
      'INVALID_AMOUNT',
      'MIN_PERCENTAGE_TOO_HIGH',
      'PRICE_ZERO',
      'EXPIRED',
      'END_BEFORE_START',
    ]);
    expect(checkOrderRules(bad, ctx).every((p) => p.field !== null && p.message.length > 0)).toBe(true);
  });

  it('an unconfigured network (no WETH, no strategies) refuses currency and strategy', () => {
    const empty = { ...mainnet, weth: '', strategies: { standardSale: [], collectionOffer: [], privateSale: [], dutchAuction: [] } };
    expect(codes(ask, { network: empty })).toEqual(['STRATEGY_NOT_WHITELISTED', 'CURRENCY_NOT_WHITELISTED']);
  });
});
