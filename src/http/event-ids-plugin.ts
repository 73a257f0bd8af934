// Event ids on the wire for subscriptions whose payloads are log events (Subscription.marketEvents,
// which declares how to read a payload's id: src/events/streamed-event-ids.ts): every result gets
// `extensions.eventId` (graphql-ws clients read it there), and over SSE the event carries it as
// `id:`, so a browser's EventSource, or any SSE client, sends it back as Last-Event-ID when it
// reconnects. Such a subscription's events are executed once per distinct request and shared
// (shared-event-execution.ts). yoga's own SSE writer has no `id:` field, which is why this one is
// written here: the same framing as yoga's (a first comment to flush the headers, a comment as
// keep-alive every 12 s, `event: next` per result, `event: complete` at the end).
import type { ExecutionArgs, ExecutionResult, GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { eventIdOf } from '../events/streamed-event-ids.js';
import { subscribeSharingExecution, subscriptionRootField } from './shared-event-execution.js';

const KEEP_ALIVE_MS = 12_000;

type FetchApi = { TextEncoder: typeof TextEncoder; ReadableStream: typeof ReadableStream; Response: typeof Response };

const isAsyncIterable = (v: unknown): v is AsyncIterable<ExecutionResult> => typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

/** What yoga writes of an error: without the HTTP-only extensions. */
function clientError(error: unknown): GraphQLFormattedError {
  if (!(error instanceof GraphQLError)) return error as GraphQLFormattedError;
  const { extensions, ...rest } = error.toJSON();
  const { http: _http, unexpected: _unexpected, ...kept } = (extensions ?? {}) as Record<string, unknown>;
  return Object.keys(kept).length ? { ...rest, extensions: kept } : rest;
}

function frame(result: ExecutionResult): string {
  const { http: _http, ...extensions } = (result.extensions ?? {}) as Record<string, unknown>;
  const body = { ...result, ...(result.errors ? { errors: result.errors.map(clientError) } : {}), extensions: Object.keys(extensions).length ? extensions : undefined };
  const id = extensions.eventId;
  return `${typeof id === 'string' ? `id: ${id}\n` : ''}event: next\ndata: ${JSON.stringify(body)}\n\n`;
}

function sseWithIds(result: AsyncIterable<ExecutionResult>, fetchAPI: FetchApi): Response {
  const encoder = new fetchAPI.TextEncoder();
  const iterator = result[Symbol.asyncIterator]();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(':\n\n'));
      keepAlive = setInterval(() => {
        if (controller.desiredSize === null) clearInterval(keepAlive);
        else if (controller.desiredSize > 0) controller.enqueue(encoder.encode(':\n\n'));
      }, KEEP_ALIVE_MS);
    },
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (value != null) controller.enqueue(encoder.encode(frame(value)));
        if (done) {
          controller.enqueue(encoder.encode('event: complete\ndata:\n\n'));
          clearInterval(keepAlive);
          controller.close();
        }
      } catch (err) {
        clearInterval(keepAlive);
        controller.error(err);
      }
    },
    async cancel(reason) {
      clearInterval(keepAlive);
      await iterator.return?.(reason);
    },
  });
  return new fetchAPI.Response(body, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream', Connection: 'keep-alive', 'Cache-Control': 'no-cache', 'Content-Encoding': 'none' },
  });
}

export function useEventIds(): Plugin {
  const streaming = new WeakSet<Request>();
  return {
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const context = args.contextValue as { request?: Request };
      if (context.request) streaming.add(context.request);
      const idOf = eventIdOf(subscriptionRootField(args as ExecutionArgs));
      if (idOf) setSubscribeFn((a) => subscribeSharingExecution(a as ExecutionArgs, idOf, subscribeFn as (a: ExecutionArgs) => unknown) as never);
    },
    onResultProcess({ request, result, setResultProcessor }) {
      // only a subscription's stream, and only when the client reads SSE (yoga chose it too)
      if (!streaming.has(request) || !isAsyncIterable(result)) return;
      if (!(request.headers.get('accept') ?? '').includes('text/event-stream')) return;
      setResultProcessor((r, fetchAPI) => sseWithIds(r as AsyncIterable<ExecutionResult>, fetchAPI as unknown as FetchApi), 'text/event-stream');
    },
  };
}
