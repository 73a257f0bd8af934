// GraphQL over HTTP: the graphql-http audit (the spec's reference suite) against the listening
// server, every MUST and every SHOULD; and the status a client gets for each kind of error under
// each media type (docs/graphql-over-http.md).
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type ListeningApp } from '../helpers/listening-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
let server: ListeningApp;
beforeAll(async () => {
  app = await startTestApp();
  server = await listen(app);
});
afterAll(async () => {
  await server?.close();
  await app?.close();
});

const JSON_TYPE = 'application/json';
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

async function post(accept: string | null, body: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (accept) headers.accept = accept;
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] } };
}

describe(`GraphQL over HTTP (${backendName})`, () => {
  it('passes every MUST and SHOULD of the graphql-http audit', async () => {
    const results = await Promise.all(serverAudits({ url: `${server.url}/graphql` }).map((audit) => audit.fn()));
    const count = (req: string) => {
      const of = results.filter((r) => r.name.startsWith(`${req} `));
      return `${req} ${of.filter((r) => r.status === 'ok').length}/${of.length}`;
    };
    console.log(`graphql-http audit: ${count('MUST')}, ${count('SHOULD')}, ${count('MAY')} passed`);
    const failed = results.filter((r) => r.status !== 'ok' && !r.name.startsWith('MAY ')).map((r) => `${r.name}: ${'reason' in r ? r.reason : ''}`);
    expect(failed).toEqual([]);
    expect(results.filter((r) => r.name.startsWith('MUST ')).length).toBeGreaterThan(10);
  });

  const cases: [string, string, string][] = [
    ['a document that does not parse', JSON.stringify({ query: '{ orders(' }), 'GRAPHQL_PARSE_FAILED'],
    ['a document that does not validate', JSON.stringify({ query: '{ nope }' }), 'GRAPHQL_VALIDATION_FAILED'],
    ['a variable of the wrong type', JSON.stringify({ query: 'query($n: Int) { orders(first: $n) { totalCount } }', variables: { n: 'x' } }), 'BAD_USER_INPUT'],
    ['a required variable missing', JSON.stringify({ query: 'query($a: Address!) { collection(address: $a) { name } }', variables: {} }), 'BAD_REQUEST'],
  ];
  it.each(cases)('%s: 200 under application/json and without Accept, 400 under application/graphql-response+json', async (_name, body, code) => {
    for (const [accept, status, type] of [
      [JSON_TYPE, 200, JSON_TYPE],
      [null, 200, JSON_TYPE],
      [GRAPHQL_RESPONSE, 400, GRAPHQL_RESPONSE],
    ] as const) {
      const r = await post(accept, body);
      expect([accept, r.status, r.type]).toEqual([accept, status, `${type}; charset=utf-8`]);
      expect(r.body).not.toHaveProperty('data');
      expect(r.body.errors?.[0]?.extensions?.code).toBe(code);
    }
    // yoga's parse and validation caches answer the same document the second time: the same status
    expect((await post(JSON_TYPE, body)).status).toBe(200);
  });

  it('an error in execution keeps the status of its code under both media types; a malformed request is 400 under both', async () => {
    const range = JSON.stringify({ query: '{ orders(first: 1000) { totalCount } }' });
    for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE]) {
      const r = await post(accept, range);
      expect([accept, r.status, r.body.errors?.[0]?.extensions?.code]).toEqual([accept, 400, 'BAD_REQUEST']);
      expect(r.body).toHaveProperty('data');
      expect((await post(accept, '{"query": ')).status).toBe(400);
      expect((await post(accept, '{}')).status).toBe(400);
      expect((await post(accept, JSON.stringify({ query: '{ __typename }' }))).status).toBe(200);
    }
  });
});
