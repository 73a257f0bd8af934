// One closed set of error codes shared by both surfaces. One table maps codes to HTTP statuses
// (src/schema/errors.ts) for REST and GraphQL's `extensions.http`; GraphQL puts the code in
// `extensions.code`. Messages name the rule.
export const ERROR_CODES = [
  'BAD_REQUEST',
  'INVALID_ADDRESS',
  'INVALID_CURSOR',
  'CURSOR_EXPIRED',
  'NOT_FOUND',
  'ORDER_NOT_FILLABLE',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'ADMIN_DISABLED',
  'RATE_LIMITED',
  'QUERY_TOO_COMPLEX',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One problem with one input field (REST `errors[]`, GraphQL `extensions.problems`). */
export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

/** An expected failure: safe to show to the client as is. Anything else is masked as INTERNAL. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export function badRequest(problems: FieldProblem[], message?: string): ServiceError {
  const first = problems[0];
  return new ServiceError(
    'BAD_REQUEST',
    message ?? (problems.length === 1 && first ? `Invalid ${first.field}: ${first.message}` : `Invalid request: ${problems.length} problems`),
    problems,
  );
}
