// The signature worker pool (src/services/signature-pool.ts): worker threads load the TS worker
// under vitest too (no inherited tsx loader), give the same verdicts as checkSignature, fall
// back to the main thread after close(), and SIGNATURE_WORKERS is parsed like the others.
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { exchangeDomain, MAKER_ORDER_TYPES, type MakerOrder } from '../../src/domain/maker-order.js';
import { checkSignature } from '../../src/domain/order-signature.js';
import { createSignatureVerifier, inlineSignatureVerifier } from '../../src/services/signature-pool.js';

const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const domain = exchangeDomain(1, '0x59728544B08AB483533076417FbBB2fD0B17CE3a');
const order: MakerOrder = {
  isOrderAsk: true,
  signer: wallet.address,
  collection: '0x' + 'a7'.repeat(20),
  price: 10n ** 18n,
  tokenId: 7n,
  amount: 1n,
  strategy: '0x' + '11'.repeat(20),
  currency: '0x' + '22'.repeat(20),
  nonce: 3n,
  startTime: 1_700_000_000n,
  endTime: 1_800_000_000n,
  minPercentageToAsk: 9800n,
  params: '0x',
};

const workerErrors: unknown[] = [];
const pool = createSignatureVerifier(2, { onWorkerError: (err) => workerErrors.push(err) });
afterAll(() => pool.close());

describe('signature pool', () => {
  it('verifies on worker threads with the verdicts of checkSignature', async () => {
    const signature = await wallet.signTypedData(domain, MAKER_ORDER_TYPES, order);
    const cases: [MakerOrder, string][] = [
      [order, signature],
      [{ ...order, price: order.price + 1n }, signature], // recovers to someone else
      [order, signature.slice(0, -2) + '1d'], // v = 29
      [order, '0x1234'], // format
    ];
    const results = await Promise.all(cases.map(([o, s]) => pool.check(o, s, domain)));
    expect(workerErrors).toEqual([]); // every verdict came from a worker, none from the fallback
    expect(pool.threads).toBe(2);
    expect(results[0]!.problems).toEqual([]);
    expect(results[0]!.recovered).toBe(wallet.address);
    for (const [i, [o, s]] of cases.entries()) expect(results[i]).toEqual(checkSignature(o, s, domain));
    expect(results.slice(1).map((r) => r.problems[0]!.code)).toEqual(['SIGNATURE_MISMATCH', 'INVALID_SIGNATURE_V', 'INVALID_SIGNATURE_FORMAT']);
  });

  it('keeps up with a burst (more checks than threads)', async () => {
    const signature = await wallet.signTypedData(domain, MAKER_ORDER_TYPES, order);
    const results = await Promise.all(Array.from({ length: 40 }, () => pool.check(order, signature, domain)));
    expect(workerErrors).toEqual([]);
    expect(results.every((r) => r.problems.length === 0 && r.recovered === wallet.address)).toBe(true);
  });

  it('verifies inline after close() and for 0 threads', async () => {
    const signature = await wallet.signTypedData(domain, MAKER_ORDER_TYPES, order);
    const closing = createSignatureVerifier(1);
    await closing.close();
    await closing.close(); // idempotent
    expect((await closing.check(order, signature, domain)).recovered).toBe(wallet.address);
    expect(createSignatureVerifier(0)).toBe(inlineSignatureVerifier);
    expect((await inlineSignatureVerifier.check(order, signature, domain)).recovered).toBe(wallet.address);
  });

  it('reads SIGNATURE_WORKERS: default 0 (the main thread), garbage refused', () => {
    expect(loadConfig({}).signatureWorkers).toBe(0);
    expect(loadConfig({ SIGNATURE_WORKERS: '0' }).signatureWorkers).toBe(0);
    expect(loadConfig({ SIGNATURE_WORKERS: '3' }).signatureWorkers).toBe(3);
    expect(() => loadConfig({ SIGNATURE_WORKERS: 'many' })).toThrow(/SIGNATURE_WORKERS/);
  });
});
