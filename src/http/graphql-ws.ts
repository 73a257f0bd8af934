// GraphQL over WebSocket beside SSE, on the same path and port: the graphql-transport-ws protocol
// of graphql-ws, which Apollo Client's GraphQLWsLink and urql speak. Every operation runs through
// yoga's envelop pipeline (yoga.getEnveloped, the recipe of yoga's "Subscriptions" page), so the
// schema's complexity and depth limits, error masking, the read engine, the key guards and the
// validation rules apply exactly as over HTTP. What yoga does per HTTP request outside that
// pipeline is done here: the rate limit (per upgrade and per operation), the policies' onParams
// step (the persisted-operation list), the body-size limit (per message) and CORS_ORIGINS (per
// upgrade). Keys come from the upgrade's headers and, as browsers cannot set those, from the
// connection_init payload under the same header names. Queries and mutations carry the
// consistency stamp (extensions.indexedBlock, ./consistency.ts) as over HTTP, and may ask to wait
// through the operation's own `extensions` (minBlock, txHash, maxWaitMs: per operation, so the
// connection's headers do not ask it); subscriptions are left alone: their events name their blocks.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { Context as WsContext, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { isAsyncIterable, type GraphQLParams, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { maskError, RETRY_AFTER_SECONDS } from '../schema/errors.js';
import { awaitConsistency, consistencyAsk, withConsistencyExtensions, type Consistency } from './consistency.js';
import { graphqlPolicyPlugins } from './graphql-policy.js';
import type { RateLimitClient, RateLimiter } from './rate-limit.js';

/** Seconds between the server's ping frames; a socket that misses a pong for as long is dropped. */
const KEEP_ALIVE_MS = 12_000;
/** After the drain bound, how long a closing handshake may take before the socket is cut. */
const CLOSE_HANDSHAKE_MS = 1000;
/** 1001 (RFC 6455 7.4.1): the server is going away; graphql-ws clients reconnect, to another instance. */
const GOING_AWAY = 1001;

/** The app's yoga (src/yoga.ts, which sits above this file): its pipeline runs every operation. */
type Yoga = YogaServerInstance<{}, Context>;

export interface GraphqlWebSocketServer {
  /** the server's 'upgrade' listener: /graphql becomes a graphql-ws connection, anything else is refused */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Refuses new connections and operations at once, closes every socket with 1001 as soon as
   * nothing is in flight on it (subscriptions end through the event bus), and every remaining one
   * after `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<void>;
  /** sockets open now */
  connections(): number;
}

/** What an operation's execution needs beside its arguments: yoga's pipeline, and the stamp of a query or mutation (null: a subscription). */
type Root = { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown; consistency: Consistency | null };

const errorWith = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/** The error as yoga writes it in an HTTP answer: `http` (status, headers) is for HTTP only. */
function formatError(error: GraphQLError): GraphQLFormattedError {
  const { extensions, ...rest } = error.toJSON();
  const { http: _http, unexpected: _unexpected, ...kept } = (extensions ?? {}) as Record<string, unknown>;
  return Object.keys(kept).length ? { ...rest, extensions: kept } : rest;
}

/** Request headers for the socket's operations: the upgrade's, then the connection_init payload's (a `headers` object or top-level entries). */
function connectionHeaders(request: IncomingMessage, payload: Readonly<Record<string, unknown>> | undefined): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const nested = payload?.headers;
  const entries = [...Object.entries(payload ?? {}), ...(nested && typeof nested === 'object' ? Object.entries(nested) : [])];
  for (const [name, value] of entries) {
    if (typeof value !== 'string') continue;
    try {
      headers.set(name, value);
    } catch {
      // not a header name or value: a connection parameter of the client's own
    }
  }
  return headers;
}

function refuse(socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** `rateLimit` is the HTTP app's limiter (Running.rateLimit): one budget per client for both. */
export function createGraphqlWebSocketServer(yoga: Yoga, config: Config, logger: Logger, rateLimit: RateLimiter | null): GraphqlWebSocketServer {
  const log = logger.child({ component: 'graphql-ws' });
  const paramsHooks = graphqlPolicyPlugins(config).flatMap((p: Plugin) => (p.onParams ? [p.onParams] : []));
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxBodyBytes });
  const headersOf = new WeakMap<WebSocket, Headers>();
  const contexts = new Map<WebSocket, WsContext<Record<string, unknown>, Extra>>();
  let draining = false;

  const clientOf = (request: IncomingMessage, headers: Headers): RateLimitClient => ({
    apiKey: headers.get('x-looks-api-key'),
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: request.headers['x-forwarded-for']?.toString() ?? null,
  });

  /** The policies' onParams step (the persisted-operation list), as yoga runs it for HTTP. */
  async function applyParamsHooks(params: GraphQLParams, request: Request): Promise<GraphQLParams> {
    let current = params;
    for (const hook of paramsHooks) {
      await hook({
        params: current,
        request,
        setParams: (p: GraphQLParams) => (current = p),
        setResult: () => {},
        fetchAPI: yoga.fetchAPI,
        context: {},
      } as unknown as Parameters<typeof hook>[0]);
    }
    return current;
  }

  async function prepare(ctx: WsContext<Record<string, unknown>, Extra>, payload: SubscribePayload): Promise<ExecutionArgs | readonly GraphQLError[]> {
    if (draining) return [errorWith('The server is shutting down: reconnect and send the operation again', 'SERVICE_UNAVAILABLE')];
    const headers = headersOf.get(ctx.extra.socket) ?? new Headers();
    if (rateLimit) {
      const decision = await rateLimit.consume(clientOf(ctx.extra.request, headers));
      if (!decision.allowed) return [errorWith(`Too many requests: slow down and retry after ${decision.headers['Retry-After']} s`, 'RATE_LIMITED')];
    }
    const request = new yoga.fetchAPI.Request(`http://localhost${yoga.graphqlEndpoint}`, { method: 'POST', headers });
    try {
      const params = await applyParamsHooks({ query: payload.query, operationName: payload.operationName ?? undefined, variables: payload.variables ?? undefined, extensions: payload.extensions ?? undefined }, request);
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ request, params, req: ctx.extra.request, socket: ctx.extra.socket });
      const document = parse(params.query!);
      const errors = validate(schema, document);
      if (errors.length) return errors;
      const contextValue = await contextFactory();
      const { services } = contextValue;
      // the wait, then the stamp, before anything is read (a bad value is refused as over HTTP)
      const consistency =
        getOperationAST(document, params.operationName)?.operation === 'subscription'
          ? null
          : await awaitConsistency(consistencyAsk(() => null, params.extensions, services), services);
      const rootValue: Root = { execute, subscribe, consistency };
      return { schema, document, operationName: params.operationName, variableValues: params.variables, contextValue, rootValue };
    } catch (err) {
      // a syntax error or a policy's refusal, named and coded as over HTTP
      const masked = maskError(err, 'Unexpected error.');
      if (!(masked instanceof GraphQLError) || masked.extensions.code === 'INTERNAL') log.error({ err }, 'graphql-ws operation failed before execution');
      return [masked instanceof GraphQLError ? masked : errorWith('Unexpected error.', 'INTERNAL')];
    }
  }

  useServer<Record<string, unknown>>(
    {
      execute: async (args) => {
        const { execute, consistency } = args.rootValue as Root;
        const result = (await execute(args)) as ExecutionResult | AsyncIterable<ExecutionResult>;
        return (consistency && !isAsyncIterable(result) ? withConsistencyExtensions(result, consistency) : result) as never;
      },
      subscribe: (args) => (args.rootValue as Root).subscribe(args) as never,
      onConnect: (ctx) => {
        if (draining) return false;
        headersOf.set(ctx.extra.socket, connectionHeaders(ctx.extra.request, ctx.connectionParams));
        contexts.set(ctx.extra.socket, ctx);
        return true;
      },
      onSubscribe: (ctx, _id, payload) => prepare(ctx, payload),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors?.length ? { ...result, errors: result.errors.map(formatError) } : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(formatError),
    },
    wss,
    KEEP_ALIVE_MS,
  );

  const opened = new Map<WebSocket, number>();
  wss.on('connection', (socket) => {
    opened.set(socket, performance.now());
    socket.once('close', (code) => {
      const started = opened.get(socket) ?? performance.now();
      opened.delete(socket);
      contexts.delete(socket);
      log.debug({ code, ms: Math.round(performance.now() - started) }, 'graphql-ws connection closed');
    });
  });

  const idle = (socket: WebSocket) => {
    const ctx = contexts.get(socket);
    return !ctx || Object.keys(ctx.subscriptions).length === 0;
  };

  return {
    connections: () => wss.clients.size,
    handleUpgrade(req, socket, head) {
      socket.on('error', () => {}); // a client gone mid-handshake is not the server's fault
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== yoga.graphqlEndpoint) return refuse(socket, 404, 'NOT_FOUND', `No WebSocket endpoint at ${path}; GraphQL over WebSocket is at ${yoga.graphqlEndpoint}`);
      if (draining) return refuse(socket, 503, 'SERVICE_UNAVAILABLE', 'The server is shutting down', { 'Retry-After': String(RETRY_AFTER_SECONDS) });
      const origin = req.headers.origin;
      if (origin && config.corsOrigins && !config.corsOrigins.includes(origin)) return refuse(socket, 403, 'FORBIDDEN', `Origin ${origin} is not allowed`);
      void (async () => {
        if (rateLimit) {
          const decision = await rateLimit.consume(clientOf(req, connectionHeaders(req, undefined)));
          if (!decision.allowed) return refuse(socket, 429, 'RATE_LIMITED', 'Too many requests: slow down and retry after the time in Retry-After', decision.headers);
        }
        if (draining) return refuse(socket, 503, 'SERVICE_UNAVAILABLE', 'The server is shutting down', { 'Retry-After': String(RETRY_AFTER_SECONDS) });
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      })();
    },
    async drain(timeoutMs) {
      draining = true;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const socket of wss.clients) if (idle(socket) && socket.readyState === socket.OPEN) socket.close(GOING_AWAY, 'Server shutting down');
        if (wss.clients.size === 0 || Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const socket of wss.clients) if (socket.readyState === socket.OPEN) socket.close(GOING_AWAY, 'Server shutting down');
      const cutAt = Date.now() + CLOSE_HANDSHAKE_MS;
      while (wss.clients.size && Date.now() < cutAt) await new Promise((r) => setTimeout(r, 20));
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
