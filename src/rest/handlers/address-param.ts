// The `address` query parameter of /orders/nonce, /collections and /collections/stats, checked
// by the documented schema (request-schemas.ts), returned checksummed.
import { normalizeAddress } from '../../domain/address.js';
import { fail } from '../envelope.js';
import { RestFailure } from '../execute.js';
import type { Query } from '../query-string.js';
import { AddressQuery, cleanQueryValues, problemsFrom } from '../request-schemas.js';

export function requireAddressParam(query: Query): string {
  const checked = AddressQuery.safeParse(cleanQueryValues({ address: query.address }));
  if (!checked.success) {
    const problems = problemsFrom(checked.error);
    throw new RestFailure(fail(400, `Invalid address: ${problems[0]!.message}`, problems));
  }
  return normalizeAddress(checked.data.address)!;
}
