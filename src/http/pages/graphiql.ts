// GraphiQL served entirely by this service: @graphql-yoga/render-graphiql inlines GraphiQL's
// scripts, styles and editor workers into one page, so it works offline (yoga's default loads
// them from a CDN). That module is about 9 MB of JavaScript (0.6 s to load on a busy machine),
// so it is imported on the first GraphiQL request, not at boot, and the page is rendered once
// per title: only the options differ between requests.
//
// The options travel as inert JSON beside the page's one inline script, which reads them: the
// script is then the same on every request and the Content-Security-Policy allows it by its hash
// (computed once), and nothing else may run. Its editor (Monaco) starts its language workers from
// blob: URLs, writes style elements and attributes, and its fonts are data: URLs; the policy
// allows those and nothing more (checked in Chromium: test/http/browser.test.ts).
//
// A link may open GraphiQL on a query, the convention GraphiQL's own examples follow:
// /graphql?query=<document>&variables=<JSON>. Yoga's GraphiQL reads ?query= itself but then
// drops it for a browser with no saved tabs (the example tabs win), and never reads ?variables=,
// so both are put into the options as the first tab.
import type { GraphiQLOptions } from 'graphql-yoga';
import { ORIGIN } from './graphiql-tabs.js';
import { cspHash, inertJson, pagePolicyWith } from './page-html.js';

type Tab = { query: string; variables?: string };

/** The options for one GraphiQL request: the example tabs, led by the linked query if any. */
export function graphiqlOptionsFor(base: { title: string; defaultTabs: Tab[] }) {
  // `variables`: GraphiQL's initial variables, which it gives the ?query= tab it adds to saved tabs
  return (request: Request): GraphiQLOptions & { variables?: string } => {
    const url = new URL(request.url);
    const examples = base.defaultTabs.map((t) => ({ ...t, query: t.query.replaceAll(ORIGIN, url.origin) }));
    const query = url.searchParams.get('query');
    if (!query) return { ...base, defaultTabs: examples };
    const variables = url.searchParams.get('variables') || undefined;
    return { ...base, ...(variables ? { variables } : {}), defaultTabs: [{ query, variables }, ...examples] };
  };
}

export const GRAPHIQL_OPTIONS_ID = 'graphiql-options';

/** A rendered page: its text and the policy it is served with. */
export interface GraphiqlPage {
  html: string;
  csp: string;
}

/** The page cut around its options, per title (there is one). */
const templates = new Map<string, Promise<{ head: string; tail: string; csp: string }>>();

async function template(title: string) {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
  const rendered = render({ title } as GraphiQLOptions);
  // the options literal of the script's last call becomes a read of the JSON element
  const literal = JSON.stringify({ title });
  const at = rendered.lastIndexOf(literal);
  if (at < 0) throw new Error('GraphiQL page: the options were not found in the rendered page');
  const page = `${rendered.slice(0, at)}JSON.parse(document.getElementById(${JSON.stringify(GRAPHIQL_OPTIONS_ID)}).textContent)${rendered.slice(at + literal.length)}`;
  // One inline script: from the page's first `<script>` to the `</script>` that ends it, the
  // page's last (the text "<script>" occurs again only inside it, in a string literal).
  const open = page.indexOf('<script>');
  const close = page.indexOf('</script>', open);
  if (open < 0 || close < 0 || close !== page.lastIndexOf('</script>')) throw new Error('GraphiQL page: its one script was not found');
  const script = page.slice(open + '<script>'.length, close);
  const csp = pagePolicyWith({
    'script-src': cspHash(script),
    'worker-src': 'blob:',
    'style-src': "'unsafe-inline'",
    'font-src': 'data:',
  });
  return { head: `${page.slice(0, open)}<script type="application/json" id="${GRAPHIQL_OPTIONS_ID}">`, tail: `</script>\n${page.slice(open)}`, csp };
}

export async function renderGraphiqlPage(opts: GraphiQLOptions): Promise<GraphiqlPage> {
  const title = opts.title ?? '';
  let t = templates.get(title);
  if (!t) {
    t = template(title);
    templates.set(title, t);
    t.catch(() => templates.delete(title));
  }
  const { head, tail, csp } = await t;
  return { html: head + inertJson(opts) + tail, csp };
}
