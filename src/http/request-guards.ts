// Refusals that happen before any route runs, as one yoga plugin placed first:
// - one body limit (MAX_BODY_BYTES) for every REST and GraphQL request and every transfer
//   encoding: the body is read here, counted while it arrives, and handed on as a buffer; past the
//   limit the answer is 413 with `Connection: close`, so a client never reuses a connection whose
//   request body was left half read;
// - GraphQL POSTs only as JSON: text/plain, form and multipart bodies are what a cross-site form or
//   a "simple" CORS request can send without a preflight (CSRF), so they get 415;
// - a path nothing serves gets the 404 envelope instead of an empty answer.
import type { Plugin } from 'graphql-yoga';
import { noteBufferedBody } from '../rest/buffered-body.js';
import { fail, toResponse } from '../rest/envelope.js';
import { noteReplacedRequest } from './request-context.js';

export interface RequestGuardOptions {
  maxBodyBytes: number;
  graphqlEndpoint: string;
  apiPrefix: string;
}

const GRAPHQL_JSON = /^application\/(json|graphql-response\+json|graphql\+json)\s*(;|$)/i;

function graphqlError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** The body as bytes, or null once it passes maxBytes (the rest is not read). */
export async function readLimited(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

export function useRequestGuards(opts: RequestGuardOptions): Plugin {
  return {
    async onRequest({ request, url, setRequest, endResponse, fetchAPI, serverContext }) {
      const path = url.pathname;
      const isRest = path === opts.apiPrefix || path.startsWith(`${opts.apiPrefix}/`);
      const isGraphql = path === opts.graphqlEndpoint;
      if (!isRest && !isGraphql) return;
      const refuse = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
        endResponse(isRest ? toResponse(fail(status, message, undefined, headers)) : graphqlError(status, code, message, headers));

      const method = request.method.toUpperCase();
      if (isGraphql && method === 'POST') {
        const type = request.headers.get('content-type') ?? '';
        if (!GRAPHQL_JSON.test(type)) {
          return refuse(415, 'UNSUPPORTED_MEDIA_TYPE', 'GraphQL POST requests must be sent as application/json', { Accept: 'application/json' });
        }
      }
      if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || !request.body) return;

      const tooLarge = `Request body is over the ${opts.maxBodyBytes} byte limit`;
      // Close: the unread rest of the body must not be taken for the next request.
      const close = { Connection: 'close' };
      const declared = Number(request.headers.get('content-length') ?? NaN);
      if (declared > opts.maxBodyBytes) return refuse(413, 'PAYLOAD_TOO_LARGE', tooLarge, close);
      // Over HTTP, a declared length within the limit bounds the body already: Node's parser
      // reads exactly that many bytes as this request's body (and refuses one that also declares
      // a transfer encoding). Only a chunked body needs counting and buffering here; so does
      // any request handed to yoga.fetch directly, where nothing enforced the header.
      const overHttp = (serverContext as { req?: { socket?: unknown } } | undefined)?.req?.socket !== undefined;
      if (overHttp && Number.isInteger(declared) && declared >= 0 && !request.headers.has('transfer-encoding')) return;
      let bytes: Uint8Array | null;
      try {
        bytes = await readLimited(request.body, opts.maxBodyBytes);
      } catch {
        // the client went away or sent a broken chunked encoding
        return refuse(400, 'BAD_REQUEST', 'The request body could not be read', close);
      }
      if (bytes === null) return refuse(413, 'PAYLOAD_TOO_LARGE', tooLarge, close);
      const headers = new fetchAPI.Headers(request.headers);
      headers.delete('transfer-encoding');
      headers.set('content-length', String(bytes.byteLength));
      const buffered = new fetchAPI.Request(request.url, { method: request.method, headers, body: bytes as BodyInit, signal: request.signal });
      noteReplacedRequest(request, buffered);
      noteBufferedBody(buffered, bytes);
      setRequest(buffered);
    },
    onResponse({ request, response, setResponse }) {
      if (response.status < 400 || response.headers.get('content-type')) return;
      const path = new URL(request.url).pathname;
      if (path === opts.graphqlEndpoint) {
        // yoga answers a subscription asked for as plain JSON (406) and a few others with no body
        const code = response.status === 406 ? 'NOT_ACCEPTABLE' : response.status === 405 ? 'METHOD_NOT_ALLOWED' : 'BAD_REQUEST';
        const message = response.status === 406 ? 'This operation needs Accept: text/event-stream (subscriptions are streamed)' : `Request refused (${response.status})`;
        const headers: Record<string, string> = {};
        response.headers.forEach((v, k) => (headers[k] = v));
        setResponse(graphqlError(response.status, code, message, headers));
      } else if (response.status === 404) {
        // yoga's own answer for a path nothing serves is an empty 404
        setResponse(toResponse(fail(404, `No route ${request.method} ${path}`)));
      }
    },
  };
}
