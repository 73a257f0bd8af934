// The application: GraphQL at /graphql (GraphiQL in a browser), the v1 REST routes, health and
// metrics, over the given services. Exported for tests, which call yoga.fetch without a port.
import { createYoga } from 'graphql-yoga';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { maskError } from './graphql-errors.js';
import { registerIndexerGauges } from './http/indexer-metrics.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimiter } from './http/rate-limit.js';
import { useHttpRoutes } from './http/routes-plugin.js';
import { graphqlPolicyPlugins } from './http/graphql-policy.js';
import { useRequestGuards } from './http/request-guards.js';
import { API_PREFIX } from './rest/routes.js';
import type { Logger } from './logger.js';
import { schema } from './schema/index.js';
import type { Services } from './services/index.js';

export const GRAPHQL_ENDPOINT = '/graphql';

const EXAMPLE_QUERY = `# The demo marketplace: collections with their stats and cheapest listings.
query Marketplace {
  orders(first: 5, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) {
    edges {
      node {
        hash
        price
        tokenId
        status
        collection { name type stats { floorPrice volume7d count7d } }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
  listingRewards { points volume24hGlobal collection { name } }
}
`;

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
  return createYoga({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    landingPage: false,
    graphiql: config.graphiql ? { title: 'Marketplace GraphQL', defaultQuery: EXAMPLE_QUERY } : false,
    maskedErrors: { maskError },
    logging: {
      debug: (...a) => logger.debug(a.map(String).join(' ')),
      info: (...a) => logger.info(a.map(String).join(' ')),
      warn: (...a) => logger.warn(a.map(String).join(' ')),
      error: (...a) => logger.error(a.map(String).join(' ')),
    },
    context: ({ request }) => createContext(services, request.headers),
    // Without an allow-list any origin may read, never with credentials (cookies, auth).
    cors: {
      origin: config.corsOrigins ?? '*',
      credentials: config.corsOrigins !== null,
      exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    },
    plugins: [
      useRequestGuards({ maxBodyBytes: config.maxBodyBytes, graphqlEndpoint: GRAPHQL_ENDPOINT, apiPrefix: API_PREFIX }),
      ...graphqlPolicyPlugins(config),
      useHttpRoutes({
        services,
        logger,
        metrics,
        rateLimit,
        healthCheckTimeoutMs: config.healthCheckTimeoutMs,
        maxBodyBytes: config.maxBodyBytes,
        graphqlEndpoint: GRAPHQL_ENDPOINT,
      }),
    ],
  });
}

export type App = ReturnType<typeof createApp>;
