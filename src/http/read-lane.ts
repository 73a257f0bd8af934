// The read lane: the reads clients send all day are answered on node:http directly, without
// yoga building a fetch Request and Response and running its plugin hooks for them:
// - a GraphQL POST with a root field the read engine plans (parsed and validated once per text;
//   the other root fields run through graphql-js's executor beside the engine's statement);
// - a GET of a REST route (the v1 reads: orders, nonce, collections, stats, rewards, status).
// The answer is the same bytes with the same status and headers (the media type by Accept, CORS,
// the rate limit's headers, X-Request-Id, the consistency stamp of ./consistency.ts, after the
// wait a read asks for), the same access line and the same metrics;
// test/http/read-lane.test.ts holds it equal to yoga's.
//
// Everything else goes to yoga as it arrived, and so does every request the lane cannot finish:
// a document it has not admitted, a body that is not plain JSON, request extensions other than a
// consistency wait's, a bad value of a wait (yoga writes the error), an answer the engine declines
// (the executor answers and raises the errors), a refusal of the rate limit (yoga writes the 429).
// When the lane has read the body it hands it on as `req.body` (@whatwg-node/server takes a body
// a framework already read), and the rate limit's decision rides along so it is charged once.
//
// A document is admitted once per text: it parses, passes the same validation rules as yoga's
// (the specified rules and the policy's, src/http/graphql-policy.ts), and the engine plans a
// root field of it. With persisted operations configured, or READ_ENGINE=false, GraphQL is left
// to yoga: its plugins decide.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import { getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from 'graphql';
import type { Counter, Histogram, Registry } from 'prom-client';
import { createContext, type Context } from '../context.js';
import type { Logger } from '../logger.js';
import { answerWithEngine, plansSomeRoot } from '../read-engine/read-engine.js';
import { findNulCharacter } from '../domain/nul-character.js';
import { enterRequest, requestIdFrom } from '../request-id.js';
import type { Services } from '../services/index.js';
import { logAccess, REQUEST_ID_HEADER } from './access-log-plugin.js';
import { parseQueryString } from '../rest/query-string.js';
import { API_PREFIX, routeFor } from '../rest/routes.js';
import { awaitConsistency, CONSISTENCY_EXTENSIONS, consistencyAsk, consistencyHeaders, withConsistencyText, type ConsistencyAsk } from './consistency.js';
import type { Metrics } from './metrics.js';
import { noteRateDecision, rateDecisionTaken, rateLimitClient, type RateLimiter } from './rate-limit.js';
import { runRestWithConsistency } from './routes-plugin.js';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ReadLaneOptions {
  schema: GraphQLSchema;
  services: Services;
  logger: Logger;
  /** yoga's node handler: everything the lane does not answer */
  yoga: NodeHandler;
  graphqlEndpoint: string;
  maxBodyBytes: number;
  /** yoga's validation rules besides the specified ones */
  validationRules: readonly ValidationRule[];
  /** the CORS options given to yoga */
  cors: Parameters<typeof getCORSHeadersByRequestAndOptions>[1];
  rateLimit: RateLimiter | null;
  /** the registry yoga's Prometheus plugin writes to */
  registry: Registry;
  /** the REST routes' metrics (src/http/metrics.ts) */
  httpMetrics: Metrics;
  /** false: every GraphQL request goes to yoga (REST reads still take the lane) */
  graphql: boolean;
}

/** Documents admitted per text; a text the lane refused is remembered too (false). */
const MAX_ADMITTED = 500;
/** Longer documents are left to yoga (its own parse cache) rather than kept here. */
const MAX_TEXT = 16 * 1024;
const JSON_BODY = /^application\/(json|graphql-response\+json|graphql\+json)\s*(;|$)/i;

interface Admitted {
  document: DocumentNode;
  /** the first definition (the envelop metrics' labels come from it) */
  first: OperationDefinitionNode;
}

/** The media type yoga's result processors would pick for a single result, or null (not JSON). */
export function responseMediaType(accept: string | undefined): 'application/json' | 'application/graphql-response+json' | null {
  // yoga (result-processor/accept.js): the Accept list's types (utf-8 only) in reverse order,
  // each matched against SSE, multipart and the two JSON types; the last match wins.
  const types: string[] = [];
  for (const part of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = part.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset === 'charset=utf-8' && type !== undefined) types.push(type);
  }
  types.reverse();
  const processors = [['text/event-stream'], ['multipart/mixed'], ['application/graphql-response+json', 'application/json']];
  let chosen: string | null = null;
  for (const group of processors) {
    for (const type of types) {
      const [pre, suf] = type.split('/');
      for (const processor of group) {
        const [p, s] = processor.split('/');
        if ((pre === '*' || pre === p) && (suf === '*' || suf === s)) chosen = processor;
      }
    }
  }
  return chosen === 'application/json' || chosen === 'application/graphql-response+json' ? chosen : null;
}

export function createReadLane(opts: ReadLaneOptions): NodeHandler {
  const admitted = new Map<string, Admitted | false>();
  const rules = [...specifiedRules, ...opts.validationRules];
  let metrics: { requests?: Counter; duration?: Histogram; http?: Histogram } | undefined;

  function admit(text: string): Admitted | false {
    let entry = admitted.get(text);
    if (entry !== undefined) return entry;
    entry = false;
    try {
      const document = parse(text);
      if (!validate(opts.schema, document, rules).length && plansSomeRoot(document)) {
        entry = { document, first: document.definitions[0] as OperationDefinitionNode };
      }
    } catch {
      // a syntax error: yoga answers it
    }
    if (admitted.size >= MAX_ADMITTED) admitted.delete(admitted.keys().next().value!);
    admitted.set(text, entry);
    return entry;
  }

  function observe(req: IncomingMessage, entry: Admitted, operationName: string | undefined, status: number, startedMs: number, engineMs: number) {
    metrics ??= {
      requests: opts.registry.getSingleMetric('graphql_envelop_request') as Counter | undefined,
      duration: opts.registry.getSingleMetric('graphql_envelop_request_duration') as Histogram | undefined,
      http: opts.registry.getSingleMetric('graphql_yoga_http_duration') as Histogram | undefined,
    };
    // the labels @envelop/prometheus and @graphql-yoga/plugin-prometheus give the same request
    const envelop = { operationName: operationName || entry.first.name?.value || 'Anonymous', operationType: entry.first.operation };
    metrics.requests?.inc(envelop);
    metrics.duration?.observe(envelop, engineMs / 1000);
    const operation = getOperationAST(entry.document, operationName);
    metrics.http?.observe({ method: req.method!, statusCode: status, operationType: operation?.operation ?? 'unknown', operationName: operation?.name?.value || 'Anonymous' }, (Date.now() - startedMs) / 1000);
  }

  async function serve(req: IncomingMessage, res: ServerResponse, body: Buffer, mediaType: string, started: number, startedMs: number): Promise<void> {
    // from here on yoga can take the request over at any point: it reads this body
    (req as IncomingMessage & { body?: Buffer }).body = body;
    const toYoga = () => opts.yoga(req, res);
    let params: { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown };
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return toYoga();
    }
    const { query, variables, operationName, extensions } = params ?? {};
    if (typeof query !== 'string' || query.length > MAX_TEXT || !onlyConsistency(extensions)) return toYoga();
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return toYoga();
    if (operationName != null && typeof operationName !== 'string') return toYoga();
    // U+0000 in a string input: yoga refuses it, naming the place (src/http/nul-refusal-plugin.ts)
    if (query.includes('\\u0000') || findNulCharacter(variables ?? {}, '')) return toYoga();
    const entry = admit(query);
    if (!entry) return toYoga();

    const id = requestIdFrom(header(req, REQUEST_ID_HEADER));
    // yoga keeps the same id if it answers after all
    req.headers[REQUEST_ID_HEADER] = id;
    enterRequest(id);
    const headers: Record<string, string> = { 'Content-Type': `${mediaType}; charset=utf-8` };
    // yoga answers a refusal (the 429 is written in one place); like yoga's answer, an allowed
    // GraphQL request carries no RateLimit headers
    if (!(await charge(req))) return toYoga();
    let ask: ConsistencyAsk | null;
    try {
      ask = consistencyAsk((name) => header(req, name), extensions, opts.services);
    } catch {
      return toYoga(); // a bad value: yoga answers the error
    }
    // the wait asked for, then the stamp: before the engine reads
    const stamp = await awaitConsistency(ask, opts.services);
    const ctx: Context = createContext(opts.services, lazyHeaders(req));
    const engineStarted = performance.now();
    let text: string | null;
    try {
      text = await answerWithEngine({ schema: opts.schema, document: entry.document, variableValues: (variables ?? {}) as Record<string, unknown>, operationName: operationName as string | undefined, contextValue: ctx });
    } catch {
      text = null;
    }
    if (text === null) return toYoga();
    text = withConsistencyText(text, stamp);
    const engineMs = performance.now() - engineStarted;
    // the names as yoga's fetch Headers write them (lower case), in its order
    headers['content-length'] = String(Buffer.byteLength(text));
    for (const [k, v] of Object.entries(corsHeaders(req))) headers[k.toLowerCase()] = v;
    headers[REQUEST_ID_HEADER] = id;
    Object.assign(headers, consistencyHeaders(stamp));
    res.writeHead(200, headers);
    res.end(text);
    observe(req, entry, operationName as string | undefined, 200, startedMs, engineMs);
    logAccess(opts.logger, { id, method: 'POST', path: opts.graphqlEndpoint, status: 200, started, operationName: operationName as string | undefined });
  }

  /** Charges the rate limit; false: refused (yoga answers the 429 with the decision). */
  async function charge(req: IncomingMessage): Promise<boolean> {
    if (!opts.rateLimit) return true;
    const decision = await opts.rateLimit.consume(rateLimitClient(nodeHeaders(req), req.socket?.remoteAddress));
    noteRateDecision(req, decision);
    return decision.allowed;
  }

  /** A REST read (GET of a route that has one): its handler, as the routes plugin runs it. */
  async function serveRestRead(req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void> {
    const started = performance.now();
    const handler = routeFor(path)?.GET;
    if (!handler) return opts.yoga(req, res);
    const id = requestIdFrom(header(req, REQUEST_ID_HEADER));
    req.headers[REQUEST_ID_HEADER] = id;
    enterRequest(id);
    if (!(await charge(req))) return opts.yoga(req, res);
    const ctx = createContext(opts.services, lazyHeaders(req));
    const response = await runRestWithConsistency(opts.services, (name) => header(req, name), () => handler(parseQueryString(search), ctx), path, opts.logger);
    const text = response.body;
    // the headers yoga's answer has: the handler's, the rate limit's, CORS, the request id; by name
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(response.headers)) headers[k.toLowerCase()] = v;
    for (const [k, v] of Object.entries(rateDecisionTaken(req)?.headers ?? {})) headers[k.toLowerCase()] = v;
    for (const [k, v] of Object.entries(corsHeaders(req))) headers[k.toLowerCase()] = v;
    headers[REQUEST_ID_HEADER] = id;
    headers['content-length'] = String(Buffer.byteLength(text));
    res.writeHead(response.status, '', Object.fromEntries(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1))));
    res.end(text);
    opts.httpMetrics.observe(path, 'GET', response.status, (performance.now() - started) / 1000);
    logAccess(opts.logger, { id, method: 'GET', path, status: response.status, started });
  }

  function corsHeaders(req: IncomingMessage): Record<string, string> {
    return getCORSHeadersByRequestAndOptions({ headers: nodeHeaders(req) } as unknown as Request, opts.cors) ?? {};
  }

  return function readLane(req, res) {
    const h = req.headers;
    if (req.method === 'GET' && h.upgrade === undefined && req.url?.startsWith(API_PREFIX)) {
      const q = req.url.indexOf('?');
      const path = q < 0 ? req.url : req.url.slice(0, q);
      if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
        serveRestRead(req, res, path, q < 0 ? '' : req.url.slice(q)).catch((err: unknown) => {
          opts.logger.error({ err }, 'read lane failed');
          if (!res.headersSent) opts.yoga(req, res);
        });
        return;
      }
    }
    const length = Number(h['content-length']);
    const mediaType = opts.graphql && req.method === 'POST' && req.url === opts.graphqlEndpoint ? responseMediaType(h.accept) : null;
    if (
      mediaType === null ||
      h.upgrade !== undefined ||
      h['transfer-encoding'] !== undefined ||
      !Number.isInteger(length) ||
      length <= 0 ||
      length > opts.maxBodyBytes ||
      !JSON_BODY.test(h['content-type'] ?? '')
    ) {
      return opts.yoga(req, res);
    }
    const started = performance.now();
    const startedMs = Date.now();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      serve(req, res, body, mediaType, started, startedMs).catch((err: unknown) => {
        opts.logger.error({ err }, 'read lane failed');
        if (!res.headersSent) opts.yoga(req, res);
      });
    });
  };
}

/** No request extensions, or only those of a consistency wait (anything else is yoga's: persisted operations). */
function onlyConsistency(extensions: unknown): boolean {
  if (extensions == null) return true;
  return typeof extensions === 'object' && !Array.isArray(extensions) && Object.keys(extensions).every((k) => CONSISTENCY_EXTENSIONS.has(k));
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** The little of the fetch Headers API the CORS helper and the rate limiter read. */
function nodeHeaders(req: IncomingMessage): { get(name: string): string | null } {
  return { get: (name: string) => header(req, name.toLowerCase()) };
}

/** A fetch Headers for the context, built only if something reads it (the write-key guards). */
function lazyHeaders(req: IncomingMessage): Headers {
  let built: Headers | undefined;
  const get = () => (built ??= new Headers(Object.entries(req.headers).flatMap(([k, v]) => (v === undefined ? [] : Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]))));
  return new Proxy({} as Headers, {
    get(_t, prop) {
      const h = get();
      const value = Reflect.get(h, prop, h);
      return typeof value === 'function' ? value.bind(h) : value;
    },
  });
}
