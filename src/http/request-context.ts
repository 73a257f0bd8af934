// A plugin that replaces the request (the body guard hands on a buffered copy) says so here, so
// that per-request state keyed by the original request (the access log) is found again. The
// request id is kept beside the logger (src/request-id.ts), the buffered body beside the REST
// body reader (src/rest/buffered-body.ts).
const originals = new WeakMap<Request, Request>();

export function noteReplacedRequest(original: Request, replacement: Request): void {
  originals.set(replacement, originals.get(original) ?? original);
}

/** The request as it arrived, for a request a plugin replaced; the request itself otherwise. */
export function originalRequest(request: Request): Request {
  return originals.get(request) ?? request;
}
