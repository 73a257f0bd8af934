// Runs in a worker thread of the signature pool (signature-pool.ts): the same checkSignature the
// main thread would run. Arguments and result cross the thread boundary by structured clone
// (bigint fields included). Loaded through signature-worker.mjs, which brings the TS loader.
import type { TypedDataDomain } from 'ethers';
import type { MakerOrder } from '../domain/maker-order.js';
import { checkSignature, type SignatureCheck } from '../domain/order-signature.js';

export interface SignatureTask {
  order: MakerOrder;
  signature: string;
  domain: TypedDataDomain;
}

export default function verify(task: SignatureTask): SignatureCheck {
  return checkSignature(task.order, task.signature, task.domain);
}
