// The request id of the request being handled, for every log line written while handling it
// (AsyncLocalStorage, read by the logger's mixin). Accepted from X-Request-Id when it is a
// short token (a proxy's id keeps one id across services), generated otherwise.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

const store = new AsyncLocalStorage<{ requestId: string }>();
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | null): string {
  return header && SANE_ID.test(header) ? header : randomUUID();
}

/** Binds the id to the rest of this request's async work. */
export function enterRequest(requestId: string): void {
  store.enterWith({ requestId });
}

/** pino mixin: { reqId } inside a request, nothing outside. */
export function requestLogFields(): { reqId?: string } {
  const s = store.getStore();
  return s ? { reqId: s.requestId } : {};
}

// A plugin that replaces the request (the body guard hands on a buffered copy) says so here, so
// that per-request state keyed by the original request (the access log) is found again.
const originals = new WeakMap<Request, Request>();

export function noteReplacedRequest(original: Request, replacement: Request): void {
  originals.set(replacement, originals.get(original) ?? original);
}

/** The request as it arrived, for a request a plugin replaced; the request itself otherwise. */
export function originalRequest(request: Request): Request {
  return originals.get(request) ?? request;
}

// The body guard reads every request body once, within the limit; it leaves the bytes here so a
// handler parses them without reading the replacement request's stream a second time.
const bodies = new WeakMap<Request, Uint8Array>();

export function noteBufferedBody(request: Request, bytes: Uint8Array): void {
  bodies.set(request, bytes);
}

/** The body the guard read for this request, if it did. */
export function bufferedBody(request: Request): Uint8Array | undefined {
  return bodies.get(request);
}
