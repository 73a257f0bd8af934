// What every fetch in this folder answers: the bytes, or a closed set of reasons as values (never
// a thrown string), each saying whether trying again later could help.

export type FetchErrorCode =
  | 'TIMEOUT'
  | 'HTTP_STATUS'
  | 'TOO_LARGE'
  | 'BLOCKED_TARGET'
  | 'NETWORK'
  | 'TOO_MANY_REDIRECTS'
  | 'CID_MISMATCH'
  | 'UNSUPPORTED_URI';

export type FetchOutcome =
  | { ok: true; bytes: Uint8Array; contentType: string | null; finalUrl: string }
  | { ok: false; code: FetchErrorCode; message: string; status?: number; retryable: boolean; retryAfterMs?: number };

export type FetchFailure = Extract<FetchOutcome, { ok: false }>;

/**
 * Timeouts and connection errors pass; of the statuses, only those that say "later" (RFC 9110
 * 408, RFC 8470 425, RFC 6585 429) and server errors. The rest would fail the same way again.
 */
export function isRetryable(code: FetchErrorCode, status?: number): boolean {
  if (code === 'TIMEOUT' || code === 'NETWORK') return true;
  if (code !== 'HTTP_STATUS' || status === undefined) return false;
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

export function failure(code: FetchErrorCode, message: string, extra: { status?: number; retryAfterMs?: number } = {}): FetchFailure {
  const out: FetchFailure = { ok: false, code, message, retryable: isRetryable(code, extra.status) };
  if (extra.status !== undefined) out.status = extra.status;
  if (extra.retryAfterMs !== undefined) out.retryAfterMs = extra.retryAfterMs;
  return out;
}

/** `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date; undefined when unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
