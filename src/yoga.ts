// The application: GraphQL at /graphql (GraphiQL in a browser), the v1 REST routes, health and
// metrics, over the given services. Exported for tests, which call yoga.fetch without a port.
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { createYoga, type YogaLogger } from 'graphql-yoga';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { registerIndexerGauges } from './http/indexer-metrics.js';
import { createMetrics } from './http/metrics.js';
import { useAccessLog } from './http/access-log-plugin.js';
import { useNulRefusal } from './http/nul-refusal-plugin.js';
import { useEventIds } from './http/event-ids-plugin.js';
import { CONSISTENCY_RESPONSE_HEADERS } from './http/consistency.js';
import { useConsistency } from './http/consistency-plugin.js';
import { useGraphqlStatusRule } from './http/graphql-status-plugin.js';
import { registerServiceMetrics } from './http/service-metrics.js';
import { logGenericPlanVerdicts, logReadFallbacks, logReadTemplateRefusals } from './http/read-fallback-log.js';
import { usePages } from './http/pages-plugin.js';
import { createRateLimiter } from './http/rate-limit.js';
import { useHttpRoutes } from './http/routes-plugin.js';
import { createReadLane } from './http/read-lane.js';
import { createMediaLane } from './http/media-lane.js';
import { useMedia } from './http/media-plugin.js';
import { graphqlPolicyPlugins, graphqlValidationRules } from './http/graphql-policy.js';
import { useRequestGuards } from './http/request-guards.js';
import { API_PREFIX } from './rest/routes.js';
import type { Logger } from './logger.js';
import { useReadEngine } from './read-engine/use-read-engine.js';
import { maskError } from './schema/errors.js';
import { schema } from './schema/index.js';
import type { Services } from './services/index.js';

export const GRAPHQL_ENDPOINT = '/graphql';


/** pino as yoga's logger: objects and errors stay structured (yoga logs its own messages at debug). */
function yogaLogger(logger: Logger): YogaLogger {
  const child = logger.child({ component: 'yoga' });
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (...args: unknown[]) => {
    const [first, ...rest] = args;
    if (first instanceof Error) child[level]({ err: first }, rest.map(String).join(' ') || first.message);
    else if (typeof first === 'object' && first !== null) child[level](first, rest.map(String).join(' '));
    else child[level](args.map(String).join(' '));
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function createApp(services: Services, config: Config, logger: Logger, opts: { collectDefaultMetrics?: boolean } = {}) {
  const metrics = createMetrics(opts.collectDefaultMetrics ?? false);
  const rateLimit = createRateLimiter({
    perMinute: config.rateLimitPerMinute,
    apiKeys: config.apiKeyLimits,
    trustProxy: config.trustProxy,
    redisUrl: config.redisUrl,
    logger,
  });
  // Optional: without Redis the limits (and events) fall back to this instance.
  if (rateLimit?.redisReady() != null) services.health.register('redis', () => ({ status: rateLimit.redisReady() ? 'up' : 'down' }), { required: false });
  registerIndexerGauges(metrics.registry, () => services.indexer.indexerStatus({ maxWaitMs: 1000 }));
  registerServiceMetrics(metrics.registry, services);
  logReadFallbacks(services, logger);
  logReadTemplateRefusals(services, logger);
  logGenericPlanVerdicts(services, logger);
  // Without an allow-list any origin may read, never with credentials (cookies, auth).
  const cors = {
    origin: config.corsOrigins ?? '*',
    credentials: config.corsOrigins !== null,
    exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', ...CONSISTENCY_RESPONSE_HEADERS],
  };
  const accessLog = useAccessLog(logger);
  const yoga = createYoga({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    landingPage: false,
    // GraphiQL is one of the pages (usePages below), served with its Content-Security-Policy
    graphiql: false,
    // A server fault is logged once by yoga (at error, with its stack); the client sees INTERNAL.
    maskedErrors: { maskError },
    logging: yogaLogger(logger),
    context: ({ request }) => createContext(services, request.headers),
    cors,
    plugins: [
      accessLog.first,
      // images under /media/ and their upload (with its own body limit: before the guards)
      useMedia({ services, metrics, logger }),
      useRequestGuards({ maxBodyBytes: config.maxBodyBytes, graphqlEndpoint: GRAPHQL_ENDPOINT, apiPrefix: API_PREFIX }),
      // a string input holding U+0000 is the client's mistake, named (PostgreSQL cannot store it)
      useNulRefusal(),
      ...graphqlPolicyPlugins(config),
      // the indexed block on every API answer; reads that wait for a block or a transaction
      useConsistency({ services, graphqlEndpoint: GRAPHQL_ENDPOINT }),
      usePrometheus({
        registry: metrics.registry,
        endpoint: false,
        skipIntrospection: true,
        metrics: {
          graphql_envelop_request: true,
          graphql_envelop_request_duration: true,
          graphql_envelop_error_result: true,
          graphql_yoga_http_duration: true,
          graphql_envelop_request_time_summary: false,
          graphql_envelop_phase_parse: false,
          graphql_envelop_phase_validate: false,
          graphql_envelop_phase_context: false,
          graphql_envelop_phase_execute: false,
          graphql_envelop_phase_subscribe: false,
          graphql_envelop_deprecated_field: false,
          graphql_envelop_schema_change: false,
        },
        labels: { url: false },
      }),
      useGraphqlStatusRule(),
      // event ids of log subscriptions: extensions.eventId, and `id:` over SSE (Last-Event-ID resumes)
      useEventIds(),
      // queries answered by one SQL statement returning finished JSON (src/read-engine/)
      useReadEngine(),
      usePages({
        services,
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        graphiql: config.graphiql,
        chainName: config.network.name,
      }),
      useHttpRoutes({
        services,
        logger,
        metrics,
        rateLimit,
        healthCheckTimeoutMs: config.healthCheckTimeoutMs,
        maxBodyBytes: config.maxBodyBytes,
        graphqlEndpoint: GRAPHQL_ENDPOINT,
      }),
      // the request id on every response, whichever plugin answered or replaced it
      accessLog.last,
    ],
  });
  // node:http's handler: media, REST reads and the queries the read engine answers whole skip yoga's pipeline
  const readLane = createReadLane({
    schema,
    services,
    logger,
    yoga: (req, res) => void yoga(req, res),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    maxBodyBytes: config.maxBodyBytes,
    validationRules: graphqlValidationRules(config),
    cors,
    rateLimit,
    registry: metrics.registry,
    httpMetrics: metrics,
    graphql: config.readEngine && !config.persistedOperations.file,
  });
  const handle = createMediaLane({ media: services.media, logger, metrics, cors, next: readLane });
  return { yoga, handle, rateLimit };
}

export type App = ReturnType<typeof createApp>['yoga'];
