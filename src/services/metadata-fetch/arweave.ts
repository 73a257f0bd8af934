// Arweave content through one gateway. Nothing is verified here: a transaction id names a signed
// transaction, not a hash of the bytes served, so checking them would mean fetching and checking
// the transaction and its data root (or trusting the gateway, as this does). The same guards as any
// URL apply: size cap, deadline, private targets.
import { contentPathSegments, encodePath, gatewayBase } from './content-path.js';
import { failure, type FetchOutcome } from './fetch-outcome.js';
import { safeGet, type Getter, type SafeGetOptions } from './safe-get.js';

/** 32 bytes, base64url without padding. */
const TRANSACTION_ID = /^[A-Za-z0-9_-]{43}$/;

export function fetchArweave(id: string, path: string, gateway: string, opts: SafeGetOptions & { get?: Getter }): Promise<FetchOutcome> {
  if (!TRANSACTION_ID.test(id)) return Promise.resolve(failure('UNSUPPORTED_URI', `not an Arweave transaction id: ${id.slice(0, 64)}`));
  const segments = contentPathSegments(path);
  if (!segments) return Promise.resolve(failure('UNSUPPORTED_URI', `unusable path ${path.slice(0, 200)}`));
  return (opts.get ?? safeGet)(`${gatewayBase(gateway)}/${id}${encodePath(segments)}`, opts);
}
