// The page at `/`: what this service is, where to go next, and live figures from the database.
import type { MarketplaceOverview } from '../../services/overview.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
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
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marketplace gateway</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.6rem; margin-bottom: .2rem; }
  .figures { display: flex; gap: 1rem; flex-wrap: wrap; margin: 1.5rem 0; }
  .figure { border: 1px solid #ddd; border-radius: 8px; padding: .8rem 1rem; min-width: 9rem; }
  .figure b { display: block; font-size: 1.6rem; }
  code { background: #f4f4f6; padding: 0 .25rem; border-radius: 4px; }
</style>
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
</body>
</html>
`;
}
