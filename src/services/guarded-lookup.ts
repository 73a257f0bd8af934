// The DNS hook shared by every outbound request the server makes for someone else (webhook
// deliveries, token metadata). node:http(s) hands it to the socket it opens, so the address that
// was checked is the address connected to: a name resolving to a private address (any one of
// them) fails the connection, and DNS rebinding cannot slip a private address in between a check
// and the connect. Literal IPs never go through a lookup; callers check those themselves.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../domain/webhook-endpoint.js';

export const PRIVATE_TARGET_REFUSED = 'the target resolves to a loopback, private, link-local or unique-local address';

/** The `code` of the connection error a refused lookup produces. */
export const PRIVATE_TARGET_CODE = 'EPRIVATETARGET';

/** A lookup that refuses names resolving to a private address (any of them). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
        return callback(Object.assign(new Error(PRIVATE_TARGET_REFUSED), { code: PRIVATE_TARGET_CODE }), '', 0);
      }
      // net's happy-eyeballs connect (autoSelectFamily) asks for every address
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
