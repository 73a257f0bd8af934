// The maker order signature as the v1 exchange checks it: LooksRare/contracts-exchange-v1
// contracts/libraries/SignatureChecker.sol. For an EOA signer: s <= secp256k1n/2, v in {27, 28},
// ecrecover(digest, v, r, s) == signer. For a contract signer (EIP-1271) the exchange instead
// calls signer.isValidSignature(digest, abi.encodePacked(r, s, v)) and none of the ECDSA rules
// apply: the service, which can see chain code, drops ECDSA_PROBLEM_CODES and asks the chain.
import type { TypedDataDomain } from 'ethers';
import { recoverAddressFromDigest } from './crypto-backend.js';
import { computeOrderDigest, orderDigestFromStructHash, type MakerOrder } from './maker-order.js';
import { orderProblem, type OrderProblem, type OrderProblemCode } from './order-problems.js';

export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** The contract's bound: 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0. */
export const SECP256K1_HALF_N = SECP256K1_N / 2n;

/** Problems that only mean something for an EOA signer (see the file comment). */
export const ECDSA_PROBLEM_CODES: readonly OrderProblemCode[] = ['INVALID_SIGNATURE_V', 'HIGH_S_SIGNATURE', 'SIGNATURE_MISMATCH'];

export interface SignatureCheck {
  /** the EOA verdict; empty when the signature is valid for order.signer */
  problems: OrderProblem[];
  /** the address the signature recovers to; null when v or s are refused or recovery fails */
  recovered: string | null;
  /** the EIP-712 digest, keccak256(0x1901 || domainSeparator || structHash): what EIP-1271 is asked about */
  digest: string;
  /** lowercase r || s || v with v normalised to 27/28; null when the format is refused */
  signature: string | null;
  v: number | null;
  r: string | null;
  s: string | null;
}

const SIGNATURE_RE = /^0x[0-9a-fA-F]{130}$/;

/** `structHash`: the order's hash when the caller has it already (saves hashing the struct twice). */
export function checkSignature(order: MakerOrder, signature: string, domain: TypedDataDomain, structHash?: string): SignatureCheck {
  const digest = structHash ? orderDigestFromStructHash(structHash, domain) : computeOrderDigest(order, domain);
  if (!SIGNATURE_RE.test(signature)) {
    return { problems: [orderProblem('INVALID_SIGNATURE_FORMAT', 'signature')], recovered: null, digest, signature: null, v: null, r: null, s: null };
  }
  const hex = signature.toLowerCase();
  const r = `0x${hex.slice(2, 66)}`;
  const s = `0x${hex.slice(66, 130)}`;
  const rawV = parseInt(hex.slice(130, 132), 16);
  // Some wallets and hardware signers return v as the recovery id 0/1; the exchange wants
  // 27/28 and the taker submits the v we serve, so it is normalised (as ethers splitSignature does).
  const v = rawV === 0 || rawV === 1 ? rawV + 27 : rawV;
  const normalised = `${hex.slice(0, 130)}${v.toString(16).padStart(2, '0')}`;

  const problems: OrderProblem[] = [];
  if (v !== 27 && v !== 28) problems.push(orderProblem('INVALID_SIGNATURE_V', 'signature', `Signature v must be 27 or 28, got ${rawV}`));
  if (BigInt(s) > SECP256K1_HALF_N) problems.push(orderProblem('HIGH_S_SIGNATURE', 'signature'));

  let recovered: string | null = null;
  // The contract stops at the v and s checks; so do we (and ethers would refuse a high s).
  if (problems.length === 0) {
    // null: r or s out of range, or no point: ecrecover would return address(0)
    recovered = recoverAddressFromDigest(digest, r, s, v);
    if (recovered === null) problems.push(orderProblem('SIGNATURE_MISMATCH', 'signature', 'Signature does not recover to any address'));
    else if (recovered.toLowerCase() !== order.signer.toLowerCase()) problems.push(orderProblem('SIGNATURE_MISMATCH', 'signature', `Signature does not match the signer: it recovers to ${recovered}`));
  }
  return { problems, recovered, digest, signature: normalised, v, r, s };
}
