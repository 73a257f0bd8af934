// The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the handlers validate
// with (request-schemas.ts) and the response schemas (response-schemas.ts) by zod's own
// toJSONSchema (JSON Schema 2020-12, the dialect of OpenAPI 3.1). It is the contract:
// test/rest/openapi-contract.test.ts validates real answers of every route against it and
// test/rest/openapi-lint.test.ts lints it with Redocly's recommended rules.
import * as z from 'zod';
import { DEMO_API_KEY } from '../../demo/demo-api-key.js';
import type { Services } from '../../services/index.js';
import { API_PREFIX } from '../routes.js';
import { FailureEnvelope, okEnvelope } from '../response-schemas.js';
import { signOrderExamples, TEMPLATE_ORDER_EXAMPLES, type OrderExamples } from './order-examples.js';
import { routeDocs, type RouteDoc } from './route-docs.js';

type JsonSchema = Record<string, unknown>;

/** What each failure status means; every route answers 429, 500 and 503, the others per route. */
const FAILURES: Record<number, { description: string; retryAfter?: string }> = {
  400: { description: 'Bad request: `errors[]` lists every problem' },
  401: { description: 'A key is required: `X-Looks-Api-Key` is missing or not a key this route takes (order writes: `WRITE_API_KEYS`; webhooks: `API_KEYS` or `WRITE_API_KEYS`)' },
  403: {
    description:
      'This deployment has no API keys (`API_KEYS`, `WRITE_API_KEYS`), and webhooks belong to one: the operator must configure keys. ' +
      `(The demo has its own, \`${DEMO_API_KEY}\`.)`,
  },
  413: { description: 'Request body too large (`MAX_BODY_BYTES`)' },
  404: { description: 'Not found' },
  409: { description: 'The order cannot be filled now: `errors[0].code` is the reason (its status, NOT_STARTED, ...)' },
  415: { description: 'The body must be sent as `Content-Type: application/json`' },
  429: { description: 'Rate limited', retryAfter: 'seconds until the budget has room again' },
  500: { description: 'Internal error (never with internals)' },
  503: { description: 'The database is not answering: retry later', retryAfter: 'seconds to wait before retrying' },
};
const EVERY_ROUTE_FAILS_WITH = [429, 500, 503];

/**
 * Headers of every answer (docs/api.md, "Consistency"): the indexed block it reflects, absent
 * while nothing is indexed, and whether the wait a read asked for was met.
 */
const CONSISTENCY_HEADERS = {
  'X-Indexed-Block': {
    description: 'The indexed block this answer reflects: every chain event up to this block is in it. Absent while nothing is indexed',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Min-Block-Reached': {
    description:
      'Sent when the request asked to wait (`X-Min-Block`, `X-Wait-For-Tx`): `false` when the wait ran out (`X-Max-Wait-Ms`, `CONSISTENCY_MAX_WAIT_MS`) and the answer shows what was indexed then',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
};
const consistencyHeaderRefs = Object.fromEntries(Object.keys(CONSISTENCY_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * Request headers every route reads (docs/api.md, "Consistency"; src/http/consistency.ts): answer
 * only once a block or a transaction is indexed, waiting at most so long. Declared once as
 * components, each operation points to them.
 */
const CONSISTENCY_PARAMETERS = {
  MinBlock: {
    name: 'X-Min-Block',
    in: 'header',
    required: false,
    description: 'Answer only once this block is indexed (at most `X-Max-Wait-Ms`, then with what is indexed and `X-Min-Block-Reached: false`)',
    schema: { type: 'integer', minimum: 0 },
    example: 18000000,
  },
  WaitForTx: {
    name: 'X-Wait-For-Tx',
    in: 'header',
    required: false,
    description: "Answer only once the block of this transaction is indexed (needs the server's chain node, `RPC_URL`; else 400 `NO_CHAIN`)",
    schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
  },
  MaxWaitMs: {
    name: 'X-Max-Wait-Ms',
    in: 'header',
    required: false,
    description: 'How long the wait may last, in milliseconds; capped by the server (`CONSISTENCY_MAX_WAIT_MS`)',
    schema: { type: 'integer', minimum: 0 },
  },
};
const consistencyParameterRefs = Object.keys(CONSISTENCY_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` }));

const WRITE_KEY = 'writeKey';
const ADMIN_KEY = 'adminKey';

const SECURITY_SCHEMES = {
  [WRITE_KEY]: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Looks-Api-Key',
    description:
      'An API key. Order writes (POST /orders) need one of `WRITE_API_KEYS` when the deployment sets them; webhook routes need a known key, ' +
      'which owns the endpoints it registers; on reads a known key ' +
      '(`API_KEYS`, `WRITE_API_KEYS`) has its own rate-limit budget instead of the per-address one. ' +
      `The demo marketplace (\`npm start\` on the database it seeds) has the key \`${DEMO_API_KEY}\`, with which every example here works.`,
  },
  [ADMIN_KEY]: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      'The operator key (`ADMIN_API_KEY`) of the administration mutations of the GraphQL API (`POST /graphql`). No route of this REST API takes it.',
  },
};

/** Schemas named with meta({ id }) become components; references point there. */
function collector() {
  const components: Record<string, JsonSchema> = {};
  const convert = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    const relink = (s: unknown): any => JSON.parse(JSON.stringify(s).replaceAll('"#/$defs/', '"#/components/schemas/'));
    for (const [id, def] of Object.entries(defs)) components[id] = relink(def);
    // A schema that has an id itself comes back as a $ref to its own definition.
    return relink(json);
  };
  return { components, convert };
}

/** v1 clients send nested objects bracket style (`pagination[first]=5`) and lists as `status[]=A`. */
function queryParameters(query: z.ZodObject, convert: (s: z.ZodType, io: 'input') => JsonSchema) {
  const json = convert(query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => {
    const { description, example, ...rest } = schema as JsonSchema & { description?: string; example?: unknown };
    const required = json.required?.includes(name) ?? false;
    if (rest.type === 'object') return { name, in: 'query', required, description, style: 'deepObject', explode: true, schema: rest };
    if (rest.type === 'array') return { name: `${name}[]`, in: 'query', required, description, style: 'form', explode: true, schema: rest, ...(example ? { example } : {}) };
    return { name, in: 'query', required, description, schema: rest, ...(example !== undefined ? { example } : {}) };
  });
}

function failureResponse(status: number) {
  const { description, retryAfter } = FAILURES[status]!;
  return {
    description,
    headers: { ...(retryAfter ? { 'Retry-After': { description: retryAfter, required: true, schema: { type: 'integer', minimum: 0 } } } : {}), ...consistencyHeaderRefs },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
  };
}

function operation(path: string, method: string, doc: RouteDoc, convert: ReturnType<typeof collector>['convert']) {
  const failures = [...doc.failures, ...EVERY_ROUTE_FAILS_WITH];
  return {
    operationId: `${method.toLowerCase()}${path.replace(/(^|[/-])(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    // the key first: a client that has one should send it
    ...(doc.writeKey ? { security: [{ [WRITE_KEY]: [] }, {}] } : doc.apiKey ? { security: [{ [WRITE_KEY]: [] }] } : {}),
    ...(doc.requiresChain ? { 'x-requires-chain': true } : {}),
    parameters: [...queryParameters(doc.query, convert), ...consistencyParameterRefs],
    ...(doc.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: convert(doc.body.schema, 'input'), example: doc.body.example } } } }
      : {}),
    responses: {
      [doc.response.status]: {
        description: 'The v1 success envelope',
        headers: consistencyHeaderRefs,
        content: {
          'application/json': {
            schema: convert(okEnvelope(doc.response.data), 'output'),
            example: { success: true, message: null, data: doc.response.example },
          },
        },
      },
      ...Object.fromEntries(failures.map((status) => [status, failureResponse(status)])),
    },
  };
}

/** The document, with the given order examples (the served one signs fresh ones). */
export function buildOpenApiDocument(orderExamples: OrderExamples = TEMPLATE_ORDER_EXAMPLES) {
  const { components, convert } = collector();
  convert(FailureEnvelope, 'output'); // registers the Failure component the failure responses point to
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(routeDocs(orderExamples))) {
    for (const [method, doc] of Object.entries(methods)) {
      (paths[`${API_PREFIX}${path}`] ??= {})[method.toLowerCase()] = operation(path, method, doc!, convert);
    }
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Marketplace REST API v1',
      version: '1.0.0',
      description:
        'The LooksRare v1 compatible REST layer: the v1 paths, parameters and JSON envelope. Every answer is `{success, message, data}`. ' +
        `Examples are answers on the demo marketplace (\`npm start\` seeds it; its API key, for the webhook routes, is \`${DEMO_API_KEY}\`). ` +
        'Every answer names the indexed block it reflects (`X-Indexed-Block`); a request may ask to be answered once a block or a transaction is indexed ' +
        '(the `X-Min-Block`, `X-Wait-For-Tx` and `X-Max-Wait-Ms` headers of every operation; docs/api.md, "Consistency").',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Orders', description: 'The order book: list, submit and check signed maker orders, next nonces' },
      { name: 'Collections', description: 'Collections, their statistics and listing rewards' },
      { name: 'Indexer', description: 'Where the chain indexer is' },
      { name: 'Webhooks', description: 'Signed webhooks of the market event log, per API key' },
    ],
    // Reads take no key; one, when sent, selects its own rate-limit budget.
    security: [{}, { [WRITE_KEY]: [] }],
    paths,
    components: { schemas: components, parameters: CONSISTENCY_PARAMETERS, headers: CONSISTENCY_HEADERS, securitySchemes: SECURITY_SCHEMES },
  };
}

/** A served document is built at most this often (a fresh signature, a nonce read, ~10 ms of schema conversion). */
const SERVED_TTL_MS = 1000;
const served = new WeakMap<Services, { at: number; json: Promise<string> }>();

/** The document as served: its POST examples signed now, so they work when tried. */
export function servedOpenApiJson(services: Services): Promise<string> {
  const at = Date.now();
  const last = served.get(services);
  if (last && at - last.at < SERVED_TTL_MS) return last.json;
  // without the database (no nonce to sign at) the document is still served, with the template
  const json = signOrderExamples(services)
    .catch(() => TEMPLATE_ORDER_EXAMPLES)
    .then((ex) => JSON.stringify(buildOpenApiDocument(ex)));
  served.set(services, { at, json });
  return json;
}
