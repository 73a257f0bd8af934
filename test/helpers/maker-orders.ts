// Signed maker orders for submission tests: through the original v1 SDK (test/sdk-client, ethers
// 5, in a child process) or in-process with ethers 6 for rule-by-rule cases.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { exchangeDomain, MAKER_ORDER_TYPES } from '../../src/domain/maker-order.js';
import { encodeParams, parseParams } from '../../src/domain/order-params.js';
import type { MakerOrderBody } from '../../src/domain/maker-order-body.js';
import type { Network } from '../../src/domain/networks.js';

const run = promisify(execFile);

export type { MakerOrderBody };

export interface SdkSigned {
  makerOrder: MakerOrderBody & { signature: string };
  structHash: string;
  digest: string;
  encodedParams: string;
}

/** Signs with @looksrare/sdk@0.12.1 + ethers 5 Wallet._signTypedData, as v1 clients did. */
export async function signWithV1Sdk(chainId: number, verifyingContract: string, entries: { privateKey: string; order: MakerOrderBody }[]): Promise<SdkSigned[]> {
  const child = run(process.execPath, ['test/sdk-client/sign-orders.js'], { maxBuffer: 16 << 20 });
  child.child.stdin!.end(JSON.stringify({ chainId, verifyingContract, orders: entries }));
  const { stdout } = await child;
  return JSON.parse(stdout) as SdkSigned[];
}

/** Signs in-process with ethers 6 (same typed data), for cases that need many orders fast. */
export async function signWithEthers6(wallet: Wallet, chainId: number, verifyingContract: string, order: MakerOrderBody): Promise<MakerOrderBody & { signature: string }> {
  const parsed = parseParams(order.params);
  if (!parsed.ok) throw new Error(parsed.message);
  const value = { ...order, tokenId: order.tokenId ?? '0', params: encodeParams(parsed.values) };
  const signature = await wallet.signTypedData(exchangeDomain(chainId, verifyingContract), MAKER_ORDER_TYPES, value);
  return { ...order, signature };
}

/**
 * A standard-sale ask that passes every rule at `now`: 1 ETH in WETH for token 7 of an ERC-721,
 * valid from a minute before to a day after. Each test overrides only what it varies.
 */
export function standardAsk(net: Network, at: { signer: string; collection: string; nonce: number | string; now: number }, over: Partial<MakerOrderBody> = {}): MakerOrderBody {
  return {
    isOrderAsk: true,
    signer: at.signer,
    collection: at.collection,
    price: '1000000000000000000',
    tokenId: '7',
    amount: '1',
    strategy: net.strategies.standardSale[0]!,
    currency: net.weth,
    nonce: String(at.nonce),
    startTime: at.now - 60,
    endTime: at.now + 86_400,
    minPercentageToAsk: 9800,
    params: [],
    ...over,
  };
}
