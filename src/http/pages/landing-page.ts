// The page at `/`: what this service is, where to go next, live figures from the database, and
// the top collections by 24h volume with floor sparklines, filled by ./browser/landing-page.js
// from the public GraphQL API.
import type { MarketplaceOverview } from '../../services/overview.js';
import { assetUrl } from './page-assets.js';
import { escapeHtml as escape, inertJson } from './page-html.js';
import { PAGE_QUERIES } from './page-queries.js';

/** How many collections the landing page ranks. */
export const TOP_COLLECTIONS = 10;
const count = (n: number) => n.toLocaleString('en-US');

export interface LandingLinks {
  graphql: string;
  /** null when GraphiQL is disabled (GRAPHIQL=false) */
  graphiql: string | null;
  restDocs: string;
  openapi: string;
}

function indexerLine(o: MarketplaceOverview): string {
  if (!o.indexer) return 'not running against this database (set RPC_URL to follow the chain)';
  return `block ${escape(o.indexer.blockNumber)}, last batch ${count(o.indexer.secondsBehind)} s ago`;
}

export function renderLandingPage(o: MarketplaceOverview, links: LandingLinks, chainName: string): string {
  const graphiql = links.graphiql
    ? `<li><a id="link-graphiql" href="${escape(links.graphiql)}">GraphiQL</a>: explore the GraphQL API in the browser, with example queries</li>`
    : `<li>GraphQL at <code>${escape(links.graphql)}</code> (GraphiQL is off: <code>GRAPHIQL=false</code>)</li>`;
  const config = { graphql: links.graphql, graphiql: links.graphiql, topCollections: TOP_COLLECTIONS, queries: { topCollections: PAGE_QUERIES.topCollections } };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marketplace gateway</title>
<link rel="stylesheet" href="${assetUrl('uPlot.min.css')}">
<link rel="stylesheet" href="${assetUrl('pages.css')}">
<script type="application/json" id="page-config">${inertJson(config)}</script>
<script src="${assetUrl('uPlot.iife.min.js')}" defer></script>
<script src="${assetUrl('page-api.js')}" defer></script>
<script src="${assetUrl('landing-page.js')}" defer></script>
</head>
<body>
<h1>Marketplace gateway</h1>
<p>The open order book and collection data service of an NFT marketplace (${escape(chainName)}):
orders signed with EIP-712, collections, statistics and sales, over GraphQL and a
LooksRare v1 compatible REST API.</p>
<div class="figures">
  <div class="figure" id="figure-collections"><b>${count(o.collections)}</b>collections</div>
  <div class="figure" id="figure-valid-orders"><b>${count(o.validOrders)}</b>valid orders</div>
  <div class="figure" id="figure-sales"><b>${count(o.sales)}</b>sales recorded</div>
</div>
<p id="figure-indexer">Chain indexer: ${indexerLine(o)}</p>
<ul>
  ${graphiql}
  <li><a id="link-rest-docs" href="${escape(links.restDocs)}">REST API v1 reference</a> (<a href="${escape(links.openapi)}">OpenAPI 3.1 document</a>)</li>
  <li><a href="/metrics">Prometheus metrics</a>, <a href="/healthz">liveness</a>, <a href="/readyz">readiness</a></li>
</ul>
<section class="panel" id="panel-top-collections">
  <h2>Top collections by 24h volume <a class="graphiql-link" hidden target="_blank" rel="noopener">open in GraphiQL</a></h2>
  <table id="top-collections">
    <thead><tr><th>Collection</th><th>Volume 24h (ETH)</th><th>Change</th><th>Floor (ETH)</th><th>Floor, 7 days</th></tr></thead>
    <tbody><tr><td colspan="5" class="muted">Loading…</td></tr></tbody>
  </table>
</section>
</body>
</html>
`;
}
