// The pages for people over yoga.fetch: the collection page and the landing page carry the
// Content-Security-Policy and the request id, run no inline script, load only files this service
// serves (cached for a year under a content hash), and their queries are valid and answer on the
// demo data; GraphiQL and the REST reference run only their own inline script, allowed by hash;
// GraphiQL opens a linked ?query= with its ?variables=; bad addresses get a 404 page.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse, validate } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { chartSelection, renderCollectionPage } from '../../src/http/pages/collection-page.js';
import { usePages } from '../../src/http/pages-plugin.js';
import type { Services } from '../../src/services/index.js';
import { DEMO_COLLECTION } from '../../src/demo/demo-addresses.js';
import { GRAPHIQL_OPTIONS_ID } from '../../src/http/pages/graphiql.js';
import { cspHash, PAGE_CSP } from '../../src/http/pages/page-html.js';
import { PAGE_QUERIES, PANEL_ROWS } from '../../src/http/pages/page-queries.js';
import { schema } from '../../src/schema/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const require = createRequire(import.meta.url);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await seedDemo(app.services, { orderCount: 80, saleCount: 200 });
});
afterAll(() => app?.close());

const get = (path: string, headers: Record<string, string> = {}) => app.yoga.fetch(`http://test${path}`, { headers });

/** The page's <script> elements: each must load a file or be inert JSON (the CSP refuses inline code). */
function scripts(html: string): string[] {
  return [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
}

function pageConfig(html: string): Record<string, any> {
  const m = /<script type="application\/json" id="page-config">([^<]*)<\/script>/.exec(html);
  return JSON.parse(m![1]!);
}

describe('collection page', () => {
  it('is served with the CSP and the request id, and names the collection', async () => {
    const res = await get(`/collections/${DEMO_COLLECTION.toLowerCase()}`, { 'x-request-id': 'page-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).not.toContain('unsafe-inline');
    expect(res.headers.get('x-request-id')).toBe('page-1');
    const html = await res.text();
    expect(html).toContain('<h1 id="collection-name">Lantern Owls</h1>');
    for (const attrs of scripts(html)) expect(attrs).toMatch(/ src="\/assets\/[0-9a-f]{12}\/[\w.-]+\.js"| type="application\/json"/);
    const config = pageConfig(html);
    expect(config.address).toBe(DEMO_COLLECTION);
    expect(config.selection).toEqual({ range: '30d', resolution: 'DAY' });
    expect(config.graphiql).toBe('/graphql');
  });

  it('takes its chart range from the query string', async () => {
    const html = await (await get(`/collections/${DEMO_COLLECTION}?range=7d&resolution=HOUR`)).text();
    expect(pageConfig(html).selection).toEqual({ range: '7d', resolution: 'HOUR' });
    expect(chartSelection(new URLSearchParams('range=90d&resolution=HOUR'))).toEqual({ range: '90d', resolution: 'DAY' });
    expect(chartSelection(new URLSearchParams('range=1y&resolution=MINUTE'))).toEqual({ range: '30d', resolution: 'DAY' });
    expect(chartSelection(new URLSearchParams('range=24h'))).toEqual({ range: '24h', resolution: 'HOUR' });
  });

  it('answers 404 pages for a malformed or unknown address, escaping what it echoes', async () => {
    const bad = await get('/collections/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(bad.status).toBe(404);
    expect(bad.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(await bad.text()).not.toContain('<script>alert');
    const unknown = await get(`/collections/0x${'1'.repeat(40)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No collection is known at 0x1111111111111111111111111111111111111111');
  });

  it('answers 503 with Retry-After while the database is not answering, not a fault', async () => {
    const down = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    const services = { collections: { getCollection: down }, overview: { overview: down } } as unknown as Services;
    const yoga = createYoga({ plugins: [usePages({ services, graphqlEndpoint: '/graphql', graphiql: true, chainName: 'test' })] });
    for (const path of [`/collections/${DEMO_COLLECTION}`, '/']) {
      const res = await yoga.fetch(`http://test${path}`);
      expect([path, res.status, res.headers.get('retry-after')]).toEqual([path, 503, '5']);
      expect(await res.text()).toContain('The database is not answering');
    }
  });

  it('has no GraphiQL links when GraphiQL is off', () => {
    const html = renderCollectionPage({ address: DEMO_COLLECTION, name: 'x' }, { range: '30d', resolution: 'DAY' }, { graphql: '/graphql', graphiql: null });
    expect(pageConfig(html).graphiql).toBeNull();
    // the links start hidden; the script shows one only with a GraphiQL path
    expect(html.match(/<a class="graphiql-link" hidden/g)).toHaveLength(7);
  });
});

describe('assets', () => {
  it('serves uPlot from its package under a content-hashed path, cached for a year', async () => {
    const html = await (await get(`/collections/${DEMO_COLLECTION}`)).text();
    const url = /src="(\/assets\/[0-9a-f]{12}\/uPlot\.iife\.min\.js)"/.exec(html)![1]!;
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')))).toBe(true);
    const css = /href="(\/assets\/[0-9a-f]{12}\/uPlot\.min\.css)"/.exec(html)![1]!;
    expect((await get(css)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('refuses an outdated hash and a name it does not serve', async () => {
    expect((await get('/assets/000000000000/uPlot.iife.min.js')).status).toBe(404);
    expect((await get('/assets/000000000000/package.json')).status).toBe(404);
  });
});

describe('landing page', () => {
  it('carries the CSP, runs no inline script and hands its top-collections query to the script', async () => {
    const res = await get('/');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const html = await res.text();
    expect(html).not.toContain('<style');
    for (const attrs of scripts(html)) expect(attrs).toMatch(/ src="\/assets\/| type="application\/json"/);
    expect(pageConfig(html).queries.topCollections).toBe(PAGE_QUERIES.topCollections);
  });
});

describe('page queries', () => {
  it('are valid against the schema', () => {
    for (const [name, query] of Object.entries(PAGE_QUERIES)) expect([name, validate(schema, parse(query))]).toEqual([name, []]);
  });

  it('answer on the demo data without errors', async () => {
    const to = Math.floor(app.clock.now.getTime() / 1000);
    const variables: Record<keyof typeof PAGE_QUERIES, Record<string, unknown>> = {
      collectionStats: { address: DEMO_COLLECTION },
      collectionSeries: { address: DEMO_COLLECTION, resolution: 'DAY', from: to - 30 * 86_400, to },
      collectionDepth: { address: DEMO_COLLECTION, levels: PANEL_ROWS },
      collectionTokens: { address: DEMO_COLLECTION, first: PANEL_ROWS },
      collectionActivity: { address: DEMO_COLLECTION, first: PANEL_ROWS },
      collectionSales: { address: DEMO_COLLECTION, first: PANEL_ROWS },
      topCollections: { first: 10, since: to - 7 * 86_400, to },
    };
    for (const [name, query] of Object.entries(PAGE_QUERIES)) {
      const r = await app.gql(query, variables[name as keyof typeof PAGE_QUERIES]);
      expect([name, r.errors]).toEqual([name, undefined]);
    }
    const series = (await app.gql<any>(PAGE_QUERIES.collectionSeries, variables.collectionSeries)).data.collection.series;
    expect(series).toHaveLength(30);
    expect(series.some((p: { salesCount: number }) => p.salesCount > 0)).toBe(true);
    const top = (await app.gql<any>(PAGE_QUERIES.topCollections, variables.topCollections)).data.collections.edges;
    expect(top[0].node.series).toHaveLength(7 * 24);
  });
});

/** The policy's sources for one directive. */
const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `))?.slice(name.length + 1).split(' ') ?? [];

/** The page's inline scripts that run (not inert JSON), each element's text as the browser hashes it. */
function inlineScripts(html: string): string[] {
  const found: string[] = [];
  const open = /<script((?: [\w-]+="[^"]*")*)>/g;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    const end = html.indexOf('</script>', open.lastIndex);
    if (!/ (src|type)=/.test(m[1]!)) found.push(html.slice(open.lastIndex, end));
    open.lastIndex = end; // an element's text is not searched for tags
  }
  return found;
}

describe('GraphiQL and the REST reference', () => {
  it('carry a CSP that runs only their own inline script, by its hash', async () => {
    for (const [path, headers] of [['/graphql', { accept: 'text/html' }], ['/api/v1/docs', {}]] as const) {
      const res = await get(path, headers);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp, path).toBeTruthy();
      for (const d of ["default-src 'none'", "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]) expect(csp, path).toContain(d);
      const html = await res.text();
      const inline = inlineScripts(html);
      expect(inline, path).toHaveLength(1);
      const scriptSrc = directive(csp, 'script-src');
      expect(scriptSrc, path).toContain(cspHash(inline[0]!));
      expect(scriptSrc.filter((s) => !s.startsWith("'sha256-") && s !== "'self'"), path).toEqual([]);
    }
  });

  it('GraphiQL keeps its script the same whatever the options: they are inert JSON', async () => {
    const plain = await (await get('/graphql', { accept: 'text/html' })).text();
    const linked = await (await get(`/graphql?${new URLSearchParams({ query: '{ indexerStatus { headBlock } }' })}`, { accept: 'text/html' })).text();
    expect(inlineScripts(linked)).toEqual(inlineScripts(plain));
    // what a client that wants JSON gets is still GraphQL
    expect((await get('/graphql?query=%7B__typename%7D', { accept: 'application/json' })).headers.get('content-security-policy')).toBeNull();
  });
});

describe('GraphiQL links', () => {
  const html = async (search: string) => (await get(`/graphql${search}`, { accept: 'text/html' })).text();
  /** The options object the page hands to GraphiQL. */
  const options = (page: string) => JSON.parse(new RegExp(`<script type="application/json" id="${GRAPHIQL_OPTIONS_ID}">([^<]*)</script>`).exec(page)![1]!);

  it('opens the linked query and variables as the first tab, before the examples', async () => {
    const query = PAGE_QUERIES.collectionStats;
    const variables = JSON.stringify({ address: DEMO_COLLECTION });
    const o = options(await html(`?${new URLSearchParams({ query, variables })}`));
    expect(o.defaultTabs[0]).toEqual({ query, variables });
    expect(o.variables).toBe(variables);
    expect(o.defaultTabs.length).toBeGreaterThan(1);
    expect(options(await html('')).defaultTabs[0].query).toContain('query CheapestListings');
  });

  it('names the page of the example tabs\' collection with this service\'s origin', async () => {
    const tabs: { query: string }[] = options(await html('')).defaultTabs;
    const collectionTab = tabs.find((t) => t.query.includes('query CollectionPage'))!;
    expect(collectionTab.query).toContain(`# With charts (Ctrl+click): http://test/collections/${DEMO_COLLECTION}\n`);
    expect(tabs.map((t) => t.query).join('')).not.toContain('{origin}');
  });

  it('cannot be made to close its script element', async () => {
    const page = await html(`?${new URLSearchParams({ query: '</script><script>alert(1)</script>' })}`);
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('</script><script>alert');
    expect(options(page).defaultTabs[0].query).toBe('</script><script>alert(1)</script>');
  });
});
