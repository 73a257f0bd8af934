// The pages for people, in a real headless Chromium (Debian's package) against the service
// listening on a free port with the demo marketplace: nothing is fetched from outside this
// service and no page breaks its Content-Security-Policy; GraphiQL renders and runs its example
// query (its editor's worker included), the landing page shows live figures and floor sparklines,
// a collection page draws the API's series and opens its queries in GraphiQL, the REST reference
// renders the OpenAPI document. The screenshots go to a temporary folder, or to docs/ with
// UPDATE_SCREENSHOTS=1 (a test run leaves the tree as it found it).
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { DEMO_COLLECTION } from '../../src/demo/demo-addresses.js';
import { PAGE_QUERIES, PANEL_ROWS } from '../../src/http/pages/page-queries.js';
import { ROUTES } from '../../src/rest/routes.js';
import { chromiumInstalled, launchChromium } from '../helpers/chromium.js';
import { titled } from '../helpers/skip-reasons.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createMediaWorker } from '../../src/services/media/media-worker.js';
import { createContentFetcher } from '../../src/services/metadata-fetch/index.js';

const DOCS = process.env.UPDATE_SCREENSHOTS ? new URL('../../docs/', import.meta.url).pathname : `${mkdtempSync(join(tmpdir(), 'screenshots-'))}/`;

describe.skipIf(!chromiumInstalled)(titled('pages in headless Chromium', 'chromium'), () => {
  let app: TestApp;
  let server: Server;
  let browser: Browser;
  let base: string;
  /** every request the pages made to another host (must stay empty: no CDN) */
  const outside: string[] = [];
  /** every Content-Security-Policy refusal on the pages, pop-ups' included (must stay empty) */
  const refused: string[] = [];
  /** the policy each opened page was served with */
  const policyOf = new WeakMap<Page, string | undefined>();

  beforeAll(async () => {
    app = await startTestApp({}, { now: new Date() });
    await seedDemo(app.services, { orderCount: 80, saleCount: 200 });
    // the demo's logos, banners and token images (drawn offline, data: URIs) hosted on /media/, as
    // the media worker of `npm start` does in its first seconds
    const fetcher = createContentFetcher({ ipfsGateways: [], arweaveGateway: 'https://arweave.invalid', allowPrivateTargets: false, timeoutMs: 5000, maxBytes: 1 << 20, maxRedirects: 0, perHostConcurrency: 4, perHostIntervalMs: 0, retries: 0 });
    const mediaWorker = createMediaWorker(app.services.media, fetcher, { concurrency: 4, leaseMs: 60_000 });
    while ((await mediaWorker.runOnce()) > 0);
    // the production handler: the read lane (hot GraphQL and REST reads), then yoga
    server = createServer(app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  /** A page in a context of its own, whose requests (pop-ups' included) are watched. */
  async function open(path: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // a request still in flight when its page closes (a GraphiQL tab's, say) is dropped with the
    // context: continuing it then rejects, which says nothing about the page
    const closed = () => {};
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== base) {
        outside.push(url.href);
        return route.abort().catch(closed);
      }
      return route.continue().catch(closed);
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP refused ${e.violatedDirective} ${e.blockedURI}`));
    });
    context.on('console', (m) => {
      if (/CSP refused|Content Security Policy/.test(m.text())) refused.push(m.text());
    });
    const page = await context.newPage();
    page.on('close', () => void context.close().catch(closed));
    const response = await page.goto(base + path, { waitUntil: 'load' });
    policyOf.set(page, response?.headers()['content-security-policy']);
    return page;
  }

  /** What the API answers for a series query, as the charts draw it: ETH as numbers, null floors as gaps. */
  async function apiSeries(variables: Record<string, unknown>) {
    const r = await app.gql<any>(PAGE_QUERIES.collectionSeries, variables);
    expect(r.errors).toBeUndefined();
    const points: { start: number; floorPrice: string | null; volume: string; salesCount: number }[] = r.data.collection.series;
    const eth = (wei: string | null) => (wei === null ? null : Number(wei) / 1e18);
    return {
      floor: [points.map((p) => p.start), points.map((p) => eth(p.floorPrice))],
      volume: [points.map((p) => p.start), points.map((p) => eth(p.volume)), points.map((p) => p.salesCount)],
    };
  }

  /** The drawn charts: the uPlot instances' data and the variables of the query behind them. */
  const drawnCharts = (page: Page) =>
    page.evaluate(() => {
      const c = (window as any).pageCharts;
      return { variables: c.variables, floor: c.floor.data, volume: c.volume.data };
    });

  it('GraphiQL renders offline under its CSP with the example tabs, runs a query and shows the result', async () => {
    const page = await open('/graphql');
    expect(policyOf.get(page)).toMatch(/script-src 'sha256-/);
    const tabs = page.locator('.graphiql-tab-button');
    await tabs.first().waitFor({ timeout: 30_000 });
    expect(await tabs.allInnerTexts()).toEqual(expect.arrayContaining(['CheapestListings', 'CollectionPage']));
    await page.locator('.graphiql-execute-button').click();
    // without white space: Monaco wraps long lines and renders spaces as no-break spaces
    const responseText = async () => (await page.locator('.graphiql-response').innerText()).replace(/\s/g, '');
    await expect.poll(responseText, { timeout: 30_000 }).toContain('"hash":"0x');
    const text = await responseText();
    expect(text).toContain('"orders"');
    expect(text).toContain('"status":"VALID"');
    expect(text).not.toContain('"errors"');
    await page.screenshot({ path: `${DOCS}graphiql.png` });
    // the editor's GraphQL worker (started from a blob: URL) checks the query against the schema
    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nquery Unknown { noSuchField }');
    await page.locator('.graphiql-query-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
    await page.close();
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('the landing page shows live figures and links to GraphiQL and the REST reference', async () => {
    const overview = await app.services.overview.overview();
    expect(overview.collections).toBeGreaterThan(0);
    const page = await open('/');
    expect(await page.locator('#figure-collections b').innerText()).toBe(overview.collections.toLocaleString('en-US'));
    expect(await page.locator('#figure-valid-orders b').innerText()).toBe(overview.validOrders.toLocaleString('en-US'));
    expect(await page.locator('#figure-indexer').innerText()).toContain('not running');
    await page.locator('html[data-charts]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${DOCS}landing-page.png`, fullPage: true });
    await page.locator('#link-graphiql').click();
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe('/graphql');
    await page.close();
    expect(outside).toEqual([]);
  });

  it('the landing page ranks the top collections by 24h volume with the API\'s floor as sparklines', async () => {
    const page = await open('/');
    await page.locator('html[data-charts]').waitFor({ timeout: 30_000 });
    const drawn = await page.evaluate(() => {
      const c = (window as any).pageCharts;
      return { variables: c.variables, sparklines: Object.fromEntries(Object.entries(c.sparklines).map(([a, u]: [string, any]) => [a, u.data])) };
    });
    const api = await app.gql<any>(PAGE_QUERIES.topCollections, drawn.variables);
    expect(api.errors).toBeUndefined();
    const nodes: { name: string; address: string; series: { start: number; floorPrice: string | null }[] }[] = api.data.collections.edges.map((e: any) => e.node);
    expect(nodes.length).toBeGreaterThan(1);
    expect(Object.keys(drawn.sparklines).sort()).toEqual(nodes.map((n) => n.address).sort());
    for (const n of nodes) {
      expect(drawn.sparklines[n.address]).toEqual([n.series.map((p) => p.start), n.series.map((p) => (p.floorPrice === null ? null : Number(p.floorPrice) / 1e18))]);
    }
    // drawn, not only computed: at least one floor in the week
    expect(nodes.some((n) => n.series.some((p) => p.floorPrice !== null))).toBe(true);
    const links = page.locator('#top-collections tbody a');
    expect(await links.allInnerTexts()).toEqual(nodes.map((n) => n.name));
    // each collection's logo, from this service's /media/ origin, drawn
    const logos = await page.evaluate(async () =>
      Promise.all([...document.querySelectorAll<HTMLImageElement>('#top-collections img.logo-small')].map(async (img) => {
        await img.decode().catch(() => {});
        return { src: img.src, width: img.naturalWidth };
      })),
    );
    expect(logos.length).toBe(nodes.length);
    for (const logo of logos) {
      expect(logo.src.startsWith(`${base}/media/`), logo.src.slice(0, 80)).toBe(true);
      expect(logo.width).toBeGreaterThan(0);
    }
    await links.first().click();
    await page.locator('html[data-charts]').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(`/collections/${nodes[0]!.address}`);
    await page.close();
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('a collection page draws the API\'s floor and volume series and fills every panel', async () => {
    const page = await open(`/collections/${DEMO_COLLECTION}?range=7d&resolution=HOUR`);
    await page.locator('html[data-panels="done"]').waitFor({ timeout: 30_000 });
    const drawn = await drawnCharts(page);
    expect(drawn.variables).toMatchObject({ address: DEMO_COLLECTION, resolution: 'HOUR' });
    expect(drawn.variables.to - drawn.variables.from).toBe(7 * 86_400);
    const api = await apiSeries(drawn.variables);
    expect(drawn.floor).toEqual(api.floor);
    expect(drawn.volume).toEqual(api.volume);
    expect(api.floor[0]).toHaveLength(7 * 24);
    expect(api.volume[1]!.some((v) => (v as number) > 0)).toBe(true);
    // the other panels, from their own queries
    const stats = (await app.gql<any>(PAGE_QUERIES.collectionStats, { address: DEMO_COLLECTION })).data.collection.stats;
    expect(await page.locator('#stat-floor b').innerText()).toBe(`${Number(stats.floorPriceEth).toLocaleString('en-US', { maximumFractionDigits: 4 })} ETH`);
    const depth = (await app.gql<any>(PAGE_QUERIES.collectionDepth, { address: DEMO_COLLECTION, levels: PANEL_ROWS })).data.collection;
    expect(await page.locator('#depth-asks tbody tr').count()).toBe(depth.asks.levels.length);
    expect(await page.locator('#depth-bids tbody tr').count()).toBe(depth.bids.levels.length);
    expect(depth.asks.levels.length).toBeGreaterThan(0);
    expect(await page.locator('#activity tbody tr').count()).toBe(PANEL_ROWS);
    expect(await page.locator('#sales tbody tr').count()).toBe(PANEL_ROWS);
    // the logo and the cheapest listed tokens' images, every one from this service's /media/ origin, drawn
    const tokens = (await app.gql<any>(PAGE_QUERIES.collectionTokens, { address: DEMO_COLLECTION, first: PANEL_ROWS })).data.tokens.edges;
    expect(tokens.length).toBeGreaterThan(0);
    expect(await page.locator('#token-grid .token-card').count(), await page.locator('#token-grid').innerText()).toBe(tokens.length);
    const images = await page.evaluate(async () =>
      Promise.all([...document.querySelectorAll<HTMLImageElement>('#collection-logo, #token-grid img')].map(async (img) => {
        img.loading = 'eager';
        await img.decode().catch(() => {});
        return { src: img.src, width: img.naturalWidth };
      })),
    );
    expect(images.length).toBe(tokens.length + 1);
    for (const img of images) {
      expect(img.src.startsWith(`${base}/media/`), img.src.slice(0, 80)).toBe(true);
      expect(img.width).toBeGreaterThan(0);
    }
    expect(await page.locator('.error:not(:empty)').count()).toBe(0);
    await page.screenshot({ path: `${DOCS}collection-page.png`, fullPage: true });

    // another range redraws in place, from the API again; 90 days are drawn by day
    await page.locator('#chart-controls [data-range="90d"]').click();
    await page.locator('html[data-charts="2"]').waitFor({ timeout: 30_000 });
    const wider = await drawnCharts(page);
    expect(wider.variables).toMatchObject({ resolution: 'DAY' });
    expect(wider.variables.to - wider.variables.from).toBe(90 * 86_400);
    expect(wider.floor).toEqual((await apiSeries(wider.variables)).floor);
    expect(new URL(page.url()).search).toBe('?range=90d&resolution=DAY');
    await page.close();
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('a collection page opens a panel\'s query with its variables in GraphiQL, in a new tab', async () => {
    const page = await open(`/collections/${DEMO_COLLECTION}`);
    await page.locator('html[data-charts]').waitFor({ timeout: 30_000 });
    const link = page.locator('#panel-floor .graphiql-link');
    const href = new URL((await link.getAttribute('href'))!, base);
    expect(href.searchParams.get('query')).toBe(PAGE_QUERIES.collectionSeries);
    expect(JSON.parse(href.searchParams.get('variables')!)).toEqual((await drawnCharts(page)).variables);
    const [graphiql] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await graphiql.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    await graphiql.locator('.graphiql-execute-button').click();
    const responseText = async () => (await graphiql.locator('.graphiql-response').innerText()).replace(/\s/g, '');
    await expect.poll(responseText, { timeout: 30_000 }).toContain('"series":[{"start":');
    expect(await responseText()).not.toContain('"errors"');
    await page.close();
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('prints how long a collection page takes to show its charts', async () => {
    /** navigation start to both charts drawn, in ms, over five loads each */
    const runs: Record<string, number[]> = { 'first load': [], 'assets cached': [] };
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      for (const run of Object.keys(runs)) {
        await page.goto(`${base}/collections/${DEMO_COLLECTION}`);
        await page.locator('html[data-charts]').waitFor({ timeout: 30_000 });
        runs[run]!.push(await page.evaluate(() => performance.getEntriesByName('charts-drawn')[0]!.startTime));
      }
      await context.close();
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const line = Object.entries(runs).map(([run, ms]) => `${run}: median ${median(ms).toFixed(0)} ms (${ms.map((m) => m.toFixed(0)).join(', ')})`);
    console.log(`collection page, navigation to charts drawn, demo data: ${line.join('; ')}`);
  });

  it('the REST reference renders every route of the OpenAPI document under its CSP', async () => {
    const page = await open('/');
    const [docs] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/docs'), page.locator('#link-rest-docs').click()]);
    expect(docs.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    const ops = page.locator('.opblock-summary-path');
    // one operation per method of the routes table
    const operations = Object.values(ROUTES).reduce((n, methods) => n + Object.keys(methods).length, 0);
    await expect.poll(() => ops.count(), { timeout: 30_000 }).toBe(operations);
    expect(await ops.allInnerTexts()).toEqual(expect.arrayContaining(['/api/v1/orders', '/api/v1/collections/stats']));
    // try one route from the page: GET /orders/nonce with its example, answered by this service
    await page.locator('#operations-Orders-getOrdersNonce .opblock-summary').click();
    await page.locator('#operations-Orders-getOrdersNonce .try-out__btn').click();
    await page.locator('#operations-Orders-getOrdersNonce .execute').click();
    await expect.poll(() => page.locator('#operations-Orders-getOrdersNonce .live-responses-table tbody .response-col_status').first().innerText(), { timeout: 30_000 }).toContain('200');
    await page.screenshot({ path: `${DOCS}rest-docs.png` });
    await page.close();
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });
});
