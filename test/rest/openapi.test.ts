// The OpenAPI document of /api/v1: a valid OpenAPI 3.1 document (checked by an OpenAPI schema
// validator), covering exactly the routes of the routes table, generated from the schemas the
// handlers validate with, with examples that are real demo answers of the current code.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/rest/routes.js';
import { buildOpenApiDocument } from '../../src/rest/openapi/openapi-document.js';
import examples from '../../src/rest/openapi/examples.json' with { type: 'json' };
import { ROUTE_DOCS } from '../../src/rest/openapi/route-docs.js';
import { OrdersQuery } from '../../src/rest/request-schemas.js';
import { parseMakerOrderInput } from '../../src/domain/maker-order-input.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const pairs = (table: Record<string, Partial<Record<string, unknown>>>) =>
  Object.entries(table).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`)).sort();

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument();

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every route of the routes table and nothing else', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace('/api/v1', '')}`)).sort();
    expect(documented).toEqual(pairs(ROUTES));
    expect(pairs(ROUTE_DOCS)).toEqual(pairs(ROUTES));
  });

  it('takes its parameters from the schema GET /orders validates with', () => {
    const params = (doc.paths['/api/v1/orders']!.get as { parameters: { name: string; in?: string; schema: { enum?: string[] } }[] }).parameters.filter((p) => p.in === 'query');
    expect(params.map((p) => p.name)).toEqual(Object.keys(OrdersQuery.shape).map((k) => (k === 'status' ? 'status[]' : k)));
    const sort = params.find((p) => p.name === 'sort')!;
    expect(sort.schema.enum).toEqual(['EXPIRING_SOON', 'NEWEST', 'PRICE_ASC', 'PRICE_DESC']);
  });

  it('declares the consistency headers once and every operation takes them, and answers X-Indexed-Block', () => {
    const declared = doc.components.parameters as Record<string, { name: string; in: string }>;
    expect(Object.values(declared).map((p) => `${p.in} ${p.name}`).sort()).toEqual(['header X-Max-Wait-Ms', 'header X-Min-Block', 'header X-Wait-For-Tx']);
    const refs = Object.keys(declared).map((name) => ({ $ref: `#/components/parameters/${name}` }));
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops as Record<string, { parameters: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> }>)) {
        expect(op.parameters, `${method} ${path}`).toEqual(expect.arrayContaining(refs));
        for (const [status, response] of Object.entries(op.responses)) {
          expect(response.headers?.['X-Indexed-Block'], `${method} ${path} ${status}`).toEqual({ $ref: '#/components/headers/X-Indexed-Block' });
        }
      }
    }
  });

  it('has examples that match the response schemas (real demo answers of this code)', () => {
    for (const [path, methods] of Object.entries(ROUTE_DOCS)) {
      for (const [method, d] of Object.entries(methods)) {
        const parsed = d!.response.data.safeParse(d!.response.example);
        expect(parsed.success, `${method} ${path}: ${parsed.error?.message}`).toBe(true);
        if (d!.body) expect(d!.body.schema.safeParse(d!.body.example).success, `${method} ${path} body`).toBe(true);
      }
    }
    // the body example is accepted by the body parser that guards POST /orders
    expect(parseMakerOrderInput(examples.makerOrder).ok).toBe(true);
  });
});

describe('served documents', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('serves the document, the reference page and its assets from this process', async () => {
    const json = await app.rest('/api/v1/openapi.json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toBe('3.1.1');
    const page = await app.rest('/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const scripts = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(1);
    for (const src of scripts) {
      expect(src.startsWith('/api/v1/docs/'), `${src} is served locally`).toBe(true);
      expect((await app.rest(src)).status).toBe(200);
    }
    expect((await app.rest('/api/v1/docs/package.json')).status).toBe(404);
  });

  it('validates GET /orders with the documented schema: every problem, codes and bracket names as before', async () => {
    const res = await app.rest('/api/v1/orders?pagination[first]=151&status[]=OPEN&status[]=VALID&collection=0x12');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'collection', code: 'INVALID_ADDRESS', message: 'must be an address: 0x followed by 40 hexadecimal digits' },
      { field: 'status', code: 'INVALID_STATUS', message: expect.stringContaining('unknown status "OPEN"') },
      { field: 'pagination[first]', code: 'INVALID_PAGE_SIZE', message: 'must be a whole number from 1 to 150' },
    ]);
    // URL-encoded JSON objects (axios clients) with numbers pass the same schema
    const json = await app.rest(`/api/v1/orders?pagination=${encodeURIComponent('{"first":150}')}&price=${encodeURIComponent('{"min":1}')}`);
    expect(json.status).toBe(200);
    // an empty value is no filter
    expect((await app.rest('/api/v1/orders?collection=&signer=')).status).toBe(200);
  });
});
