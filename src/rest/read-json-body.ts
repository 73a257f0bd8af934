// Reads a JSON request body with a size limit (also for bodies sent without Content-Length).
// The body must be labelled JSON, as the OpenAPI document says: anything else is 415 before it
// is read. v1 clients send application/json (axios and the SDK's users do for an object body);
// a text/plain or form body is what a cross-site form or a fetch() of a bare string sends.
import { bufferedBody } from './buffered-body.js';
import { fail } from './envelope.js';
import { RestFailure } from './execute.js';

/** application/json with any parameters (charset), in any letter case. */
const JSON_TYPE = /^application\/json\s*(;|$)/i;

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  if (!JSON_TYPE.test(request.headers.get('content-type') ?? '')) {
    throw new RestFailure(fail(415, 'The request body must be JSON sent as Content-Type: application/json', undefined, { Accept: 'application/json' }));
  }
  // Read already, within the limit, by the body guard (src/http/request-guards.ts).
  const guarded = bufferedBody(request);
  if (guarded) return parseJson(Buffer.from(guarded.buffer, guarded.byteOffset, guarded.byteLength).toString('utf8'));
  // Left unread by the guard: over HTTP with a declared length within the limit, which Node's
  // parser enforces; read it whole (the fetch adapter's own path, cheaper than a stream reader).
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isInteger(declared) && declared <= maxBytes && !request.headers.has('transfer-encoding')) {
    let text: string;
    try {
      text = await request.text();
    } catch {
      throw new RestFailure(fail(400, 'The request body could not be read'));
    }
    return parseJson(text);
  }
  const reader = request.body?.getReader();
  if (!reader) throw new RestFailure(fail(400, 'A JSON request body is required'));
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new RestFailure(fail(413, `Request body is over the ${maxBytes} byte limit`));
    }
    chunks.push(value);
  }
  return parseJson(Buffer.concat(chunks).toString('utf8'));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RestFailure(fail(400, 'The request body is not valid JSON'));
  }
}
