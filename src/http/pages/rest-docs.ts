// The REST reference page: Swagger UI from the swagger-ui-dist package, its assets served by
// this service (no CDN), reading our own /api/v1/openapi.json. Its Content-Security-Policy
// allows its one inline script (Swagger UI's start) by its hash, and the style attributes Swagger
// UI writes, not style elements (checked in Chromium: test/http/browser.test.ts).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cspHash, pagePolicyWith } from './page-html.js';

const require = createRequire(import.meta.url);
// absolute-path.js only: the package's index.js would load the whole Swagger UI bundle at boot.
const assetsDir: string = (require('swagger-ui-dist/absolute-path.js') as () => string)();

/** The only files the page loads; anything else under the docs path is a 404. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page and its policy; both depend only on the two paths, so they are made once. */
export function restDocsPage(docsPath: string, openapiPath: string): { html: string; csp: string } {
  const start = `
  // validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(openapiPath)}, dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });
`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Marketplace REST API v1</title>
<link rel="stylesheet" href="${docsPath}/swagger-ui.css">
<link rel="icon" type="image/png" href="${docsPath}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${docsPath}/swagger-ui-bundle.js"></script>
<script>${start}</script>
</body>
</html>
`;
  return { html, csp: pagePolicyWith({ 'script-src': `'self' ${cspHash(start)}`, 'style-src': "'self'", 'style-src-attr': "'unsafe-inline'" }) };
}

const cache = new Map<string, Uint8Array>();

export async function restDocsAsset(name: string): Promise<Response | null> {
  const type = ASSETS[name];
  if (!type) return null;
  let body = cache.get(name);
  if (!body) {
    body = new Uint8Array(await readFile(join(assetsDir, name)));
    cache.set(name, body);
  }
  return new Response(body as unknown as BodyInit, { headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } });
}
