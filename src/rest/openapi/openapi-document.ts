// The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the handlers validate
// with (request-schemas.ts) and the response schemas (response-schemas.ts) by zod's own
// toJSONSchema (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Built once per process.
import * as z from 'zod';
import { API_PREFIX } from '../routes.js';
import { FailureEnvelope, okEnvelope } from '../response-schemas.js';
import { ROUTE_DOCS, type RouteDoc } from './route-docs.js';

type JsonSchema = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: `errors[]` lists every problem',
  401: 'A write key is required (X-Looks-Api-Key)',
  413: 'Request body too large',
  415: 'The body must be JSON',
  429: 'Rate limited: retry after `Retry-After` seconds',
  500: 'Internal error (never with internals)',
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

function operation(path: string, method: string, doc: RouteDoc, convert: ReturnType<typeof collector>['convert']) {
  const failures = [400, ...(doc.failures ?? []), 429, 500];
  return {
    operationId: `${method.toLowerCase()}${path.replace(/(^|[/-])(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    parameters: queryParameters(doc.query, convert),
    ...(doc.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: convert(doc.body.schema, 'input'), example: doc.body.example } } } }
      : {}),
    responses: {
      [doc.response.status]: {
        description: 'The v1 success envelope',
        content: {
          'application/json': {
            schema: convert(okEnvelope(doc.response.data), 'output'),
            example: { success: true, message: null, data: doc.response.example },
          },
        },
      },
      ...Object.fromEntries(
        failures.map((status) => [
          status,
          { description: STATUS_TEXT[status] ?? 'Failure', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } },
        ]),
      ),
    },
  };
}

export function buildOpenApiDocument(serverUrl = '/') {
  const { components, convert } = collector();
  components.Failure = convert(FailureEnvelope, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(ROUTE_DOCS)) {
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
        'The LooksRare v1 compatible REST layer: the v1 paths, parameters and JSON envelope. Every answer is `{success, message, data}`. Examples are answers on the demo marketplace (`npm start` seeds it).',
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: 'Orders' }, { name: 'Collections' }, { name: 'Indexer' }],
    paths,
    components: { schemas: components },
  };
}

let cached: string | undefined;
/** The document as JSON text (built on first use). */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}
