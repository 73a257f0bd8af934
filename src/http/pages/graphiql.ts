// GraphiQL served entirely by this service: @graphql-yoga/render-graphiql inlines GraphiQL's
// scripts, styles and editor workers into one page, so it works offline (yoga's default loads
// them from a CDN). The page is about 9 MB of text, so it is rendered once per distinct options
// (yoga passes a fresh copy of the same options on every request).
import { renderGraphiQL as render } from '@graphql-yoga/render-graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';

let cached: { key: string; html: string } | undefined;

export function renderGraphiQL(opts: GraphiQLOptions): string {
  const key = JSON.stringify(opts);
  if (cached?.key !== key) cached = { key, html: render(opts) };
  return cached.html;
}
