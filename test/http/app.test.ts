// The HTTP surface around the routes: health, readiness, metrics, body limit, rate limit, CORS,
// and that an unexpected failure is a masked 500 in the envelope (never a stack trace).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', MAX_BODY_BYTES: '2048', API_KEYS: ['a', 'b', 'c', 'd', 'e'].map((c) => `client-${c}-key:5`).join(',') });
});
afterAll(() => app?.close());

describe(`HTTP surface (${backendName})`, () => {
  it('serves /healthz, /readyz (database reachable) and /metrics', async () => {
    expect((await app.rest('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await app.rest('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    const metrics = await app.rest('/metrics');
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toContain('http_requests_total');
  });

  it('limits requests per client with RateLimit-* headers and a 429 envelope with Retry-After', async () => {
    const headers = { 'x-looks-api-key': 'client-a-key' };
    const first = await app.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40), { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('5');
    expect(first.headers.get('ratelimit-remaining')).toBe('4');
    for (let i = 0; i < 4; i++) await app.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40), { headers });
    const limited = await app.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40), { headers });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, data: null });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const gql = await app.gql('{ __typename }', {}, headers);
    expect(gql.status).toBe(429);
    // another client has its own budget
    expect((await app.rest('/api/v1/orders/nonce?address=0x' + '1'.repeat(40), { headers: { 'x-looks-api-key': 'client-b-key' } })).status).toBe(200);
  });

  it('refuses bodies over the size limit with 413', async () => {
    const big = JSON.stringify({ query: `{ __typename } # ${'x'.repeat(4096)}` });
    const res = await app.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(big.length), 'x-looks-api-key': 'client-c-key' },
      body: big,
    });
    expect(res.status).toBe(413);
  });

  it('masks unexpected failures: 500 envelope without internals', async () => {
    const broken = await startTestApp();
    try {
      await broken.testDb.db.close();
      const res = await broken.rest('/api/v1/collections?address=0x' + '1'.repeat(40));
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, message: 'Internal server error', data: null });
      const gql = await broken.gql('{ collection(address: "0x1111111111111111111111111111111111111111") { name } }');
      expect(gql.errors?.[0]?.message).toBe('Unexpected error.');
      expect(JSON.stringify(gql)).not.toMatch(/at .*\.ts|stack|prisma/i);
      const ready = await broken.rest('/readyz');
      expect(ready.status).toBe(503);
    } finally {
      await broken.close().catch(() => {});
    }
  });

  it('answers a GraphQL syntax error and a bad scalar as typed 400-class errors', async () => {
    const syntax = await app.gql('{ orders(', {}, { 'x-looks-api-key': 'client-d-key' });
    expect(syntax.errors?.[0]?.message).toMatch(/Syntax Error/);
    const scalar = await app.gql('{ collection(address: "0x12") { name } }', {}, { 'x-looks-api-key': 'client-d-key' });
    expect(scalar.errors?.[0]?.message).toMatch(/Invalid Address/);
    expect(scalar.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('rejects overly complex queries before running them', async () => {
    const fields = Array.from({ length: 10 }, (_, i) => `o${i}: orders(first: 150) { edges { node { hash collection { name stats { volumeAll } } } } }`).join(' ');
    const res = await app.gql(`{ ${fields} }`, {}, { 'x-looks-api-key': 'client-e-key' });
    expect(res.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });
});
