// What a client sees of a failure, for GraphQL and REST alike. Expected failures (ServiceError
// and GraphQL's own syntax, validation and variable coercion errors) keep their message; anything
// else is masked as INTERNAL so no stack trace or SQL ever reaches a client. Every error leaves
// here with `extensions.code` and `extensions.http.status` from the one code -> status table
// below, which REST reads too; yoga answers with the highest status among a response's errors
// (200 when there are none). docs/api.md, "Errors", states this rule.
import { GraphQLError, Kind, visit, type ASTNode, type DocumentNode, type ValueNode } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { isDatabaseUnavailable } from '../db/database-unavailable.js';
import { ServiceError, type ErrorCode } from '../domain/errors.js';

// The one table from error code to HTTP status: REST answers with it, GraphQL puts it in
// `extensions.http`.
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

/** The database is not answering: the client should retry (503 + Retry-After), not report a bug. */
export function serviceUnavailable(): ServiceError {
  return new ServiceError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable: the database is not answering; retry after the time in Retry-After');
}

/**
 * A custom scalar refused a value (./scalars.ts). The scalar does not know where the
 * value was; the error is given its place once GraphQL has reported it: for a variable by
 * maskError below, for a literal by nameInvalidLiterals. The client then sees BAD_USER_INPUT with
 * `extensions.problems: [{ field, code, message }]`, the same shape as a BAD_REQUEST's, `code`
 * being the scalar's problem (INVALID_ADDRESS, INVALID_UINT256, ...: the order problem codes
 * REST uses for the same fields).
 */
export class InvalidInputValue extends GraphQLError {
  constructor(
    readonly scalar: string,
    readonly problem: string,
    readonly detail: string,
    node?: ASTNode,
  ) {
    super(`Invalid ${scalar}: ${detail}`, { nodes: node, extensions: { code: 'BAD_USER_INPUT' } });
  }
}

/** Where a variable's bad value was: graphql-js writes 'Variable "$v" got invalid value X at "v.a[1].b"; <scalar message>'. */
function variableValuePath(error: GraphQLError, inner: InvalidInputValue): string | null {
  const node = error.nodes?.[0];
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return null;
  const name = node.variable.name.value;
  const suffix = `; ${inner.message}`;
  if (!error.message.endsWith(suffix)) return `$${name}`;
  const at = / at "([^"]*)"$/.exec(error.message.slice(0, -suffix.length));
  return at ? `$${at[1]}` : `$${name}`;
}

function valueProblem(field: string, inner: InvalidInputValue) {
  return { problems: [{ field, code: inner.problem, message: inner.detail }] };
}

/**
 * Literal values a scalar refused during validation, named by their argument path
 * ('Invalid argument input.signer: Invalid Address: expected ...'; the scalar's own message, all
 * a client saw before, stays as the end). graphql-js reports the scalar's error as is, which says
 * neither the argument nor where; the value node says where.
 */
export function nameInvalidLiterals<E extends Error>(document: DocumentNode, errors: readonly E[]): readonly (E | GraphQLError)[] {
  if (!errors.some((e) => e instanceof InvalidInputValue)) return errors;
  const byNode = new Map<ValueNode, string>();
  const byStart = new Map<number, string>();
  const walk = (v: ValueNode, path: string) => {
    byNode.set(v, path);
    if (v.loc) byStart.set(v.loc.start, path);
    if (v.kind === Kind.OBJECT) for (const f of v.fields) walk(f.value, `${path}.${f.name.value}`);
    else if (v.kind === Kind.LIST) v.values.forEach((x, i) => walk(x, `${path}[${i}]`));
  };
  visit(document, {
    Argument: (node) => walk(node.value, node.name.value),
    VariableDefinition: (node) => (node.defaultValue ? walk(node.defaultValue, `$${node.variable.name.value}`) : undefined),
  });
  return errors.map((e) => {
    if (!(e instanceof InvalidInputValue)) return e;
    const node = e.nodes?.[0] as ValueNode | undefined;
    const path = node ? (byNode.get(node) ?? (node.loc ? byStart.get(node.loc.start) : undefined)) : undefined;
    if (path === undefined) return e;
    const where = path.startsWith('$') ? `default value of ${path}` : `argument ${path}`;
    return createGraphQLError(`Invalid ${where}: ${e.message}`, {
      nodes: e.nodes,
      source: e.source,
      positions: e.positions,
      extensions: { code: 'BAD_USER_INPUT', ...valueProblem(path, e) },
    });
  });
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
    // Variable coercion: GraphQL wraps the scalar's error in one that names the variable and the
    // path inside it ('Variable "$a" got invalid value ... at "a.b"'): keep that message, and
    // name the place in extensions.problems when a custom scalar refused the value.
    if (error.originalError instanceof InvalidInputValue) {
      const inner = error.originalError;
      const field = variableValuePath(error, inner);
      const named = field ? createGraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions: valueProblem(field, inner) }) : error;
      return clientError(named, 'BAD_USER_INPUT', inner);
    }
    if (error.originalError instanceof GraphQLError) return clientError(error, 'BAD_USER_INPUT', error.originalError);
  }
  return createGraphQLError(message, { extensions: { code: 'INTERNAL', http: { status: 500 } } });
}
