// Is this failure "the database is not answering right now" (refused, reset, timed out, shutting
// down, out of connections) rather than a bug? Those answer 503 + Retry-After (REST) and
// SERVICE_UNAVAILABLE (GraphQL) instead of 500: the client should retry, nothing is wrong with
// its request. The error arrives wrapped differently by pg, pg-pool, @prisma/adapter-pg and the
// Prisma client, so the whole cause chain is searched for a known code or driver message.

/** SQLSTATEs meaning "not now": connection exceptions (08), operator intervention (57),
 * insufficient resources (53), the idle-in-transaction and statement timeouts. */
const SQLSTATE = /^(08\d{3}|57P0[1-4]|57014|53\d{3}|25P03)$/;

/** Prisma error codes: can't reach (P1001), timed out (P1002, P1008), connection closed (P1017),
 * pool timeout (P2024), transaction expired or closed under us (P2028). */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);

/** adapter-pg's mapped kinds (DriverAdapterError.cause.kind). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

const MESSAGES = [
  /Query read timeout/,
  /timeout exceeded when trying to connect/i,
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Connection closed/i,
  /connect ECONNREFUSED/,
  /Can't reach database server/i,
  /Server has closed the connection/i,
  /Timed out fetching a new connection/i,
  /Transaction already closed/i,
  /expired transaction/i,
  /Transaction API error: .*(?:timeout|closed)/i,
  /the database is starting up|the database system is shutting down|terminating connection due to administrator command/i,
];

function* causes(err: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length && seen.size < 16) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const o = e as Record<string, unknown>;
    yield o;
    queue.push(o.cause, o.originalError, (o.meta as Record<string, unknown> | undefined)?.driverAdapterError);
    if (Array.isArray(o.errors)) queue.push(...o.errors); // AggregateError (several addresses refused)
  }
}

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (SQLSTATE.test(code) || PRISMA_CODES.has(code) || SOCKET_CODES.has(code))) return true;
    if (typeof e.originalCode === 'string' && SQLSTATE.test(e.originalCode)) return true;
    if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
    if (e.kind === 'postgres' && typeof e.code === 'string' && SQLSTATE.test(e.code)) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (message && MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}
