// The body guard (src/http/request-guards.ts) reads every request body once, within the limit; it
// leaves the bytes here so a handler parses them without reading the replacement request's stream
// a second time.
const bodies = new WeakMap<Request, Uint8Array>();

export function noteBufferedBody(request: Request, bytes: Uint8Array): void {
  bodies.set(request, bytes);
}

/** The body the guard read for this request, if it did. */
export function bufferedBody(request: Request): Uint8Array | undefined {
  return bodies.get(request);
}
