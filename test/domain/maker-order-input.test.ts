// Shape of the POST /orders body (spec 2.3): every field problem is reported in one answer.
import { describe, it, expect } from 'vitest';
import { parseMakerOrderInput, toSignedMakerOrder } from '../../src/domain/maker-order-input.js';
import { computeOrderHash } from '../../src/domain/maker-order.js';
import { vector } from './v1-vectors.js';

const body = vector('standard-ask-erc721-v1b').order;
const problemsOf = (raw: unknown) => {
  const r = parseMakerOrderInput(raw);
  return r.ok ? [] : r.problems.map((p) => [p.field, p.code]);
};

describe('parseMakerOrderInput', () => {
  it('parses a valid body into bigints and checksummed addresses', () => {
    const r = parseMakerOrderInput(body);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ price: 10n ** 18n, tokenId: 1234n, amount: 1n, nonce: 0n, startTime: 1700000000n, endTime: 1900000000n, minPercentageToAsk: 9800n, params: [], encodedParams: '0x' });
  });

  it('takes bigints where GraphQL scalars (Uint256, UnixTime) parsed them already, with the same result', () => {
    const strings = parseMakerOrderInput(body);
    const bigints = parseMakerOrderInput({ ...body, price: 10n ** 18n, tokenId: 1234n, amount: 1n, nonce: 0n, startTime: 1700000000n, endTime: 1900000000n });
    expect(bigints).toEqual(strings);
    expect(problemsOf({ ...body, price: -1n, endTime: 2n ** 53n })).toEqual([
      ['price', 'INVALID_UINT256'],
      ['endTime', 'INVALID_TIMESTAMP'],
    ]);
  });

  it('reports every shape problem together', () => {
    const bad = {
      isOrderAsk: 'true',
      signer: '0x1234',
      collection: 42,
      price: '-1',
      tokenId: '1.5',
      amount: true,
      // strategy missing
      currency: null,
      nonce: '1e3',
      startTime: 1.5,
      endTime: '2^53',
      minPercentageToAsk: -1,
      params: ['true', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', {}],
      signature: 0x1234,
    };
    expect(problemsOf(bad)).toEqual([
      ['isOrderAsk', 'INVALID_TYPE'],
      ['signer', 'INVALID_ADDRESS'],
      ['collection', 'INVALID_TYPE'],
      ['price', 'INVALID_UINT256'],
      ['tokenId', 'INVALID_UINT256'],
      ['amount', 'INVALID_TYPE'],
      ['strategy', 'MISSING_FIELD'],
      ['currency', 'MISSING_FIELD'],
      ['nonce', 'INVALID_UINT256'],
      ['startTime', 'INVALID_TIMESTAMP'],
      ['endTime', 'INVALID_TIMESTAMP'],
      ['minPercentageToAsk', 'INVALID_INTEGER'],
      ['params[0]', 'INVALID_PARAMS'],
      ['params[2]', 'INVALID_PARAMS'],
      ['signature', 'INVALID_TYPE'],
    ]);
  });

  it('reports every missing field of an empty body (params may be absent)', () => {
    expect(problemsOf({})).toEqual(
      ['isOrderAsk', 'signer', 'collection', 'price', 'tokenId', 'amount', 'strategy', 'currency', 'nonce', 'startTime', 'endTime', 'minPercentageToAsk', 'signature'].map((f) => [f, 'MISSING_FIELD']),
    );
  });

  it('refuses a body that is not a JSON object', () => {
    for (const raw of [null, [], 'order', 1]) expect(problemsOf(raw)).toEqual([[null, 'INVALID_TYPE']]);
  });

  it('points a response-shaped body at the request names', () => {
    const { collection, currency, ...rest } = body;
    const r = parseMakerOrderInput({ ...rest, collectionAddress: collection, currencyAddress: currency });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.field)).toEqual(['collection', 'currency']);
    expect(r.problems[0]!.message).toContain('collectionAddress is the response name');
  });

  it('requires tokenId to be present; null is a collection offer', () => {
    const { tokenId: _omit, ...noTokenId } = body;
    expect(problemsOf(noTokenId)).toEqual([['tokenId', 'MISSING_FIELD']]);
    const r = parseMakerOrderInput({ ...body, tokenId: null });
    expect(r.ok && r.value.tokenId).toBeNull();
    if (r.ok) expect(toSignedMakerOrder(r.value).tokenId).toBe(0n);
  });

  it('accepts safe-integer JSON numbers for uint256 fields, refuses unsafe ones', () => {
    const r = parseMakerOrderInput({ ...body, price: 1000, tokenId: 1234, amount: 1, nonce: 0 });
    expect(r.ok && r.value.price).toBe(1000n);
    expect(problemsOf({ ...body, price: 1e18 })).toEqual([['price', 'INVALID_UINT256']]);
  });

  it('refuses uint256 out of range and non-canonical decimals', () => {
    expect(problemsOf({ ...body, nonce: (1n << 256n).toString() })).toEqual([['nonce', 'INVALID_UINT256']]);
    expect(problemsOf({ ...body, nonce: '0x1' })).toEqual([['nonce', 'INVALID_UINT256']]);
    expect(problemsOf({ ...body, nonce: '007' })).toEqual([['nonce', 'INVALID_UINT256']]);
  });

  it('accepts numeric strings for times and minPercentageToAsk, refuses values beyond 2^53-1', () => {
    const r = parseMakerOrderInput({ ...body, startTime: '1700000000', endTime: '1900000000', minPercentageToAsk: '8500' });
    expect(r.ok && [r.value.startTime, r.value.endTime, r.value.minPercentageToAsk]).toEqual([1700000000n, 1900000000n, 8500n]);
    expect(problemsOf({ ...body, endTime: String(2n ** 53n) })).toEqual([['endTime', 'INVALID_TIMESTAMP']]);
    expect(problemsOf({ ...body, startTime: true })).toEqual([['startTime', 'INVALID_TYPE']]);
  });

  it('accepts addresses in any case and returns them checksummed', () => {
    const r = parseMakerOrderInput({ ...body, signer: body.signer.toLowerCase(), collection: (body.collection as string).toUpperCase().replace('0X', '0x') });
    expect(r.ok && [r.value.signer, r.value.collection]).toEqual([body.signer, body.collection]);
  });

  it('treats absent or null params as [] (the SDK signs them as 0x) and refuses a non-array', () => {
    const { params: _omit, ...noParams } = body;
    for (const raw of [noParams, { ...body, params: null }]) {
      const r = parseMakerOrderInput(raw);
      expect(r.ok && r.value.encodedParams).toBe('0x');
    }
    expect(problemsOf({ ...body, params: '0x' })).toEqual([['params', 'INVALID_TYPE']]);
  });

  it('ignores extra fields real clients send (hash, status, v, r, s) and lists them', () => {
    const r = parseMakerOrderInput({ ...body, hash: '0x00', status: 'VALID', v: 27 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.ignoredFields).toEqual(['hash', 'status', 'v']);
  });

  it('toSignedMakerOrder hashes to the SDK struct hash', () => {
    const r = parseMakerOrderInput(body);
    if (!r.ok) throw new Error('parse');
    expect(computeOrderHash(toSignedMakerOrder(r.value))).toBe(vector('standard-ask-erc721-v1b').structHash);
  });
});
