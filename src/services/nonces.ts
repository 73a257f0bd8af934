// Spec 2.4: the next nonce an address has not used (src/domain/nonce-rules.ts, nextNonceFor),
// from its highest stored nonce and its minimum nonce, read in one statement.
import { nextNonceFor } from '../domain/nonce-rules.js';
import type { ServiceDeps } from './deps.js';

export function createNonceService(deps: ServiceDeps) {
  const { sql } = deps.db;

  async function nextNonce(address: string): Promise<string> {
    const [row] = await sql.query<{ max_nonce: string | null; min_nonce: string | null }>(
      `SELECT (SELECT MAX(nonce) FROM orders WHERE signer = $1)::text AS max_nonce,
              (SELECT min_nonce FROM signer_nonce_state WHERE signer = $1)::text AS min_nonce`,
      [address],
    );
    const big = (v: string | null | undefined) => (v === null || v === undefined ? null : BigInt(v));
    return nextNonceFor({ maxStoredNonce: big(row?.max_nonce), minNonce: big(row?.min_nonce) }).toString();
  }

  return { nextNonce };
}

export type NonceService = ReturnType<typeof createNonceService>;
