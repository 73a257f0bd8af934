// The pages for people, in a real headless Chromium (Debian's package) against the service
// listening on a free port with the demo marketplace: nothing is fetched from outside this
// service, GraphiQL renders and runs its example query, the landing page shows live figures,
// the REST reference renders the OpenAPI document. The screenshots go to docs/.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/db/seed-demo.js';
import { ROUTES } from '../../src/rest/routes.js';
import { chromiumInstalled, launchChromium } from '../helpers/chromium.js';
import { titled } from '../helpers/skip-reasons.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const DOCS = new URL('../../docs/', import.meta.url).pathname;

describe.skipIf(!chromiumInstalled)(titled('pages in headless Chromium', 'chromium'), () => {
  let app: TestApp;
  let server: Server;
  let browser: Browser;
  let base: string;
  /** every request the pages made to another host (must stay empty: no CDN) */
  const outside: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({}, { now: new Date() });
    await seedDemo(app.services, { orderCount: 80, saleCount: 200 });
    server = createServer(app.yoga);
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

  async function open(path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== base) {
        outside.push(url.href);
        return route.abort();
      }
      return route.continue();
    });
    await page.goto(base + path, { waitUntil: 'load' });
    return page;
  }

  it('GraphiQL renders offline with the example tabs, runs a query and shows the result', async () => {
    const page = await open('/graphql');
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
    await page.close();
    expect(outside).toEqual([]);
  });

  it('the landing page shows live figures and links to GraphiQL and the REST reference', async () => {
    const overview = await app.services.overview.overview();
    expect(overview.collections).toBeGreaterThan(0);
    const page = await open('/');
    expect(await page.locator('#figure-collections b').innerText()).toBe(overview.collections.toLocaleString('en-US'));
    expect(await page.locator('#figure-valid-orders b').innerText()).toBe(overview.validOrders.toLocaleString('en-US'));
    expect(await page.locator('#figure-indexer').innerText()).toContain('not running');
    await page.screenshot({ path: `${DOCS}landing-page.png`, fullPage: true });
    await page.locator('#link-graphiql').click();
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe('/graphql');
    await page.close();
    expect(outside).toEqual([]);
  });

  it('the REST reference renders every route of the OpenAPI document', async () => {
    const page = await open('/');
    await page.locator('#link-rest-docs').click();
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
  });
});
