// GraphiQL served entirely by this service: @graphql-yoga/render-graphiql inlines GraphiQL's
// scripts, styles and editor workers into one page, so it works offline (yoga's default loads
// them from a CDN). That module is about 9 MB of JavaScript (0.6 s to load on a busy machine),
// so it is imported on the first GraphiQL request, not at boot, and the page is rendered once
// per distinct options (yoga passes a fresh copy of the same options on every request).
import type { GraphiQLOptions } from 'graphql-yoga';

let cached: { key: string; html: string } | undefined;

export async function renderGraphiQL(opts: GraphiQLOptions): Promise<string> {
  const key = JSON.stringify(opts);
  if (cached?.key !== key) {
    const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
    cached = { key, html: render(opts) };
  }
  return cached.html;
}
