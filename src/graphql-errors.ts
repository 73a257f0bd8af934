// What a client sees of a failure. Expected failures (ServiceError and GraphQL's own
// validation errors) keep their message and get a code; anything else is masked as INTERNAL so
// no stack trace or SQL ever reaches a client.
import { GraphQLError } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { isDatabaseUnavailable } from './db/database-unavailable.js';
import { ServiceError } from './domain/errors.js';
import { httpHeadersFor, httpStatusFor } from './rest/http-status.js';

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
  // GraphQL's own errors (syntax, validation, variable coercion) are the client's mistake.
  if (error instanceof GraphQLError && !error.originalError) {
    return error.extensions?.code ? error : createGraphQLError(error.message, { nodes: error.nodes, path: error.path, extensions: { ...error.extensions, code: 'BAD_REQUEST' } });
  }
  // A variable that does not coerce (Int beyond 32 bits, a bad scalar): the outer message names
  // the variable and the field path, the inner one only the value. Before execution: no path.
  if (error instanceof GraphQLError && error.originalError instanceof GraphQLError && !error.path) {
    return createGraphQLError(error.message, {
      nodes: error.nodes,
      extensions: { ...error.originalError.extensions, code: error.originalError.extensions?.code ?? 'BAD_USER_INPUT', http: { status: 400 } },
    });
  }
  if (error instanceof GraphQLError && error.originalError instanceof GraphQLError) return error.originalError;
  return createGraphQLError(message, { extensions: { code: 'INTERNAL' } });
}
