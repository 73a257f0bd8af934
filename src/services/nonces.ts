// Spec 2.4: the next nonce an address has not used: above every nonce of its stored
// orders and not below its minimum nonce (CancelAllOrders).
import { toUintString } from '../domain/uint256.js';
import type { ServiceDeps } from './deps.js';

export function createNonceService(deps: ServiceDeps) {
  const { sql } = deps.db;

  async function nextNonce(address: string): Promise<string> {
    const rows = await sql.query<{ next: string }>(
      `SELECT GREATEST(
         COALESCE((SELECT MAX(nonce) + 1 FROM orders WHERE signer = $1), 0),
         COALESCE((SELECT min_nonce FROM signer_nonce_state WHERE signer = $1), 0)
       )::text AS next`,
      [address],
    );
    return toUintString(rows[0]?.next ?? '0');
  }

  return { nextNonce };
}

export type NonceService = ReturnType<typeof createNonceService>;
