// Order signature verification off the main thread. One ecrecover costs about 2 ms of pure JS
// (EIP-712 digest about 0.6 ms more); on the event loop that was a third of the main thread's
// time per submitted order (bench/submit-bench.ts). A small piscina pool runs the very same
// checkSignature (src/domain/order-signature.ts) in worker threads; SIGNATURE_WORKERS=0 keeps it
// on the main thread. A worker failure (not a bad signature: checkSignature never throws for
// those) is reported and the order is verified inline instead, so a broken pool degrades to
// the old speed rather than refusing orders.
import { fileURLToPath } from 'node:url';
import type { TypedDataDomain } from 'ethers';
import { Piscina } from 'piscina';
import type { MakerOrder } from '../domain/maker-order.js';
import { checkSignature, type SignatureCheck } from '../domain/order-signature.js';
import type { SignatureTask } from './signature-worker.js';

export interface SignatureVerifier {
  /** worker threads doing the work; 0 = the calling thread */
  readonly threads: number;
  check(order: MakerOrder, signature: string, domain: TypedDataDomain, structHash?: string): Promise<SignatureCheck>;
  /** stops the workers (idempotent); later checks run inline */
  close(): Promise<void>;
}

/** Verifies on the calling thread: the fallback, and SIGNATURE_WORKERS=0. */
export const inlineSignatureVerifier: SignatureVerifier = {
  threads: 0,
  check: async (order, signature, domain, structHash) => checkSignature(order, signature, domain, structHash),
  close: async () => {},
};

// A plain .mjs entry that loads the TS worker with or without an inherited tsx loader.
const WORKER_ENTRY = fileURLToPath(new URL('./signature-worker.mjs', import.meta.url));

export function createSignatureVerifier(threads: number, opts: { onWorkerError?: (err: unknown) => void } = {}): SignatureVerifier {
  if (threads <= 0) return inlineSignatureVerifier;
  // All threads start at once and stay (idleTimeout: a thread restart costs a module load).
  const pool = new Piscina<SignatureTask, SignatureCheck>({ filename: WORKER_ENTRY, minThreads: threads, maxThreads: threads, idleTimeout: 2 ** 31 - 1 });
  let closed = false;
  return {
    threads,
    async check(order, signature, domain) {
      if (closed) return checkSignature(order, signature, domain);
      try {
        return await pool.run({ order, signature, domain });
      } catch (err) {
        opts.onWorkerError?.(err);
        return checkSignature(order, signature, domain);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.close(); // lets queued checks finish, then terminates the threads
    },
  };
}
