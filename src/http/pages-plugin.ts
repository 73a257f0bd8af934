// A yoga plugin serving the pages for people: the landing page at `/`, the OpenAPI document of
// /api/v1 and its Swagger UI reference page with its assets. Everything is served by this
// process from installed packages: nothing is loaded from a CDN.
import type { Plugin } from 'graphql-yoga';
import { API_PREFIX } from '../rest/routes.js';
import { servedOpenApiJson } from '../rest/openapi/openapi-document.js';
import type { Services } from '../services/index.js';
import type { MarketplaceOverview } from '../services/overview.js';
import { renderLandingPage } from './pages/landing-page.js';
import { renderRestDocsPage, restDocsAsset } from './pages/rest-docs.js';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const REST_DOCS_PATH = `${API_PREFIX}/docs`;

const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });

interface Options {
  services: Services;
  graphqlEndpoint: string;
  graphiql: boolean;
  chainName: string;
}

/** The landing page's figures are counts over whole tables: computed at most once per this many ms. */
const OVERVIEW_TTL_MS = 5000;

export function usePages(opts: Options): Plugin {
  let overviewCache: { at: number; value: Promise<MarketplaceOverview> } | undefined;
  const overview = () => {
    const now = Date.now();
    if (!overviewCache || now - overviewCache.at > OVERVIEW_TTL_MS) {
      const value = opts.services.overview.overview();
      overviewCache = { at: now, value };
      value.catch(() => (overviewCache = undefined));
    }
    return overviewCache.value;
  };
  const serve = async (path: string): Promise<Response | null> => {
    if (path === '/') {
      const figures = await overview();
      return html(
        renderLandingPage(
          figures,
          { graphql: opts.graphqlEndpoint, graphiql: opts.graphiql ? opts.graphqlEndpoint : null, restDocs: REST_DOCS_PATH, openapi: OPENAPI_PATH },
          opts.chainName,
        ),
      );
    }
    if (path === OPENAPI_PATH) return new Response(await servedOpenApiJson(opts.services), { headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' } });
    if (path === REST_DOCS_PATH || path === `${REST_DOCS_PATH}/`) return html(renderRestDocsPage(REST_DOCS_PATH, OPENAPI_PATH));
    if (path.startsWith(`${REST_DOCS_PATH}/`)) return restDocsAsset(path.slice(REST_DOCS_PATH.length + 1));
    return null;
  };
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const response = await serve(url.pathname);
      if (!response) return;
      endResponse(response);
    },
  };
}
