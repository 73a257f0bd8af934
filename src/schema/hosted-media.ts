// The resolvers' side of hosted images: a source URL (a collection's logo or banner, a token's
// image) answered as our media URL once the image is stored, by the SQL rule the read engine
// uses (src/services/hosted-media-sql.ts), batched per request.
import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import type { MediaVariant } from '../domain/media-variants.js';
import { hostedUrlSql } from '../services/hosted-media-sql.js';

const loaders = new WeakMap<object, DataLoader<string, string>>();

/** `${variant} ${url}` -> the URL to give out */
function hostedLoader(ctx: Context): DataLoader<string, string> {
  let loader = loaders.get(ctx.loaders);
  if (!loader) {
    const baseUrl = ctx.services.deps.config.media.baseUrl;
    loader = new DataLoader(async (keys: readonly string[]) => {
      const byVariant = new Map<string, string[]>();
      for (const k of keys) {
        const [variant, url] = [k.slice(0, k.indexOf(' ')), k.slice(k.indexOf(' ') + 1)];
        byVariant.set(variant, [...(byVariant.get(variant) ?? []), url]);
      }
      const out = new Map<string, string>();
      for (const [variant, urls] of byVariant) {
        const rows = await ctx.sql.query<{ url: string; hosted: string }>(
          `SELECT u.url, ${hostedUrlSql('u.url', variant as MediaVariant, baseUrl)} AS hosted FROM unnest($1::text[]) AS u(url)`,
          [urls],
        );
        for (const r of rows) out.set(`${variant} ${r.url}`, r.hosted);
      }
      return keys.map((k) => out.get(k) ?? k.slice(k.indexOf(' ') + 1));
    });
    loaders.set(ctx.loaders, loader);
  }
  return loader;
}

/** The URL to give out for a source URL (null stays null). */
export const hostedUrl = (ctx: Context, url: string | null, variant: MediaVariant): Promise<string | null> | null =>
  url === null ? null : hostedLoader(ctx).load(`${variant} ${url}`);
