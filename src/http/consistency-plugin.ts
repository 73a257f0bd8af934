// The consistency stamp on what yoga answers (./consistency.ts): the mark is taken when an API
// request arrives; a GraphQL request that asks to wait (headers, or its body's extensions) waits
// before its document is parsed, and its mark is taken again then; the GraphQL result gets
// extensions.indexedBlock (and extensions.consistency when it waited), last after data and
// errors; every API response gets X-Indexed-Block unless it set it itself (REST handlers do, in
// the routes plugin, after their own wait). Subscriptions and event streams are left alone: their
// events name their blocks.
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { ServiceError } from '../domain/errors.js';
import { API_PREFIX } from '../rest/routes.js';
import { maskError } from '../schema/errors.js';
import type { Services } from '../services/index.js';
import { awaitConsistency, consistencyAsk, INDEXED_BLOCK_HEADER, consistencyExtensions, consistencyHeaders, withConsistencyText, type Consistency } from './consistency.js';
import { originalRequest } from './request-context.js';

type Stringified = ExecutionResult & { stringify?: (r: ExecutionResult) => string };

/** The result with the stamp's extensions last; a result that writes its own text (the read engine's) keeps doing so. */
function stamped(result: Stringified, c: Consistency): ExecutionResult {
  const ext = consistencyExtensions(c);
  if (!Object.keys(ext).length) return result;
  const own = result.stringify;
  if (own && !result.extensions && !result.errors) {
    return { get data() { return result.data; }, stringify: (r: ExecutionResult) => withConsistencyText(own(r), c) } as ExecutionResult;
  }
  return { ...result, extensions: { ...result.extensions, ...ext } };
}

export function useConsistency(opts: { services: Services; graphqlEndpoint: string }): Plugin {
  const { services } = opts;
  const states = new WeakMap<Request, Consistency>();
  return {
    onRequest({ request, url }) {
      const path = url.pathname;
      if (path === opts.graphqlEndpoint || path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
        states.set(originalRequest(request), { indexedBlock: services.indexedBlock.current(), asked: null });
      }
    },
    async onParams({ request, params, setResult }) {
      const key = originalRequest(request);
      if (!states.has(key)) return;
      try {
        const ask = consistencyAsk((name) => request.headers.get(name), params.extensions, services);
        if (ask) states.set(key, await awaitConsistency(ask, services));
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        setResult({ errors: [maskError(err, err.message) as never] });
      }
    },
    onResultProcess({ request, result, setResult }) {
      const c = states.get(originalRequest(request));
      if (!c || isAsyncIterable(result)) return;
      setResult(Array.isArray(result) ? result.map((r) => stamped(r, c)) : stamped(result, c));
    },
    onResponse({ request, response, setResponse }) {
      const c = states.get(originalRequest(request));
      if (!c || response.headers.has(INDEXED_BLOCK_HEADER) || (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return;
      const headers = Object.entries(consistencyHeaders(c));
      try {
        for (const [k, v] of headers) response.headers.set(k, v);
      } catch {
        // immutable headers (a response passed through from fetch): copy it
        const copy = new Response(response.body, response);
        for (const [k, v] of headers) copy.headers.set(k, v);
        setResponse(copy);
      }
    },
  };
}
