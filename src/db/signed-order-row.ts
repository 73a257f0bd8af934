// A stored order row for a maker order signed by a wallet: the demo seed and the tests build
// orders the way a client would (real EIP-712 signature, server-computed hash).
import { Signature, type Wallet, type TypedDataDomain } from 'ethers';
import { computeOrderHash, MAKER_ORDER_TYPES, type MakerOrder } from '../domain/maker-order.js';
import { paramsToJson, type ParamValue } from '../domain/order-params.js';
import type { OrderStatusName } from '../domain/order-status.js';

export interface SignedOrderRowOptions {
  /** null for a collection offer (the signed tokenId is then 0) */
  tokenId: bigint | null;
  params?: ParamValue[];
  status?: OrderStatusName;
  createdAt?: Date;
}

export async function signedOrderRow(wallet: Wallet, domain: TypedDataDomain, order: MakerOrder, opts: SignedOrderRowOptions) {
  const signature = await wallet.signTypedData(domain, MAKER_ORDER_TYPES, order);
  const sig = Signature.from(signature);
  return {
    hash: computeOrderHash(order),
    collectionAddress: order.collection,
    tokenId: opts.tokenId === null ? null : opts.tokenId.toString(),
    isOrderAsk: order.isOrderAsk,
    signer: order.signer,
    strategy: order.strategy,
    currencyAddress: order.currency,
    amount: order.amount.toString(),
    price: order.price.toString(),
    nonce: order.nonce.toString(),
    startTime: order.startTime,
    endTime: order.endTime,
    minPercentageToAsk: Number(order.minPercentageToAsk),
    params: order.params,
    paramsList: paramsToJson(opts.params ?? []),
    status: opts.status ?? 'VALID',
    signature,
    v: sig.v,
    r: sig.r,
    s: sig.s,
    ...(opts.createdAt ? { createdAt: opts.createdAt } : {}),
  };
}
