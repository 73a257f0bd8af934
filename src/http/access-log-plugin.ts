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

export function useAccessLog(logger: Logger): Plugin {
  const info = new WeakMap<Request, RequestInfo>();
  return {
    onRequest({ request }) {
      const id = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
      info.set(request, { id, started: performance.now() });
      enterRequest(id);
    },
    onParams({ request, params }) {
      const i = info.get(originalRequest(request));
      if (i && params.operationName) i.operationName = params.operationName;
    },
    onResponse({ request, response, setResponse }) {
      const i = info.get(originalRequest(request));
      if (!i) return;
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
