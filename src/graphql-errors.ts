// What a client sees of a failure. Expected failures (ServiceError and GraphQL's own syntax,
// validation and variable coercion errors) keep their message; anything else is masked as
// INTERNAL so no stack trace or SQL ever reaches a client. Every error leaves here with
// `extensions.code` and `extensions.http.status` from the one code -> status table
// (src/rest/http-status.ts); yoga answers with the highest status among a response's errors
// (200 when there are none). README "GraphQL errors" states this rule.
import { GraphQLError } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { isDatabaseUnavailable } from './db/database-unavailable.js';
import { ServiceError } from './domain/errors.js';
import { clientErrorStatusFor, httpHeadersFor, httpStatusFor } from './rest/http-status.js';

/** The database is not answering: the client should retry (503 + Retry-After), not report a bug. */
export function serviceUnavailable(): ServiceError {
  return new ServiceError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable: the database is not answering; retry after the time in Retry-After');
}

function findServiceError(err: unknown): ServiceError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof ServiceError) return e;
    e = (e as { originalError?: unknown }).originalError;
  }
  return null;
}

/** A client's mistake named by GraphQL itself, with its code and the status for that code. */
function clientError(error: GraphQLError, fallbackCode: string, inner?: GraphQLError): GraphQLError {
  const { http: _http, originalError: _originalError, ...extensions } = { ...inner?.extensions, ...error.extensions } as Record<string, unknown>;
  const code = String(error.extensions?.code ?? inner?.extensions?.code ?? fallbackCode);
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...extensions, code, http: { status: clientErrorStatusFor(code) } },
  });
}

export function maskError(error: unknown, message: string): Error {
  const service = findServiceError(error) ?? (isDatabaseUnavailable(error) ? serviceUnavailable() : null);
  if (service) {
    const path = error instanceof GraphQLError ? error.path : undefined;
    return createGraphQLError(service.message, {
      path,
      extensions: {
        code: service.code,
        ...(service.problems.length ? { problems: service.problems } : {}),
        http: { status: httpStatusFor(service.code), headers: httpHeadersFor(service.code) },
      },
    });
  }
  if (error instanceof GraphQLError) {
    // GraphQL's own errors (syntax, validation) are the client's mistake.
    if (!error.originalError) return clientError(error, 'BAD_REQUEST');
    // Variable and literal coercion: GraphQL wraps the scalar's error in one that names the
    // variable or argument ('Variable "$a" got invalid value ...'): keep that message.
    if (error.originalError instanceof GraphQLError) return clientError(error, 'BAD_USER_INPUT', error.originalError);
  }
  return createGraphQLError(message, { extensions: { code: 'INTERNAL', http: { status: 500 } } });
}
