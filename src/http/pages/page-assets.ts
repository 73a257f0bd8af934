// The static files the pages load (uPlot from its npm package, the page scripts and the style
// sheet from ./browser), served by this process under /assets/<content hash>/<name>: the path
// changes when the bytes do, so the files are cached for a year and never go stale.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../project-root.js';

export const ASSETS_PREFIX = '/assets/';

const require = createRequire(import.meta.url);
const BROWSER_DIR = path.join(PROJECT_ROOT, 'src/http/pages/browser');
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** name -> where it is read from and its media type; nothing else is served under /assets. */
const SOURCES: Record<string, { file: () => string; type: string }> = {
  'uPlot.iife.min.js': { file: () => require.resolve('uplot/dist/uPlot.iife.min.js'), type: JS },
  'uPlot.min.css': { file: () => require.resolve('uplot/dist/uPlot.min.css'), type: CSS },
  'pages.css': { file: () => path.join(BROWSER_DIR, 'pages.css'), type: CSS },
  'page-api.js': { file: () => path.join(BROWSER_DIR, 'page-api.js'), type: JS },
  'collection-page.js': { file: () => path.join(BROWSER_DIR, 'collection-page.js'), type: JS },
  'landing-page.js': { file: () => path.join(BROWSER_DIR, 'landing-page.js'), type: JS },
};
export type AssetName = keyof typeof SOURCES;

interface Asset {
  url: string;
  body: Uint8Array;
  type: string;
}

let assets: Map<string, Asset> | undefined;

/** Read once, on the first page request (about 60 kB together). */
function loaded(): Map<string, Asset> {
  if (!assets) {
    assets = new Map();
    for (const [name, source] of Object.entries(SOURCES)) {
      const body = new Uint8Array(readFileSync(source.file()));
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      assets.set(name, { url: `${ASSETS_PREFIX}${hash}/${name}`, body, type: source.type });
    }
  }
  return assets;
}

/** The path a page links to load this file. */
export function assetUrl(name: AssetName): string {
  return loaded().get(name)!.url;
}

/** The file at this path, or null (an unknown name or an outdated hash). */
export function assetResponse(pathname: string): Response | null {
  const name = pathname.slice(pathname.lastIndexOf('/') + 1);
  const asset = loaded().get(name);
  if (!asset || asset.url !== pathname) return null;
  return new Response(asset.body as unknown as BodyInit, {
    headers: {
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    },
  });
}
