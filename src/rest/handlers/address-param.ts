// The `address` query parameter of /orders/nonce, /collections and /collections/stats.
import { normalizeAddress } from '../../domain/address.js';
import { fail } from '../envelope.js';
import { RestFailure } from '../execute.js';
import type { Query } from '../query-string.js';

export function requireAddressParam(query: Query): string {
  const raw = query.address;
  if (raw === undefined || raw === '') {
    throw new RestFailure(fail(400, 'Invalid address: the address query parameter is required', [
      { field: 'address', code: 'REQUIRED', message: 'the address query parameter is required' },
    ]));
  }
  const address = normalizeAddress(raw);
  if (!address) {
    throw new RestFailure(fail(400, 'Invalid address: must be 0x followed by 40 hexadecimal digits', [
      { field: 'address', code: 'INVALID_ADDRESS', message: 'must be 0x followed by 40 hexadecimal digits' },
    ]));
  }
  return address;
}
