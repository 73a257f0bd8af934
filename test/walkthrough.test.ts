// The examples of README.md and docs/*.md, executed: every ```graphql block must validate against
// the schema, and every query among them (variables of type Address get the demo collection)
// answers the demo marketplace without errors; every curl answers 200 (a GET of its path, or a
// POST of its JSON body to /graphql). The bot's path (nonce, sign with the original v1 SDK,
// POST /api/v1/orders) stores the order. A docs edit that breaks an example fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { getOperationAST, Kind, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_API_KEY } from '../src/demo/demo-api-key.js';
import { seedDemo } from '../src/demo/seed-demo.js';
import { DEMO_COLLECTION } from '../src/demo/demo-addresses.js';
import { schema } from '../src/schema/index.js';
import { signWithV1Sdk } from './helpers/maker-orders.js';
import { available, titled } from './helpers/skip-reasons.js';
import { FIXED_NOW, startTestApp, type TestApp } from './helpers/test-app.js';
import { backendName } from './helpers/test-database.js';

const pages = ['README.md', ...readdirSync(new URL('../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const texts = pages.map((page) => ({ page, text: readFileSync(new URL(`../${page}`, import.meta.url), 'utf8') }));

const graphqlBlocks = texts.flatMap(({ page, text }) => [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m, i) => [`${page} #${i + 1}`, m[1]!] as const));
// A curl command: its line in a ```sh block, with backslash continuations joined.
const curls = texts.flatMap(({ page, text }) =>
  [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.startsWith('curl '))
      .map((line) => [page, line] as const),
  ),
);

/**
 * The request a documented curl sends: a GET of a quoted path, a JSON POST to /graphql, or a JSON
 * POST to a REST route; the `-H` headers after the path go with a REST request (an API key).
 */
function curlRequest(line: string): { path: string; query?: string; body?: string; headers: Record<string, string> } {
  const headersOf = (flags: string) => Object.fromEntries([...flags.matchAll(/-H '([^:']+): ([^']*)'/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]));
  const post = /^curl .*localhost:4000(\/graphql) .*-d '([^']+)'/.exec(line);
  if (post) return { path: post[1]!, query: (JSON.parse(post[2]!) as { query: string }).query, headers: {} };
  const rest = /^curl -X POST localhost:4000(\/api\/v1\/[^\s]+)((?:\s+-H '[^']+')+)\s+-d '([^']+)'\s*$/.exec(line);
  if (rest) return { path: rest[1]!, body: rest[3]!, headers: headersOf(rest[2]!) };
  const get = /^curl [^']*'localhost:4000([^']+)'((?:\s+-H '[^']+')*)\s*$/.exec(line);
  if (!get) throw new Error(`an example the walk-through cannot run: ${line}`);
  return { path: get[1]!, headers: headersOf(get[2]!) };
}

function executableQuery(source: string): { variables: Record<string, string> } | null {
  const document = parse(source);
  const operation = getOperationAST(document);
  if (!operation || operation.operation !== 'query') return null;
  const variables: Record<string, string> = {};
  for (const v of operation.variableDefinitions ?? []) {
    const type = v.type.kind === Kind.NON_NULL_TYPE ? v.type.type : v.type;
    if (type.kind !== Kind.NAMED_TYPE || type.name.value !== 'Address') return null;
    variables[v.variable.name.value] = DEMO_COLLECTION;
  }
  return { variables };
}

let app: TestApp;
beforeAll(async () => {
  // configured as the demo is: its own API key, which the webhook examples send
  app = await startTestApp({ API_KEYS: DEMO_API_KEY });
  await seedDemo(app.services, { orderCount: 120, saleCount: 400 });
});
afterAll(() => app?.close());

describe(`README and docs examples (${backendName})`, () => {
  it('has examples to run, one of each kind in README', () => {
    expect(graphqlBlocks.filter(([label]) => label.startsWith('README')).length).toBeGreaterThanOrEqual(1);
    expect(curls.filter(([page]) => page === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(graphqlBlocks.length).toBeGreaterThanOrEqual(5);
    expect(curls.length).toBeGreaterThanOrEqual(10);
  });

  it.each(graphqlBlocks)('GraphQL %s validates, and a query answers without errors', async (_label, source) => {
    expect(validate(schema, parse(source)).map((e) => e.message)).toEqual([]);
    const runnable = executableQuery(source);
    if (!runnable) return; // a mutation needs a signed order, a subscription a stream: validated above
    const r = await app.gql(source, runnable.variables);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.data)).not.toBe('{}');
  });

  it.each(curls)('%s: %s answers 200 (201 for a creation)', async (_page, line) => {
    const { path, query, body, headers } = curlRequest(line);
    if (body !== undefined) {
      const r = await app.rest(path, { method: 'POST', headers, body });
      expect(r.status, JSON.stringify(r.body)).toBe(path === '/api/v1/webhooks' ? 201 : 200);
      expect(r.body.success).toBe(true);
      return;
    }
    if (query !== undefined && line.includes('text/event-stream')) {
      // a subscription over SSE: the stream opens and its first event carries an id
      const lastEventId = /-H 'Last-Event-ID: (\d+)'/i.exec(line)?.[1];
      const aborter = new AbortController();
      const res = await app.yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        body: JSON.stringify({ query }),
        signal: aborter.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      while (!/\nid: \d+/.test(`\n${text}`)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      aborter.abort();
      await reader.cancel().catch(() => {});
      expect(text).toMatch(/^id: \d+$/m);
      expect(text).not.toContain('"errors"');
      return;
    }
    if (query !== undefined) {
      const r = await app.gql(query);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.status).toBe(200);
      return;
    }
    const r = await app.rest(path, { headers });
    expect(r.status).toBe(200);
    if (path.startsWith('/api/v1/') && !path.endsWith('openapi.json')) expect(r.body.success).toBe(true);
  });

  it("README's query shows the demo's first collection with listings", async () => {
    const first = graphqlBlocks.find(([label]) => label.startsWith('README'))![1];
    const r = await app.gql(first);
    const c = (r.data as any).collection;
    expect(c.name).toBe('Lantern Owls');
    expect(c.orders.edges.length).toBeGreaterThan(0);
  });

  it.runIf(available().sdk)(titled('a bot: nonce, sign with the v1 SDK, POST /api/v1/orders -> 201', 'sdk'), async () => {
    const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'; // Hardhat's first development key
    const signer = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    const nonce = await app.rest(`/api/v1/orders/nonce?address=${signer}`);
    expect(nonce.body.success).toBe(true);
    const net = app.config.network;
    const now = Math.floor(FIXED_NOW.getTime() / 1000);
    const [signed] = await signWithV1Sdk(net.chainId, net.exchange, [
      {
        privateKey: KEY,
        order: {
          isOrderAsk: true,
          signer,
          collection: DEMO_COLLECTION,
          price: '1000000000000000000',
          tokenId: '77',
          amount: '1',
          strategy: net.strategies.standardSale[0]!,
          currency: net.weth,
          nonce: nonce.body.data,
          startTime: now - 60,
          endTime: now + 86_400,
          minPercentageToAsk: 9800,
          params: [],
        },
      },
    ]);
    const posted = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed!.makerOrder) });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body.data).toMatchObject({ hash: signed!.structHash, status: 'VALID' });
  });
});
