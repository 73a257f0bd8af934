// The v1 Order JSON (spec 2.2) of an order the REST layer has in hand, built directly instead of
// through a GraphQL execution (which cost about 1 ms per POST /api/v1/orders). Same fields, same
// order and same values as the RestOrderFields fragment in documents.ts resolved by schema/order.ts;
// test/rest/order-json.test.ts compares the two byte for byte.
import { paramsForResponse } from '../domain/order-params.js';
import { effectiveStatus } from '../domain/order-status.js';
import { toUintString } from '../domain/uint256.js';
import type { Order } from '../generated/prisma/client.js';

export function orderToV1Json(o: Order, now: Date) {
  return {
    hash: o.hash,
    collectionAddress: o.collectionAddress,
    tokenId: o.tokenId === null ? null : toUintString(o.tokenId),
    isOrderAsk: o.isOrderAsk,
    signer: o.signer,
    strategy: o.strategy,
    currencyAddress: o.currencyAddress,
    amount: toUintString(o.amount),
    price: toUintString(o.price),
    nonce: toUintString(o.nonce),
    startTime: Number(o.startTime),
    endTime: Number(o.endTime),
    minPercentageToAsk: o.minPercentageToAsk,
    params: paramsForResponse(o.params),
    status: effectiveStatus(o.status, o.endTime, BigInt(Math.floor(now.getTime() / 1000))),
    signature: o.signature,
    r: o.r,
    s: o.s,
    v: o.v,
  };
}
