// GraphiQL served entirely by this service: @graphql-yoga/render-graphiql inlines GraphiQL's
// scripts, styles and editor workers into one page, so it works offline (yoga's default loads
// them from a CDN). That module is about 9 MB of JavaScript (0.6 s to load on a busy machine),
// so it is imported on the first GraphiQL request, not at boot, and the page is rendered once
// per title: only the options object at its end differs between requests.
//
// A link may open GraphiQL on a query, the convention GraphiQL's own examples follow:
// /graphql?query=<document>&variables=<JSON>. Yoga's GraphiQL reads ?query= itself but then
// drops it for a browser with no saved tabs (the example tabs win), and never reads ?variables=,
// so both are put into the options as the first tab.
import type { GraphiQLOptions } from 'graphql-yoga';
import { ORIGIN } from './graphiql-tabs.js';

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

/** The options as a script literal: `<` escaped, so a linked query cannot close the script element. */
const scriptJson = (opts: GraphiQLOptions) => JSON.stringify(opts).replace(/</g, '\\u003c');

let cached: { title: string; head: string; tail: string } | undefined;

export async function renderGraphiQL(opts: GraphiQLOptions): Promise<string> {
  const title = opts.title ?? '';
  if (cached?.title !== title) {
    const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
    // rendered with a marker for the options, then cut around it
    const marker = `"__graphiql_options_${Math.random().toString(36).slice(2)}__"`;
    const html = render({ title } as GraphiQLOptions).replace(JSON.stringify({ title }), marker);
    const at = html.lastIndexOf(marker);
    if (at < 0) throw new Error('GraphiQL page: the options were not found in the rendered page');
    cached = { title, head: html.slice(0, at), tail: html.slice(at + marker.length) };
  }
  return cached.head + scriptJson(opts) + cached.tail;
}
