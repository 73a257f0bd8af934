// One structured access line per request (pino), with the request id that is also returned in
// the X-Request-Id header. Levels: server faults (5xx) at error, client mistakes (4xx) at warn,
// the rest at info; health and metrics scrapes at debug. The stack of a fault is logged once
// where it happened (routes plugin, GraphQL error masking), not here.
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { enterRequest, requestIdFrom } from '../request-id.js';
import { originalRequest } from './request-context.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

interface RequestInfo {
  id: string;
  started: number;
  operationName?: string;
}

/**
 * Two plugins: `first` (the first of the list) gives the request its id; `last` (the last of the
 * list) puts the id on the response and writes the line. Last, because onResponse hooks run in
 * the list's order and a later one may replace the response (a guard's 404 envelope), which
 * would drop a header set before it.
 */
export function useAccessLog(logger: Logger): { first: Plugin; last: Plugin } {
  const info = new WeakMap<Request, RequestInfo>();
  return {
    first: {
      onRequest({ request }) {
        const id = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
        info.set(request, { id, started: performance.now() });
        enterRequest(id);
      },
      onParams({ request, params }) {
        const i = info.get(originalRequest(request));
        if (i && params.operationName) i.operationName = params.operationName;
      },
    },
    last: {
      onResponse({ request, response, setResponse }) {
        // a response made before `first` saw the request (yoga's own GraphiQL page) gets an id here
        const i = info.get(originalRequest(request)) ?? { id: requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), started: performance.now() };
        try {
          response.headers.set(REQUEST_ID_HEADER, i.id);
        } catch {
          // immutable headers (a response passed through from fetch): copy it
          const copy = new Response(response.body, response);
          copy.headers.set(REQUEST_ID_HEADER, i.id);
          setResponse(copy);
        }
        logAccess(logger, { id: i.id, method: request.method, path: new URL(request.url, 'http://localhost').pathname, status: response.status, started: i.started, operationName: i.operationName });
      },
    },
  };
}

/** The access line of one request (the read lane writes the same line for what it answers). */
export function logAccess(logger: Logger, r: { id: string; method: string; path: string; status: number; started: number; operationName?: string }): void {
  const line = {
    reqId: r.id,
    method: r.method,
    path: r.path,
    status: r.status,
    ms: Math.round((performance.now() - r.started) * 10) / 10,
    ...(r.operationName ? { operation: r.operationName } : {}),
  };
  const level = r.status >= 500 ? 'error' : r.status >= 400 ? 'warn' : QUIET_PATHS.has(r.path) ? 'debug' : 'info';
  logger[level](line, 'request');
}
