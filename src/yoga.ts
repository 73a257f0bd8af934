// The application: GraphQL at /graphql (GraphiQL in a browser), the v1 REST routes, health and
// metrics, over the given services. Exported for tests, which call yoga.fetch without a port.
import { createYoga } from 'graphql-yoga';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { maskError } from './graphql-errors.js';
import { createMetrics } from './http/metrics.js';
import { useGraphqlStatusRule } from './http/graphql-status-plugin.js';
import { renderGraphiQL } from './http/pages/graphiql.js';
import { GRAPHIQL_TABS } from './http/pages/graphiql-tabs.js';
import { usePages } from './http/pages-plugin.js';
import { createRateLimiter } from './http/rate-limit.js';
import { useHttpRoutes } from './http/routes-plugin.js';
import type { Logger } from './logger.js';
import { schema } from './schema/index.js';
import type { Services } from './services/index.js';

export const GRAPHQL_ENDPOINT = '/graphql';


export function createApp(services: Services, config: Config, logger: Logger, opts: { collectDefaultMetrics?: boolean } = {}) {
  const metrics = createMetrics(opts.collectDefaultMetrics ?? false);
  return createYoga({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    landingPage: false,
    graphiql: config.graphiql ? { title: 'Marketplace GraphQL', defaultTabs: GRAPHIQL_TABS } : false,
    renderGraphiQL,
    maskedErrors: { maskError },
    logging: {
      debug: (...a) => logger.debug(a.map(String).join(' ')),
      info: (...a) => logger.info(a.map(String).join(' ')),
      warn: (...a) => logger.warn(a.map(String).join(' ')),
      error: (...a) => logger.error(a.map(String).join(' ')),
    },
    context: ({ request }) => createContext(services, request.headers),
    plugins: [
      useGraphqlStatusRule(),
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
        rateLimit: createRateLimiter(config.rateLimitPerMinute),
        maxBodyBytes: config.maxBodyBytes,
        graphqlEndpoint: GRAPHQL_ENDPOINT,
      }),
    ],
  });
}

export type App = ReturnType<typeof createApp>;
