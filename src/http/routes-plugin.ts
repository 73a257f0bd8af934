// A yoga plugin serving everything that is not GraphQL: the v1 REST routes under /api/v1,
// /healthz, /readyz and /metrics. It also applies the body-size limit and the rate limit to
// every API request, GraphQL included.
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { createContext } from '../context.js';
import { ServiceError } from '../domain/errors.js';
import { fail, toResponse, type RestReply } from '../rest/envelope.js';
import { isDatabaseUnavailable } from '../db/database-unavailable.js';
import { RestFailure } from '../rest/execute.js';
import { parseQueryString } from '../rest/query-string.js';
import { API_PREFIX, routeFor } from '../rest/routes.js';
import { httpHeadersFor, httpStatusFor, serviceUnavailable } from '../schema/errors.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services/index.js';
import { awaitConsistency, consistencyAsk, consistencyHeaders, type Consistency, type HeaderGetter } from './consistency.js';
import type { Metrics } from './metrics.js';
import { rateDecisionTaken, rateLimitClient, type RateLimiter } from './rate-limit.js';

interface Options {
  services: Services;
  logger: Logger;
  metrics: Metrics;
  rateLimit: RateLimiter | null;
  maxBodyBytes: number;
  graphqlEndpoint: string;
  /** /readyz waits at most this long per component */
  healthCheckTimeoutMs?: number;
}

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

/** Runs one REST handler; a failure becomes the envelope with its code's status (never a 500 for a known one). */
export async function runRestHandler(run: () => Promise<RestReply>, path: string, logger: Logger): Promise<RestReply> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RestFailure) return err.reply;
    const service = err instanceof ServiceError ? err : isDatabaseUnavailable(err) ? serviceUnavailable() : null;
    if (service) return fail(httpStatusFor(service.code), service.message, service.problems, httpHeadersFor(service.code));
    logger.error({ err, path }, 'REST handler failed');
    return fail(500, 'Internal server error');
  }
}

/**
 * A REST handler run after the wait the request's headers ask for (./consistency.ts); whatever
 * it answers, a refusal of a bad value included, carries the stamp.
 */
export async function runRestWithConsistency(services: Services, header: HeaderGetter, run: () => Promise<RestReply>, path: string, logger: Logger): Promise<RestReply> {
  let stamp: Consistency = { indexedBlock: services.indexedBlock.current(), asked: null };
  const reply = await runRestHandler(async () => {
    const ask = consistencyAsk(header, undefined, services);
    stamp = await awaitConsistency(ask, services);
    return run();
  }, path, logger);
  return { ...reply, headers: { ...reply.headers, ...consistencyHeaders(stamp) } };
}

export function useHttpRoutes(opts: Options): Plugin {
  const { services, logger, metrics } = opts;

  async function serveRest(request: Request, url: URL): Promise<Response> {
    const route = routeFor(url.pathname);
    if (!route) return toResponse(fail(404, `No route ${request.method} ${url.pathname}`));
    if (request.method === 'OPTIONS') {
      return new Response(null, { status: 204, headers: { Allow: ['OPTIONS', ...Object.keys(route)].join(', ') } });
    }
    const handler = route[request.method as 'GET' | 'POST'];
    if (!handler) {
      return toResponse(fail(405, `Method ${request.method} is not allowed on ${url.pathname}`, undefined, { Allow: Object.keys(route).join(', ') }));
    }
    const run = () => handler(parseQueryString(url.search), createContext(services, request.headers), request);
    return toResponse(await runRestWithConsistency(services, (name) => request.headers.get(name), run, url.pathname, logger));
  }

  return {
    onDispose: () => opts.rateLimit?.close(),
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
        const r = await services.health.readiness(opts.healthCheckTimeoutMs);
        const response = json({ status: r.ready ? 'ready' : 'not ready', components: r.components }, r.ready ? 200 : 503);
        response.headers.set('cache-control', 'no-store');
        return done(response, '/readyz');
      }
      if (path === '/metrics') {
        return done(new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType } }), '/metrics');
      }
      if (!isRest && !isGraphql) return;

      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > opts.maxBodyBytes) {
        const message = `Request body of ${length} bytes is over the ${opts.maxBodyBytes} byte limit`;
        return done(isRest ? toResponse(fail(413, message)) : json({ errors: [{ message, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] }, 413), path);
      }

      let rateHeaders: Record<string, string> = {};
      if (opts.rateLimit && request.method !== 'OPTIONS') {
        const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
        // the read lane (./read-lane.ts) consumed it already for a request it handed on
        const decision = (req && rateDecisionTaken(req)) ?? (await opts.rateLimit.consume(rateLimitClient(request.headers, req?.socket?.remoteAddress)));
        rateHeaders = decision.headers;
        if (!decision.allowed) {
          const message = 'Too many requests: slow down and retry after the time in Retry-After';
          const response = isRest
            ? toResponse(fail(429, message, undefined, rateHeaders))
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
        return done(response, routeFor(path) ? path : 'unknown');
      }
    },
  };
}
