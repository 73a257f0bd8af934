// A yoga plugin serving everything that is not GraphQL: the v1 REST routes under /api/v1,
// /healthz, /readyz and /metrics. It also applies the body-size limit and the rate limit to
// every API request, GraphQL included.
import type { Plugin } from 'graphql-yoga';
import { createContext } from '../context.js';
import { ServiceError } from '../domain/errors.js';
import { fail } from '../rest/envelope.js';
import { httpStatusFor } from '../rest/http-status.js';
import { RestFailure } from '../rest/execute.js';
import { parseQueryString } from '../rest/query-string.js';
import { API_PREFIX, ROUTES } from '../rest/routes.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services/index.js';
import type { Metrics } from './metrics.js';
import type { RateDecision } from './rate-limit.js';

interface Options {
  services: Services;
  logger: Logger;
  metrics: Metrics;
  rateLimit: ((key: string) => Promise<RateDecision>) | null;
  maxBodyBytes: number;
  graphqlEndpoint: string;
}

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

function clientKey(request: Request, serverContext: unknown): string {
  const apiKey = request.headers.get('x-looks-api-key');
  if (apiKey) return `key:${apiKey}`;
  const req = (serverContext as { req?: { socket?: { remoteAddress?: string } } } | undefined)?.req;
  return `ip:${req?.socket?.remoteAddress ?? 'local'}`;
}

export function useHttpRoutes(opts: Options): Plugin {
  const { services, logger, metrics } = opts;

  async function serveRest(request: Request, url: URL): Promise<Response> {
    const path = url.pathname.slice(API_PREFIX.length).replace(/\/+$/, '') || '/';
    const route = ROUTES[path];
    if (!route) return fail(404, `No route ${request.method} ${url.pathname}`);
    if (request.method === 'OPTIONS') {
      return new Response(null, { status: 204, headers: { Allow: ['OPTIONS', ...Object.keys(route)].join(', ') } });
    }
    const handler = route[request.method as 'GET' | 'POST'];
    if (!handler) {
      return fail(405, `Method ${request.method} is not allowed on ${url.pathname}`, undefined, { Allow: Object.keys(route).join(', ') });
    }
    try {
      return await handler(parseQueryString(url.search), createContext(services, request.headers), request);
    } catch (err) {
      if (err instanceof RestFailure) return err.response;
      if (err instanceof ServiceError) return fail(httpStatusFor(err.code), err.message, err.problems);
      logger.error({ err, path: url.pathname }, 'REST handler failed');
      return fail(500, 'Internal server error');
    }
  }

  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      const started = performance.now();
      const path = url.pathname;
      const isRest = path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
      const isGraphql = path === opts.graphqlEndpoint;
      const done = (response: Response, route: string) => {
        metrics.observe(route, request.method, response.status, (performance.now() - started) / 1000);
        endResponse(response);
      };

      if (path === '/healthz') return done(json({ status: 'ok' }, 200), '/healthz');
      if (path === '/readyz') {
        const db = await services.health.databaseReachable();
        // the indexer's position is detail only: a lagging indexer does not make reads unready
        const indexer = db.ok ? await services.indexer.indexerStatus({ maxWaitMs: 1000 }).catch(() => null) : null;
        return done(json({ status: db.ok ? 'ready' : 'not ready', database: db.detail, indexer }, db.ok ? 200 : 503), '/readyz');
      }
      if (path === '/metrics') {
        return done(new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType } }), '/metrics');
      }
      if (!isRest && !isGraphql) return;

      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > opts.maxBodyBytes) {
        const message = `Request body of ${length} bytes is over the ${opts.maxBodyBytes} byte limit`;
        return done(isRest ? fail(413, message) : json({ errors: [{ message, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] }, 413), path);
      }

      let rateHeaders: Record<string, string> = {};
      if (opts.rateLimit && request.method !== 'OPTIONS') {
        const decision = await opts.rateLimit(clientKey(request, serverContext));
        rateHeaders = decision.headers;
        if (!decision.allowed) {
          const message = 'Too many requests: slow down and retry after the time in Retry-After';
          const response = isRest
            ? fail(429, message, undefined, rateHeaders)
            : new Response(JSON.stringify({ errors: [{ message, extensions: { code: 'RATE_LIMITED' } }] }), {
                status: 429,
                headers: { 'content-type': 'application/json', ...rateHeaders },
              });
          return done(response, isRest ? path : 'graphql');
        }
      }
      if (isRest) {
        const response = await serveRest(request, url);
        for (const [k, v] of Object.entries(rateHeaders)) response.headers.set(k, v);
        response.headers.set('Access-Control-Allow-Origin', '*');
        return done(response, ROUTES[path.slice(API_PREFIX.length).replace(/\/+$/, '')] ? path : 'unknown');
      }
    },
  };
}
