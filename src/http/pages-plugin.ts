// A yoga plugin serving the pages for people: the landing page at `/`, a page per collection at
// /collections/<address> with the files they load under /assets/, GraphiQL on the GraphQL
// endpoint (a browser's GET), the OpenAPI document of /api/v1 and its Swagger UI reference page
// with its assets. Everything is served by this process from installed packages: nothing is
// loaded from a CDN. Every page carries a Content-Security-Policy (./pages/page-html.ts).
import type { Plugin } from 'graphql-yoga';
import { normalizeAddress } from '../domain/address.js';
import { DEFAULT_COLLECTION_NAME } from '../domain/collection-input.js';
import { isDatabaseUnavailable } from '../db/database-unavailable.js';
import { API_PREFIX } from '../rest/routes.js';
import { servedOpenApiJson } from '../rest/openapi/openapi-document.js';
import { httpHeadersFor } from '../schema/errors.js';
import type { Services } from '../services/index.js';
import type { MarketplaceOverview } from '../services/overview.js';
import { chartSelection, renderCollectionPage, renderMessagePage } from './pages/collection-page.js';
import { renderLandingPage } from './pages/landing-page.js';
import { ASSETS_PREFIX, assetResponse } from './pages/page-assets.js';
import { graphiqlOptionsFor, renderGraphiqlPage } from './pages/graphiql.js';
import { GRAPHIQL_TABS } from './pages/graphiql-tabs.js';
import { pagePolicyWith, pageResponse } from './pages/page-html.js';
import { restDocsAsset, restDocsPage } from './pages/rest-docs.js';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const REST_DOCS_PATH = `${API_PREFIX}/docs`;
export const COLLECTION_PAGES_PATH = '/collections/';

interface Options {
  services: Services;
  graphqlEndpoint: string;
  /** GraphiQL on the GraphQL endpoint for a browser (yoga's own is off: it sends no policy) */
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
  const links = { graphql: opts.graphqlEndpoint, graphiql: opts.graphiql ? opts.graphqlEndpoint : null };
  const graphiqlOptions = graphiqlOptionsFor({ title: 'Marketplace GraphQL', defaultTabs: GRAPHIQL_TABS });
  const restDocs = restDocsPage(REST_DOCS_PATH, OPENAPI_PATH);
  const collectionPage = async (rest: string, search: URLSearchParams): Promise<Response> => {
    const address = normalizeAddress(rest);
    if (!address) return pageResponse(renderMessagePage('Not found', `${rest.slice(0, 100)} is not an address: 0x followed by 40 hexadecimal digits`), 404);
    const collection = await opts.services.collections.getCollection(address);
    if (!collection) return pageResponse(renderMessagePage('Not found', `No collection is known at ${address}`), 404);
    // its images come from the media origin (a CDN under MEDIA_BASE_URL, else this service)
    const media = opts.services.deps.config.media.baseUrl;
    const csp = media ? pagePolicyWith({ 'img-src': `'self' data: ${new URL(media).origin}` }) : undefined;
    return pageResponse(renderCollectionPage({ address, name: collection.name ?? DEFAULT_COLLECTION_NAME }, chartSelection(search), links), 200, csp);
  };
  const serve = async (path: string, search: URLSearchParams, request: Request): Promise<Response | null> => {
    // what yoga's GraphiQL answered: a GET that accepts HTML, on the endpoint
    if (opts.graphiql && (path === opts.graphqlEndpoint || path === `${opts.graphqlEndpoint}/`)) {
      if (request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html')) return null;
      const page = await renderGraphiqlPage(graphiqlOptions(request));
      return pageResponse(page.html, 200, page.csp);
    }
    if (path.startsWith(COLLECTION_PAGES_PATH)) return collectionPage(path.slice(COLLECTION_PAGES_PATH.length), search);
    if (path.startsWith(ASSETS_PREFIX)) return assetResponse(path);
    if (path === '/') {
      const figures = await overview();
      return pageResponse(
        renderLandingPage(
          figures,
          { ...links, restDocs: REST_DOCS_PATH, openapi: OPENAPI_PATH },
          opts.chainName,
        ),
      );
    }
    if (path === OPENAPI_PATH) return new Response(await servedOpenApiJson(opts.services), { headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' } });
    if (path === REST_DOCS_PATH || path === `${REST_DOCS_PATH}/`) return pageResponse(restDocs.html, 200, restDocs.csp);
    if (path.startsWith(`${REST_DOCS_PATH}/`)) return restDocsAsset(path.slice(REST_DOCS_PATH.length + 1));
    return null;
  };
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      let response: Response | null;
      try {
        response = await serve(url.pathname, url.searchParams, request);
      } catch (err) {
        // a person sees "retry shortly", as an API client sees 503 + Retry-After; anything else is a fault
        if (!isDatabaseUnavailable(err)) throw err;
        response = pageResponse(renderMessagePage('Unavailable', 'The database is not answering: retry in a few seconds.'), 503);
        for (const [k, v] of Object.entries(httpHeadersFor('SERVICE_UNAVAILABLE'))) response.headers.set(k, v);
      }
      if (!response) return;
      endResponse(response);
    },
  };
}
