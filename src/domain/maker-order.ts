// The LooksRare v1 MakerOrder struct, its EIP-712 domain, and the order hash (spec 2.5).
// Mirrors OrderTypes.sol of the v1 exchange: MAKER_ORDER_HASH and OrderTypes.hash().
import type { TypedDataDomain } from 'ethers';
import { bytesToHex, hexToBytes, keccak256Bytes, keccak256Hex } from './crypto-backend.js';

/** A maker order with parsed values, as signed (collection offers carry tokenId 0). */
export interface MakerOrder {
  isOrderAsk: boolean;
  signer: string;
  collection: string;
  price: bigint;
  tokenId: bigint;
  amount: bigint;
  strategy: string;
  currency: string;
  nonce: bigint;
  startTime: bigint;
  endTime: bigint;
  minPercentageToAsk: bigint;
  /** the ABI-encoded params bytes, '0x' when there are none */
  params: string;
}

export const MAKER_ORDER_TYPE_STRING =
  'MakerOrder(bool isOrderAsk,address signer,address collection,uint256 price,uint256 tokenId,uint256 amount,address strategy,address currency,uint256 nonce,uint256 startTime,uint256 endTime,uint256 minPercentageToAsk,bytes params)';

/** keccak256 of the type string: 0x40261ade...85028 (looksrare-v1-facts.md). */
export const MAKER_ORDER_TYPEHASH = keccak256Hex(Buffer.from(MAKER_ORDER_TYPE_STRING, 'utf8'));

export const MAKER_ORDER_TYPES = {
  MakerOrder: [
    { name: 'isOrderAsk', type: 'bool' },
    { name: 'signer', type: 'address' },
    { name: 'collection', type: 'address' },
    { name: 'price', type: 'uint256' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'amount', type: 'uint256' },
    { name: 'strategy', type: 'address' },
    { name: 'currency', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'startTime', type: 'uint256' },
    { name: 'endTime', type: 'uint256' },
    { name: 'minPercentageToAsk', type: 'uint256' },
    { name: 'params', type: 'bytes' },
  ],
};

export function exchangeDomain(chainId: number, verifyingContract: string): TypedDataDomain {
  return { name: 'LooksRareExchange', version: '1', chainId, verifyingContract };
}

// The struct is fixed: 13 static words after the type hash (bytes is hashed into one), so it is
// laid out by hand instead of through ethers' AbiCoder/TypedDataEncoder, which cost about 0.7 ms
// per order in generic encoding; test/domain/maker-order.test.ts checks it against both.
const TYPEHASH_BYTES = hexToBytes(MAKER_ORDER_TYPEHASH);
const UINT256_MAX = (1n << 256n) - 1n;

function putUint(buf: Uint8Array, offset: number, value: bigint): void {
  if (value < 0n || value > UINT256_MAX) throw new RangeError(`not a uint256: ${value}`);
  let v = value;
  for (let i = offset + 31; i >= offset && v > 0n; i--) {
    buf[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function putAddress(buf: Uint8Array, offset: number, address: string): void {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`not an address: ${address}`);
  buf.set(hexToBytes(address), offset + 12);
}

/** keccak256 of the 14-word struct encoding (OrderTypes.hash), as bytes. */
export function orderStructHashBytes(o: MakerOrder): Uint8Array {
  const buf = new Uint8Array(14 * 32);
  buf.set(TYPEHASH_BYTES, 0);
  if (o.isOrderAsk) buf[63] = 1;
  putAddress(buf, 64, o.signer);
  putAddress(buf, 96, o.collection);
  putUint(buf, 128, o.price);
  putUint(buf, 160, o.tokenId);
  putUint(buf, 192, o.amount);
  putAddress(buf, 224, o.strategy);
  putAddress(buf, 256, o.currency);
  putUint(buf, 288, o.nonce);
  putUint(buf, 320, o.startTime);
  putUint(buf, 352, o.endTime);
  putUint(buf, 384, o.minPercentageToAsk);
  buf.set(keccak256Bytes(hexToBytes(o.params)), 416);
  return keccak256Bytes(buf);
}

/**
 * The order hash: keccak256(abi.encode(MAKER_ORDER_HASH, isOrderAsk, ..., keccak256(params))),
 * i.e. the EIP-712 struct hash, not the signed digest.
 */
export function computeOrderHash(o: MakerOrder): string {
  return bytesToHex(orderStructHashBytes(o));
}

const separators = new Map<string, Uint8Array>();

/** The EIP-712 domain separator, computed once per domain. */
function domainSeparator(domain: TypedDataDomain): Uint8Array {
  const key = `${domain.name}|${domain.version}|${domain.chainId}|${domain.verifyingContract}|${domain.salt ?? ''}`;
  let sep = separators.get(key);
  if (!sep) {
    sep = hashDomain(domain);
    separators.set(key, sep);
  }
  return sep;
}

/**
 * EIP-712 hashStruct(EIP712Domain) over the fields present, in the standard's order, as ethers'
 * TypedDataEncoder.hashDomain does (test/domain/maker-order.test.ts compares the two). By hand
 * because it is five fixed fields, and ethers' generic encoder is the only reason a start would
 * load ethers at all.
 */
export function hashDomain(domain: TypedDataDomain): Uint8Array {
  const fields: string[] = [];
  const words: Uint8Array[] = [];
  const utf8Hash = (v: unknown) => keccak256Bytes(Buffer.from(String(v), 'utf8'));
  if (domain.name != null) {
    fields.push('string name');
    words.push(utf8Hash(domain.name));
  }
  if (domain.version != null) {
    fields.push('string version');
    words.push(utf8Hash(domain.version));
  }
  if (domain.chainId != null) {
    fields.push('uint256 chainId');
    const word = new Uint8Array(32);
    putUint(word, 0, BigInt(domain.chainId));
    words.push(word);
  }
  if (domain.verifyingContract != null) {
    fields.push('address verifyingContract');
    const word = new Uint8Array(32);
    putAddress(word, 0, String(domain.verifyingContract));
    words.push(word);
  }
  if (domain.salt != null) {
    fields.push('bytes32 salt');
    const salt = typeof domain.salt === 'string' ? hexToBytes(domain.salt) : Uint8Array.from(domain.salt);
    if (salt.length !== 32) throw new TypeError('the domain salt must be 32 bytes');
    words.push(salt);
  }
  const buf = new Uint8Array(32 * (words.length + 1));
  buf.set(keccak256Bytes(Buffer.from(`EIP712Domain(${fields.join(',')})`, 'utf8')), 0);
  words.forEach((w, i) => buf.set(w, 32 * (i + 1)));
  return keccak256Bytes(buf);
}

/** keccak256(0x1901 || domainSeparator || structHash), from an already computed struct hash. */
export function orderDigestFromStructHash(structHash: Uint8Array | string, domain: TypedDataDomain): string {
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(domainSeparator(domain), 2);
  buf.set(typeof structHash === 'string' ? hexToBytes(structHash) : structHash, 34);
  return keccak256Hex(buf);
}

/** The digest a wallet signs: keccak256(0x1901 || domainSeparator || structHash). */
export function computeOrderDigest(o: MakerOrder, domain: TypedDataDomain): string {
  return orderDigestFromStructHash(orderStructHashBytes(o), domain);
}
