// The signature checks of the v1 exchange (SignatureChecker.sol): 65 bytes, v 27/28, low s,
// ecrecover(digest) == signer, with the domain binding chain and exchange.
import { describe, it, expect } from 'vitest';
import { TypedDataEncoder, Wallet, toBeHex } from 'ethers';
import { exchangeDomain, MAKER_ORDER_TYPES } from '../../src/domain/maker-order.js';
import { parseMakerOrderInput, toSignedMakerOrder } from '../../src/domain/maker-order-input.js';
import { checkSignature, SECP256K1_N } from '../../src/domain/order-signature.js';
import { mainnet, mainnetDomain, vector } from './v1-vectors.js';

const v0 = vector('standard-ask-erc721-v1b');
const parsed = parseMakerOrderInput(v0.order);
if (!parsed.ok) throw new Error('vector does not parse');
const order = toSignedMakerOrder(parsed.value);
const sig = v0.order.signature;
const wallet = new Wallet(v0.privateKey);

const codes = (o = order, s = sig, d = mainnetDomain) => checkSignature(o, s, d).problems.map((p) => p.code);
const withV = (s: string, v: number) => s.slice(0, 130) + v.toString(16).padStart(2, '0');

describe('checkSignature', () => {
  it('accepts an ethers 6 signature of the same order (same bytes as the SDK one)', async () => {
    const mine = await wallet.signTypedData(mainnetDomain, MAKER_ORDER_TYPES, order);
    expect(mine).toBe(sig);
    expect(codes(order, mine)).toEqual([]);
  });

  it('SIGNATURE_MISMATCH on any tampered field, and reports who it recovers to', () => {
    for (const tampered of [{ ...order, price: order.price + 1n }, { ...order, params: '0x01' }, { ...order, isOrderAsk: false }, { ...order, nonce: 1n }]) {
      const check = checkSignature(tampered, sig, mainnetDomain);
      expect(check.problems.map((p) => p.code)).toEqual(['SIGNATURE_MISMATCH']);
      expect(check.recovered).not.toBe(order.signer);
    }
  });

  it('SIGNATURE_MISMATCH when signed by another key', async () => {
    const other = Wallet.createRandom();
    const foreign = await other.signTypedData(mainnetDomain, MAKER_ORDER_TYPES, order);
    const check = checkSignature(order, foreign, mainnetDomain);
    expect(check.problems.map((p) => p.code)).toEqual(['SIGNATURE_MISMATCH']);
    expect(check.recovered).toBe(other.address);
  });

  it('SIGNATURE_MISMATCH for the wrong chain id in the domain', () => {
    expect(codes(order, sig, exchangeDomain(5, mainnet.exchange))).toEqual(['SIGNATURE_MISMATCH']);
  });

  it('SIGNATURE_MISMATCH for the wrong verifying contract', () => {
    expect(codes(order, sig, exchangeDomain(1, '0xD112466471b5438C1ca2D218694200e49d81D047'))).toEqual(['SIGNATURE_MISMATCH']);
  });

  it('returns the digest of the order as given, for an EIP-1271 isValidSignature call', () => {
    const contractSigned = { ...order, signer: '0x000000000000000000000000000000000000dEaD' };
    const check = checkSignature(contractSigned, sig, mainnetDomain);
    expect(check.problems.map((p) => p.code)).toEqual(['SIGNATURE_MISMATCH']);
    expect(check.digest).toBe(TypedDataEncoder.hash(mainnetDomain, MAKER_ORDER_TYPES, contractSigned));
    expect(checkSignature(order, sig, mainnetDomain).digest).toBe(v0.digest);
  });

  it('HIGH_S_SIGNATURE: the malleable twin (n - s, other v) is refused like the contract does', () => {
    const s = BigInt(`0x${sig.slice(66, 130)}`);
    const v = parseInt(sig.slice(130), 16);
    const twin = `${sig.slice(0, 66)}${toBeHex(SECP256K1_N - s, 32).slice(2)}${(v === 27 ? 28 : 27).toString(16)}`;
    const check = checkSignature(order, twin, mainnetDomain);
    expect(check.problems.map((p) => p.code)).toEqual(['HIGH_S_SIGNATURE']);
    expect(check.recovered).toBeNull();
  });

  it('INVALID_SIGNATURE_FORMAT: not 0x + 130 hex digits', () => {
    for (const bad of [sig.slice(0, -2), `${sig}00`, sig.slice(2), `${sig.slice(0, -1)}g`, '', `${sig} `]) {
      const check = checkSignature(order, bad, mainnetDomain);
      expect(check.problems.map((p) => p.code)).toEqual(['INVALID_SIGNATURE_FORMAT']);
      expect(check.v).toBeNull();
    }
  });

  it('INVALID_SIGNATURE_V: v other than 27/28 (or 0/1)', () => {
    expect(codes(order, withV(sig, 29))).toEqual(['INVALID_SIGNATURE_V']);
    expect(codes(order, withV(sig, 37))).toEqual(['INVALID_SIGNATURE_V']);
  });

  it('accepts v as 0/1 and normalises it to 27/28', () => {
    const v = parseInt(sig.slice(130), 16);
    const check = checkSignature(order, withV(sig, v - 27), mainnetDomain);
    expect(check.problems).toEqual([]);
    expect(check.v).toBe(v);
    expect(check.signature).toBe(sig.toLowerCase());
  });

  it('splits r, s and v and accepts upper-case hex', () => {
    const check = checkSignature(order, `0x${sig.slice(2).toUpperCase()}`, mainnetDomain);
    expect(check.problems).toEqual([]);
    expect(check).toMatchObject({ r: sig.slice(0, 66), s: `0x${sig.slice(66, 130)}`, v: parseInt(sig.slice(130), 16) });
  });

  it('SIGNATURE_MISMATCH when r is not a curve point (recovers to nothing)', () => {
    const check = checkSignature(order, `0x${'00'.repeat(32)}${sig.slice(66)}`, mainnetDomain);
    expect(check.problems.map((p) => p.code)).toEqual(['SIGNATURE_MISMATCH']);
    expect(check.recovered).toBeNull();
  });
});
