// The LooksRare v1 MakerOrder struct, its EIP-712 domain, and the order hash (spec 2.5).
// Mirrors OrderTypes.sol of the v1 exchange: MAKER_ORDER_HASH and OrderTypes.hash().
import { AbiCoder, TypedDataEncoder, keccak256, toUtf8Bytes, type TypedDataDomain } from 'ethers';

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
export const MAKER_ORDER_TYPEHASH = keccak256(toUtf8Bytes(MAKER_ORDER_TYPE_STRING));

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

const abi = AbiCoder.defaultAbiCoder();

/**
 * The order hash: keccak256(abi.encode(MAKER_ORDER_HASH, isOrderAsk, ..., keccak256(params))),
 * i.e. the EIP-712 struct hash, not the signed digest.
 */
export function computeOrderHash(o: MakerOrder): string {
  return keccak256(
    abi.encode(
      ['bytes32', 'bool', 'address', 'address', 'uint256', 'uint256', 'uint256', 'address', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'bytes32'],
      [
        MAKER_ORDER_TYPEHASH,
        o.isOrderAsk,
        o.signer,
        o.collection,
        o.price,
        o.tokenId,
        o.amount,
        o.strategy,
        o.currency,
        o.nonce,
        o.startTime,
        o.endTime,
        o.minPercentageToAsk,
        keccak256(o.params),
      ],
    ),
  );
}

/** The digest a wallet signs: keccak256(0x1901 || domainSeparator || structHash). */
export function computeOrderDigest(o: MakerOrder, domain: TypedDataDomain): string {
  return TypedDataEncoder.hash(domain, MAKER_ORDER_TYPES, o);
}
