// What every page with a script shares: the Content-Security-Policy that lets a page load only
// this service's own files and call only this service's API, HTML escaping, and data handed to
// the page script as inert JSON (read with JSON.parse, never executed, so no inline script).
// GraphiQL and the REST reference come from packages with inline scripts: their policies are this
// one with those scripts allowed by hash (./graphiql.ts, ./rest-docs.ts).
import { createHash } from 'node:crypto';

const PAGE_DIRECTIVES: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'connect-src': "'self'",
  'img-src': "'self' data:",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
};

/** The pages' policy with some directives replaced or added. */
export const pagePolicyWith = (changes: Record<string, string>) =>
  Object.entries({ ...PAGE_DIRECTIVES, ...changes })
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');

export const PAGE_CSP = pagePolicyWith({});

/** The CSP source that allows one inline script or style element with exactly this text. */
export const cspHash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON inside <script type="application/json">: `<` escaped so no text can close the element. */
export const inertJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function pageResponse(html: string, status = 200, csp = PAGE_CSP): Response {
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      // figures change with every sale and listing: never serve a stale page
      'cache-control': 'no-cache',
    },
  });
}
