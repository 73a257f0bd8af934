// Operators: one structured access line per request with a request id (returned, accepted from
// X-Request-Id when sane), client mistakes at warn and never at error, a server fault at error
// with its stack, and /metrics counting GraphQL operations by outcome, submissions by code and
// (on PostgreSQL) the connection pool.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { requestLogFields } from '../../src/request-id.js';
import examples from '../../src/rest/openapi/examples.json' with { type: 'json' };
import { backendName, openTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-database.js';

type Line = Record<string, any>;
const lines: Line[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
    done();
  },
});
const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 };

let testDb: TestDatabase;
let running: Running;
beforeAll(async () => {
  testDb = await openTestDatabase();
  const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'debug', SIGNATURE_WORKERS: '0' });
  const logger = pino({ level: 'debug', base: undefined, mixin: requestLogFields }, sink);
  running = await boot(config, logger, { db: testDb.db, indexer: false });
});
afterAll(async () => {
  await running?.close();
  await testDb?.close();
});

const fetchApp = (path: string, init: RequestInit = {}) => running.yoga.fetch(`http://test${path}`, init);
const gql = (body: unknown, headers: Record<string, string> = {}) =>
  fetchApp('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const accessLines = (reqId: string) => lines.filter((l) => l.msg === 'request' && l.reqId === reqId);

describe(`logs and metrics (${backendName})`, () => {
  it('returns a request id, accepts a sane X-Request-Id and replaces an odd one', async () => {
    const generated = await fetchApp('/api/v1/orders/nonce?address=0x' + '1'.repeat(40));
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await fetchApp('/healthz', { headers: { 'x-request-id': 'edge-proxy:42.a' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-proxy:42.a');
    const odd = await fetchApp('/healthz', { headers: { 'x-request-id': 'two words\u0007' } });
    expect(odd.headers.get('x-request-id')).not.toContain(' ');
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes one access line per request; a GraphQL request with two errors is one warn line, nothing at error', async () => {
    const before = lines.length;
    // under application/graphql-response+json a document that does not validate is a 400 (under application/json, 200)
    const res = await gql({ query: 'query Broken { nope alsoNope }', operationName: 'Broken' }, { 'x-request-id': 'req-two-errors', accept: 'application/graphql-response+json' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: unknown[] }).errors).toHaveLength(2);
    const mine = accessLines('req-two-errors');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: LEVEL.warn, method: 'POST', path: '/graphql', status: 400, operation: 'Broken' });
    expect(typeof mine[0]!.ms).toBe('number');
    expect(lines.slice(before).filter((l) => l.level >= LEVEL.error)).toEqual([]);

    await fetchApp('/api/v1/orders?pagination[first]=0', { headers: { 'x-request-id': 'req-rest-400' } });
    expect(accessLines('req-rest-400')).toEqual([expect.objectContaining({ level: LEVEL.warn, status: 400, path: '/api/v1/orders' })]);
    await fetchApp('/', { headers: { 'x-request-id': 'req-landing' } });
    expect(accessLines('req-landing')).toEqual([expect.objectContaining({ level: LEVEL.info, status: 200, path: '/' })]);
  });

  it('logs a server fault once at error with its stack and the request id; the client sees INTERNAL', async () => {
    const stats = running.services.stats;
    const original = stats.statsFor;
    stats.statsFor = async () => {
      throw new Error('disk on fire');
    };
    try {
      const res = await gql({ query: `{ collectionStats(address: "0x${'2'.repeat(40)}") { floorPrice } }` }, { 'x-request-id': 'req-fault' });
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('INTERNAL');
      expect(JSON.stringify(body)).not.toContain('disk on fire');
    } finally {
      stats.statsFor = original;
    }
    const errors = lines.filter((l) => l.reqId === 'req-fault' && l.level === LEVEL.error && l.err);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err.message).toBe('disk on fire');
    expect(errors[0]!.err.stack).toContain('observability.test.ts');
  });

  it('/metrics counts GraphQL operations with latency by outcome, and submissions by code', async () => {
    await gql({ query: 'query Nonce { nonce(address: "0x' + '3'.repeat(40) + '") }', operationName: 'Nonce' });
    await gql({ query: 'query TooMany { orders(first: 1000) { edges { cursor } } }', operationName: 'TooMany' });
    const bad = { ...examples.makerOrder, price: '1' }; // the signature no longer matches
    const rejected = await fetchApp('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bad) });
    expect(rejected.status).toBe(400);

    const text = await (await fetchApp('/metrics')).text();
    const sample = (metric: string, labels: Record<string, string>) =>
      text.split('\n').find((l) => l.startsWith(`${metric}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    expect(sample('graphql_yoga_http_duration_count', { operationName: 'Nonce', statusCode: '200' })).toMatch(/ 1$/);
    expect(sample('graphql_yoga_http_duration_count', { operationName: 'TooMany', statusCode: '400' })).toMatch(/ 1$/);
    expect(sample('graphql_envelop_request_duration_count', { operationName: 'Nonce' })).toMatch(/ 1$/);
    expect(sample('graphql_envelop_error_result', { operationName: 'TooMany' })).toMatch(/ 1$/);
    expect(text).toMatch(/order_submissions_total\{outcome="rejected",code="[A-Z0-9_]+"\} 1/);
    if (TEST_DATABASE_URL) {
      expect(text).toMatch(/db_pool_connections_in_use \d+/);
      expect(text).toMatch(/db_pool_requests_waiting \d+/);
      expect(text).toMatch(/db_pool_connections_max \d+/);
    } else {
      expect(text).not.toContain('db_pool_'); // the embedded database is one session, no pool
    }
  });

  it("counts the read engine's fallbacks by cause; a failing statement is logged once a minute, the resolvers answer", async () => {
    const counter = async (cause: string) => {
      const text = await (await fetchApp('/metrics')).text();
      return Number(new RegExp(`^read_engine_fallbacks_total\\{cause="${cause}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    };
    const before = await counter('database-error');
    expect(before).toBeGreaterThanOrEqual(0);
    const sql = running.services.deps.db.sql;
    const query = sql.query.bind(sql);
    // the engine's statements build JSON text in SQL ('{"...'); the resolvers' do not
    sql.query = ((text: string, ...rest: unknown[]) =>
      text.includes(`'{"`) ? Promise.reject(new Error('relation "simulated" does not exist')) : (query as (...a: unknown[]) => unknown)(text, ...rest)) as typeof sql.query;
    const warnsBefore = lines.filter((l) => l.level === LEVEL.warn && String(l.msg).startsWith('read engine')).length;
    try {
      for (let i = 0; i < 3; i++) {
        const res = await gql({ query: '{ collections(first: 1) { edges { node { address } } } }' });
        const body = (await res.json()) as { data?: unknown; errors?: unknown };
        expect(body.errors).toBeUndefined();
        expect(body.data).toEqual({ collections: { edges: expect.any(Array) } });
      }
    } finally {
      sql.query = query as typeof sql.query;
    }
    expect(await counter('database-error')).toBe(before + 3);
    const warns = lines.filter((l) => l.level === LEVEL.warn && String(l.msg).startsWith('read engine'));
    expect(warns.length - warnsBefore).toBe(before === 0 ? 1 : 0);
    if (before === 0) expect(warns.at(-1)!.err).toContain('simulated');
  });

  it("counts query shapes by template outcome; a refused template is logged once per reason", async () => {
    const counter = async (outcome: string) => {
      const text = await (await fetchApp('/metrics')).text();
      return Number(new RegExp(`^read_engine_templates_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    };
    const [made, volatile] = [await counter('made'), await counter('volatile')];
    // a shape new to this app: its first request makes the template, the next ones bind into it
    const query = 'query($a: Address!) { collection(address: $a) { address name } }';
    for (const a of ['0x' + '1'.repeat(40), '0x' + '2'.repeat(40), '0x' + '3'.repeat(40)]) expect((await gql({ query, variables: { a } })).status).toBe(200);
    expect(await counter('made')).toBe(made + 1);
    // the indexer's status is the process's view of this moment: planned per request, counted once as a shape
    for (let i = 0; i < 2; i++) await gql({ query: '{ indexerStatus { running } }' });
    expect(await counter('volatile')).toBe(volatile + 1);
    const refused = await counter('refused');
    const warnsBefore = lines.filter((l) => l.level === LEVEL.warn && String(l.msg).includes('planned per request')).length;
    for (const reason of ['parameter 3: moved with the clock but not declared so', 'parameter 3: moved with the clock but not declared so', 'another reason']) {
      running.services.readTemplates.record('refused', reason);
    }
    expect(await counter('refused')).toBe(refused + 3);
    const warns = lines.filter((l) => l.level === LEVEL.warn && String(l.msg).includes('planned per request'));
    expect(warns.length - warnsBefore).toBe(2);
    expect(warns.at(-1)!.reason).toBe('another reason');
  });
});
