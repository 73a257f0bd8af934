// One table from error code to HTTP status, for REST and for GraphQL's http extension.
import type { ErrorCode } from '../domain/errors.js';

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  INVALID_ADDRESS: 400,
  INVALID_CURSOR: 400,
  // the event log no longer holds the cursor's position (retention): start again from a fresh read
  CURSOR_EXPIRED: 410,
  NOT_FOUND: 404,
  ORDER_NOT_FILLABLE: 409,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  ADMIN_DISABLED: 403,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

export function httpStatusFor(code: string): number {
  return STATUS[code as ErrorCode] ?? (code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED' || code === 'GRAPHQL_PARSE_FAILED' ? 400 : 500);
}

/** Headers a failure of this code carries (a 503 tells the client when to retry). */
export function httpHeadersFor(code: string): Record<string, string> {
  return code === 'SERVICE_UNAVAILABLE' ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
}

/** Seconds a client is asked to wait before retrying while a dependency is down. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The status of an error GraphQL or a plugin raised about the request itself (parse, validation,
 * a disabled introspection, an operation outside the persisted list): the client's mistake, 400
 * unless the table names the code.
 */
export function clientErrorStatusFor(code: string): number {
  return STATUS[code as ErrorCode] ?? 400;
}
