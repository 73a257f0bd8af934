// The guards of the API keys: the admin key for operator mutations, optional write keys for order
// writes, and the key that owns webhook endpoints. GraphQL resolvers and REST handlers call the
// same guard with their request's context, so both surfaces refuse a key alike. Keys are compared
// as SHA-256 digests in constant time, so neither a key's content nor its length leaks through
// timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { ServiceError } from '../domain/errors.js';

/** Who is calling: the deployment's keys and the request's headers (a request's Context serves). */
export interface Caller {
  services: { deps: { config: Pick<Config, 'adminApiKey' | 'writeApiKeys' | 'apiKeyLimits'> } };
  headers: Headers;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function keyMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Operator mutations: enabled only when ADMIN_API_KEY is set, and the `x-api-key` header must match it. */
export function requireAdmin(ctx: Caller): void {
  const expected = ctx.services.deps.config.adminApiKey;
  if (!expected) throw new ServiceError('ADMIN_DISABLED', 'administration is disabled: set ADMIN_API_KEY to enable it');
  const given = ctx.headers.get('x-api-key');
  if (!given) throw new ServiceError('UNAUTHENTICATED', 'the x-api-key header is required for administration');
  if (!keyMatches(given, expected)) throw new ServiceError('FORBIDDEN', 'the x-api-key header does not match the admin key');
}

/** Order writes need X-Looks-Api-Key (one of WRITE_API_KEYS) when write keys are configured. */
export function requireWriteKey(ctx: Caller): void {
  const keys = ctx.services.deps.config.writeApiKeys;
  if (!keys.length) return;
  const given = ctx.headers.get('x-looks-api-key');
  // Check every key so the time taken does not say which one was close.
  const ok = given ? keys.map((k) => keyMatches(given, k)).includes(true) : false;
  if (!ok) throw new ServiceError('UNAUTHENTICATED', given ? 'the X-Looks-Api-Key header is not a valid write key' : 'the X-Looks-Api-Key header is required for order writes');
}

/**
 * Webhook endpoints belong to an API key: one of API_KEYS or WRITE_API_KEYS in X-Looks-Api-Key.
 * Returns the owner as stored, the key's SHA-256 in hex (the key itself is never stored).
 */
export function requireApiKeyOwner(ctx: Caller): string {
  const known = [...ctx.services.deps.config.apiKeyLimits.keys()];
  if (!known.length) throw new ServiceError('FORBIDDEN', 'webhooks belong to API keys: this deployment has none (API_KEYS, WRITE_API_KEYS)');
  const given = ctx.headers.get('x-looks-api-key');
  const ok = given ? known.map((k) => keyMatches(given, k)).includes(true) : false;
  if (!ok) throw new ServiceError('UNAUTHENTICATED', given ? 'the X-Looks-Api-Key header is not a known API key' : 'the X-Looks-Api-Key header is required for webhooks');
  return createHash('sha256').update(given!).digest('hex');
}
