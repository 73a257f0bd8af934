// What every page with a script shares: the Content-Security-Policy that lets a page load only
// this service's own files and call only this service's API, HTML escaping, and data handed to
// the page script as inert JSON (read with JSON.parse, never executed, so no inline script).
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON inside <script type="application/json">: `<` escaped so no text can close the element. */
export const inertJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function pageResponse(html: string, status = 200): Response {
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PAGE_CSP,
      'x-content-type-options': 'nosniff',
      // figures change with every sale and listing: never serve a stale page
      'cache-control': 'no-cache',
    },
  });
}
