// The v1 SDK vectors (test/fixtures/v1-vectors.json, signed by @looksrare/sdk@0.12.1 + ethers 5)
// and a valid base order for mutation tests.
import { readFileSync } from 'node:fs';
import { exchangeDomain } from '../../src/domain/maker-order.js';
import { resolveNetwork } from '../../src/domain/networks.js';

export interface V1Vector {
  name: string;
  privateKey: string;
  chainId: number;
  verifyingContract: string;
  order: Record<string, unknown> & { signer: string; signature: string };
  structHash: string;
  digest: string;
  encodedParams: string;
}

export const vectors: V1Vector[] = JSON.parse(readFileSync(new URL('../fixtures/v1-vectors.json', import.meta.url), 'utf8'));

export const vector = (name: string): V1Vector => {
  const v = vectors.find((x) => x.name === name);
  if (!v) throw new Error(`no vector ${name}`);
  return v;
};

export const mainnet = resolveNetwork(1);
export const mainnetDomain = exchangeDomain(1, mainnet.exchange);
/** between the vectors' startTime (1700000000) and endTime (1900000000) */
export const NOW = 1_800_000_000n;
