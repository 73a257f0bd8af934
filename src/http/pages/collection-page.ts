// The page of one collection at /collections/<address>: the HTML frame is rendered here, every
// panel (statistics, floor and volume charts, depth ladder, activity, sales) is filled by
// ./browser/collection-page.js from the public GraphQL API with the queries of ./page-queries.ts.
import { assetUrl } from './page-assets.js';
import { escapeHtml, inertJson } from './page-html.js';
import { PAGE_QUERIES, PANEL_ROWS } from './page-queries.js';

/** The chart ranges offered, in seconds. */
export const CHART_RANGES = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400, '90d': 90 * 86_400 } as const;
export type ChartRange = keyof typeof CHART_RANGES;
export type ChartResolution = 'HOUR' | 'DAY';

/** Collection.series answers at most 1000 points: 90 days of hours is more. */
const HOUR_RANGES: readonly ChartRange[] = ['24h', '7d', '30d'];

/** The range and resolution a query string asks for; anything unknown falls back to 30 days by day. */
export function chartSelection(search: URLSearchParams): { range: ChartRange; resolution: ChartResolution } {
  const asked = search.get('range');
  const range: ChartRange = asked && asked in CHART_RANGES ? (asked as ChartRange) : '30d';
  const wanted = search.get('resolution');
  const fallback: ChartResolution = range === '24h' || range === '7d' ? 'HOUR' : 'DAY';
  const resolution: ChartResolution = wanted === 'HOUR' || wanted === 'DAY' ? wanted : fallback;
  return { range, resolution: resolution === 'HOUR' && !HOUR_RANGES.includes(range) ? 'DAY' : resolution };
}

export interface PageLinks {
  graphql: string;
  /** null when GraphiQL is off: no "open in GraphiQL" links */
  graphiql: string | null;
}

function panel(id: string, title: string, body: string): string {
  return `<section class="panel" id="panel-${id}">
  <h2>${title} <a class="graphiql-link" hidden target="_blank" rel="noopener">open in GraphiQL</a></h2>
  ${body}
</section>`;
}

export function renderCollectionPage(
  c: { address: string; name: string },
  selection: { range: ChartRange; resolution: ChartResolution },
  links: PageLinks,
): string {
  const config = {
    graphql: links.graphql,
    graphiql: links.graphiql,
    address: c.address,
    rows: PANEL_ROWS,
    ranges: CHART_RANGES,
    hourRanges: HOUR_RANGES,
    selection,
    queries: {
      collectionStats: PAGE_QUERIES.collectionStats,
      collectionSeries: PAGE_QUERIES.collectionSeries,
      collectionDepth: PAGE_QUERIES.collectionDepth,
      collectionActivity: PAGE_QUERIES.collectionActivity,
      collectionSales: PAGE_QUERIES.collectionSales,
      collectionTokens: PAGE_QUERIES.collectionTokens,
    },
  };
  const rangeButtons = Object.keys(CHART_RANGES)
    .map((r) => `<button type="button" data-range="${r}"${r === selection.range ? ' aria-pressed="true"' : ''}>${r}</button>`)
    .join('');
  const resolutionButtons = (['HOUR', 'DAY'] as const)
    .map((r) => `<button type="button" data-resolution="${r}"${r === selection.resolution ? ' aria-pressed="true"' : ''}>${r === 'HOUR' ? 'hourly' : 'daily'}</button>`)
    .join('');
  const table = (id: string, head: string[]) =>
    `<table id="${id}"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody><tr><td colspan="${head.length}" class="muted">Loading…</td></tr></tbody></table>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(c.name)}: collection</title>
<link rel="stylesheet" href="${assetUrl('uPlot.min.css')}">
<link rel="stylesheet" href="${assetUrl('pages.css')}">
<script type="application/json" id="page-config">${inertJson(config)}</script>
<script src="${assetUrl('uPlot.iife.min.js')}" defer></script>
<script src="${assetUrl('page-api.js')}" defer></script>
<script src="${assetUrl('collection-page.js')}" defer></script>
</head>
<body class="wide">
<nav><a href="/">Marketplace gateway</a> / collections</nav>
<img id="collection-logo" class="logo" alt="" hidden>
<h1 id="collection-name">${escapeHtml(c.name)}</h1>
<p class="muted"><code>${escapeHtml(c.address)}</code> <span id="collection-kind"></span></p>
${panel('stats', 'Statistics', '<div class="figures" id="stats"></div>')}
<div class="controls" id="chart-controls">
  <span>Range</span> ${rangeButtons}
  <span>Resolution</span> ${resolutionButtons}
  <span class="error" id="chart-status" role="status"></span>
</div>
${panel('floor', 'Floor (ETH, at the end of each interval)', '<div class="chart" id="chart-floor"></div>')}
${panel('volume', 'Volume (ETH) and sales', '<div class="chart" id="chart-volume"></div>')}
${panel('tokens', 'Cheapest listed tokens', '<div class="token-grid" id="token-grid"><p class="muted">Loading…</p></div>')}
${panel('depth', 'Order book depth', `<div class="ladder">${table('depth-asks', ['Ask (ETH)', 'Orders', 'Amount', 'Cumulative'])}${table('depth-bids', ['Bid (ETH)', 'Orders', 'Amount', 'Cumulative'])}</div>`)}
${panel('activity', 'Latest activity', table('activity', ['Time (UTC)', 'Event', 'Token', 'Price (ETH)', 'From', 'To']))}
${panel('sales', 'Latest sales', table('sales', ['Time (UTC)', 'Token', 'Price (ETH)', 'Seller', 'Buyer', 'Transaction']))}
</body>
</html>
`;
}

/** A page that only says why there is nothing to show (404, 503). */
export function renderMessagePage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assetUrl('pages.css')}">
</head>
<body>
<nav><a href="/">Marketplace gateway</a></nav>
<h1>${escapeHtml(title)}</h1>
<p id="message">${escapeHtml(message)}</p>
</body>
</html>
`;
}
