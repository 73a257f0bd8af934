// Both crypto backends (native addons and the pure-JS fallback) give the same answers: the v1 SDK
// vectors, random keys and digests, and the signatures that recover nothing. The rest of the
// suite runs on whichever backend loaded; this file runs the checks on each in turn.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AbiCoder, TypedDataEncoder, Wallet, getAddress, keccak256, randomBytes, recoverAddress, hexlify } from 'ethers';
import {
  bytesToHex,
  checksumAddress,
  cryptoBackendInfo,
  keccak256Hex,
  loadJsCryptoBackend,
  recoverAddressFromDigest,
  useCryptoBackend,
  type CryptoBackendName,
} from '../../src/domain/crypto-backend.js';
import { MAKER_ORDER_TYPEHASH, MAKER_ORDER_TYPES, computeOrderDigest, computeOrderHash, exchangeDomain, type MakerOrder } from '../../src/domain/maker-order.js';
import { parseMakerOrderInput, toSignedMakerOrder } from '../../src/domain/maker-order-input.js';
import { checkSignature, SECP256K1_N } from '../../src/domain/order-signature.js';
import { vectors } from './v1-vectors.js';

const initial = cryptoBackendInfo().backend;
// the JS fallback is imported only when the native addons fail to load: load it to compare
beforeAll(() => loadJsCryptoBackend());
afterAll(() => useCryptoBackend(initial));

it('the native backend loads on this platform (linux-x64 prebuilds) and is the default', () => {
  const info = cryptoBackendInfo();
  expect(info.nativeError).toBeNull();
  expect(info.nativeAvailable).toBe(true);
  expect(initial).toBe('native');
});

const abi = AbiCoder.defaultAbiCoder();
/** The generic (ethers) encoding the hand-laid struct hash replaces. */
function ethersStructHash(o: MakerOrder): string {
  return keccak256(
    abi.encode(
      ['bytes32', 'bool', 'address', 'address', 'uint256', 'uint256', 'uint256', 'address', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'bytes32'],
      [MAKER_ORDER_TYPEHASH, o.isOrderAsk, o.signer, o.collection, o.price, o.tokenId, o.amount, o.strategy, o.currency, o.nonce, o.startTime, o.endTime, o.minPercentageToAsk, keccak256(o.params)],
    ),
  );
}

const rnd = (bytes: number) => (bytes === 0 ? 0n : BigInt(hexlify(randomBytes(bytes))));
function randomOrder(): MakerOrder {
  const addr = () => getAddress(hexlify(randomBytes(20)));
  return {
    isOrderAsk: Math.random() < 0.5,
    signer: addr(),
    collection: addr(),
    price: rnd(32),
    tokenId: rnd(Math.floor(Math.random() * 33)) || 0n,
    amount: rnd(4),
    strategy: addr(),
    currency: addr(),
    nonce: rnd(32),
    startTime: rnd(4),
    endTime: rnd(5),
    minPercentageToAsk: rnd(2),
    params: hexlify(randomBytes(Math.floor(Math.random() * 3) * 32)),
  };
}

describe.each<CryptoBackendName>(['native', 'js'])('crypto backend %s', (name) => {
  const use = () => useCryptoBackend(name);

  it('keccak256 matches ethers on empty, short and long inputs', () => {
    use();
    for (const len of [0, 1, 31, 32, 33, 135, 136, 137, 500, 4096]) {
      const data = randomBytes(len);
      expect(keccak256Hex(data)).toBe(keccak256(data));
    }
  });

  it('checksums addresses as ethers getAddress does', () => {
    use();
    for (let i = 0; i < 50; i++) {
      const lower = hexlify(randomBytes(20));
      expect(checksumAddress(lower)).toBe(getAddress(lower));
    }
  });

  it('the v1 SDK vectors: struct hash, digest, signer', () => {
    use();
    for (const v of vectors) {
      const parsed = parseMakerOrderInput(v.order);
      if (!parsed.ok) throw new Error(v.name);
      const order = toSignedMakerOrder(parsed.value);
      const domain = exchangeDomain(v.chainId, v.verifyingContract);
      expect(computeOrderHash(order)).toBe(v.structHash);
      expect(computeOrderDigest(order, domain)).toBe(v.digest);
      const check = checkSignature(order, v.order.signature, domain, v.structHash);
      expect(check.problems).toEqual([]);
      expect(check.recovered).toBe(v.order.signer);
    }
  });

  it('random orders hash and digest exactly as ethers encodes them', () => {
    use();
    const domain = exchangeDomain(1, '0x59728544B08AB483533076417FbBB2fD0B17CE3a');
    for (let i = 0; i < 200; i++) {
      const o = randomOrder();
      expect(computeOrderHash(o)).toBe(ethersStructHash(o));
      expect(computeOrderDigest(o, domain)).toBe(TypedDataEncoder.hash(domain, MAKER_ORDER_TYPES, o));
    }
  });

  it('random keys and digests recover to the signing address', () => {
    use();
    for (let i = 0; i < (name === 'js' ? 20 : 100); i++) {
      const w = Wallet.createRandom();
      const digest = hexlify(randomBytes(32));
      const sig = w.signingKey.sign(digest);
      expect(recoverAddressFromDigest(digest, sig.r, sig.s, sig.v)).toBe(w.address);
      // the other recovery id is another (valid) key, never the signer
      const other = recoverAddressFromDigest(digest, sig.r, sig.s, sig.v === 27 ? 28 : 27);
      expect(other).not.toBe(w.address);
      if (other) expect(other).toBe(recoverAddress(digest, { r: sig.r, s: sig.s, v: sig.v === 27 ? 28 : 27 }));
    }
  });

  it('recovers nothing when r or s is zero or not below n, or r has no curve point', () => {
    use();
    const digest = hexlify(randomBytes(32));
    const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
    const s = word(12345n);
    expect(recoverAddressFromDigest(digest, word(0n), s, 27)).toBeNull();
    expect(recoverAddressFromDigest(digest, word(5n), word(0n), 27)).toBeNull();
    expect(recoverAddressFromDigest(digest, word(SECP256K1_N), s, 27)).toBeNull();
    expect(recoverAddressFromDigest(digest, word(SECP256K1_N + 1n), s, 28)).toBeNull();
    // x = 5 is not the x of any point on secp256k1 (5^3 + 7 = 132 is not a square mod p)
    expect(recoverAddressFromDigest(digest, word(5n), s, 27)).toBeNull();
    expect(recoverAddressFromDigest(digest, word(1n), s, 29)).toBeNull();
  });

  it('bytesToHex respects views into larger buffers', () => {
    const buf = new Uint8Array([1, 2, 3, 4]);
    expect(bytesToHex(buf.subarray(1, 3))).toBe('0x0203');
  });
});

it('a process whose native addons do not load imports the JS backend at start and runs on it', async () => {
  vi.resetModules();
  vi.stubEnv('CRYPTO_BACKEND', 'js');
  try {
    const fresh = await import('../../src/domain/crypto-backend.js');
    expect(fresh.cryptoBackendInfo()).toEqual({ backend: 'js', nativeAvailable: false, nativeError: 'CRYPTO_BACKEND=js' });
    expect(fresh.keccak256Hex(new Uint8Array(0))).toBe(keccak256(new Uint8Array(0)));
    const wallet = Wallet.createRandom();
    const digest = keccak256(randomBytes(32));
    const sig = wallet.signingKey.sign(digest);
    expect(fresh.recoverAddressFromDigest(digest, sig.r, sig.s, sig.v)).toBe(wallet.address);
  } finally {
    vi.unstubAllEnvs();
    vi.resetModules();
  }
});
