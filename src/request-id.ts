// The request id of the request being handled, for every log line written while handling it
// (AsyncLocalStorage, read by the logger's mixin). Accepted from X-Request-Id when it is a
// short token (a proxy's id keeps one id across services), generated otherwise. Beside the
// logger, below every layer that logs; the HTTP layer enters each request's id.
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
