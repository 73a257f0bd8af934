// 1,000 concurrent SSE subscribers of Subscription.marketEvents on one instance (the built
// server, as `npm start` runs it, on PostgreSQL), while orders arrive at a steady rate through the
// real write path (POST /api/v1/orders, signed, validated, stored; each is a LIST event). Prints
// the event latency (from the moment the order was posted to the moment a subscriber read the
// event), p99 against the goal of 500 ms with a verdict, every subscriber's completeness (each
// event its filter selects, exactly once), the server's RSS and its SQL statements per event.
// Events the orders cause besides their LIST (a collection's FLOOR_CHANGE) are delivered too and
// counted, not timed.
//
//   npx tsx bench/sse-bench.ts [--subscribers 1000] [--firehose 100] [--collections 100] [--rate 50] [--seconds 30] [--pg-url ...]
//        [--cpu-prof DIR] (a CPU profile of the server, written when it exits)
//
// Subscribers: `firehose` of them take every event, the others one collection each (spread over
// `collections`). The clients live in this process, on node:http, reading the raw SSE frames.
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { keccak256, toUtf8Bytes, Wallet } from 'ethers';
import { loadConfig } from '../src/config.js';
import { createBenchDatabase, fixed, machine, percentile, rssMb, runBench, sampleRss, SERVER_NODE_FLAGS, startBuiltServer, table } from './helpers.js';
import { registerCollections, signOrders } from './signed-orders.js';

const { values: args } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '1000' },
    firehose: { type: 'string', default: '100' },
    collections: { type: 'string', default: '100' },
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '30' },
    'pg-url': { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const SUBSCRIBERS = Number(args.subscribers);
const FIREHOSE = Math.min(SUBSCRIBERS, Number(args.firehose));
const COLLECTIONS = Number(args.collections);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const GOAL_P99_MS = 500;

const QUERY = 'subscription($f: MarketEventStreamFilter) { marketEvents(filter: $f) { eventId type collectionAddress tokenId price } }';

interface Subscriber {
  collection: string | null;
  /** token id -> times received (LIST events) */
  got: Map<string, number>;
  /** events of other types received */
  others: number;
  ready: Promise<void>;
  close(): void;
}

function subscribe(base: URL, agent: http.Agent, collection: string | null, onEvent: (tokenId: string, at: number) => void): Subscriber {
  const got = new Map<string, number>();
  const sub = { collection, got, others: 0 } as Subscriber;
  const body = JSON.stringify({ query: QUERY, variables: { f: collection ? { collection } : {} } });
  let req: http.ClientRequest;
  const ready = new Promise<void>((resolve, reject) => {
    req = http.request(
      { host: base.hostname, port: base.port, path: '/graphql', method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`subscription answered ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          const at = performance.now();
          resolve(); // the first comment flushes the headers: the stream is open
          buffer += chunk;
          let i;
          while ((i = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, i);
            buffer = buffer.slice(i + 2);
            if (!frame.includes('event: next')) continue;
            if (!frame.includes('"type":"LIST"')) {
              sub.others++;
              continue;
            }
            const m = /"tokenId":"(\d+)"/.exec(frame);
            if (!m) throw new Error(`an event without a token id: ${frame.slice(0, 300)}`);
            got.set(m[1]!, (got.get(m[1]!) ?? 0) + 1);
            onEvent(m[1]!, at);
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  return Object.assign(sub, { ready, close: () => req.destroy() });
}

await runBench(async () => {
  const db = await createBenchDatabase('postgres', { prefix: 'ssebench', pgUrl: args['pg-url'] });
  const server = startBuiltServer(
    { ...db.env, WEBHOOKS: 'false', SIGNATURE_WORKERS: '0', INDEXER: 'off' },
    args['cpu-prof'] ? [...SERVER_NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : SERVER_NODE_FLAGS,
  );
  const base = new URL(await server.base());
  const network = loadConfig({ SEED: '0' }).network;
  const collections = Array.from({ length: COLLECTIONS }, (_, i) => new Wallet(keccak256(toUtf8Bytes(`sse-bench-collection-${i}`))).address);
  await registerCollections(db.url!, collections);
  const keys = Array.from({ length: 64 }, (_, i) => keccak256(toUtf8Bytes(`sse-bench-signer-${i}`)));
  const total = Math.round(RATE * SECONDS);
  const signed = await signOrders(total, { chainId: network.chainId, exchange: network.exchange, weth: network.weth, ask: network.strategies.standardSale[0]!, collections, keys });
  console.log(
    `SSE bench: ${SUBSCRIBERS} subscribers (${FIREHOSE} on every event, ${SUBSCRIBERS - FIREHOSE} on one of ${COLLECTIONS} collections), ` +
      `${RATE} orders/s for ${SECONDS} s through POST /api/v1/orders; built server on ${db.describe}; ${machine()}`,
  );

  // the subscribers, opened 50 at a time
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const subs: Subscriber[] = [];
  const t0 = performance.now();
  for (let i = 0; i < SUBSCRIBERS; i += 50) {
    const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, k) => {
      const n = i + k;
      const s = subscribe(base, agent, n < FIREHOSE ? null : collections[(n - FIREHOSE) % COLLECTIONS]!, (tokenId, at) => {
        const sent = sentAt.get(tokenId);
        if (sent !== undefined) latencies.push(at - sent);
      });
      subs.push(s);
      return s.ready;
    });
    await Promise.all(batch);
  }
  console.log(`${SUBSCRIBERS} streams open in ${fixed((performance.now() - t0) / 1000, 1)} s; server RSS ${fixed(rssMb(server.pid), 0)} MB`);
  await new Promise((r) => setTimeout(r, 1000));

  // the writer: one order every 1/RATE s, each POST on its own schedule (a slow answer does not delay the next)
  const rss = sampleRss(server.pid, 250);
  const statementsBefore = await server.statements();
  const cpu0 = server.cpuSeconds();
  const benchCpu0 = process.cpuUsage();
  const w0 = performance.now();
  let failed = 0;
  const posts: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = w0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const o = signed[i]!;
    sentAt.set(o.tokenId, performance.now());
    posts.push(
      fetch(new URL('/api/v1/orders', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o.body) }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 201) failed++;
      }),
    );
  }
  await Promise.all(posts);
  const writeSeconds = (performance.now() - w0) / 1000;
  // every delivery that is coming: wait until the counts stop growing
  const expectedDeliveries = subs.reduce((n, s) => n + (s.collection ? signed.filter((o) => o.collection === s.collection).length : total - failed), 0);
  const deadline = Date.now() + 30_000;
  while (latencies.length < expectedDeliveries && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const memory = rss.stop();
  const cpu = server.cpuSeconds() - cpu0;
  const benchCpu = process.cpuUsage(benchCpu0);
  const statements = (await server.statements()) - statementsBefore;

  // completeness: each subscriber got each event its filter selects, once
  let missing = 0;
  let duplicates = 0;
  let foreign = 0;
  for (const s of subs) {
    const wanted = s.collection ? signed.filter((o) => o.collection === s.collection) : signed;
    for (const o of wanted) {
      const n = s.got.get(o.tokenId) ?? 0;
      if (n === 0) missing++;
      if (n > 1) duplicates += n - 1;
    }
    if (s.collection) for (const t of s.got.keys()) if (!wanted.some((o) => o.tokenId === t)) foreign++;
  }
  for (const s of subs) s.close();
  agent.destroy();
  if (args['cpu-prof']) {
    server.stop(); // SIGTERM: the server drains and writes its profile
    await new Promise((r) => server.child.once('exit', r));
  }

  const sorted = Float64Array.from(latencies).sort();
  const p99 = percentile(sorted, 99);
  console.log(`\n${total} orders posted in ${fixed(writeSeconds, 1)} s (${fixed(total / writeSeconds, 1)}/s), ${failed} refused; ${latencies.length} deliveries (${fixed(latencies.length / writeSeconds, 0)}/s)\n`);
  console.log(
    table(
      ['event latency (ms)', 'p50', 'p90', 'p99', 'max'],
      [['post -> subscriber', fixed(percentile(sorted, 50)), fixed(percentile(sorted, 90)), fixed(p99), fixed(sorted.at(-1) ?? NaN)]],
    ),
  );
  console.log(`\nmissing ${missing}, duplicated ${duplicates}, outside the filter ${foreign} (of ${expectedDeliveries} deliveries due); ${subs.reduce((n, s) => n + s.others, 0)} deliveries of other events (not timed)`);
  console.log(`server: RSS max ${fixed(memory.maxMb, 0)} MB (mean ${fixed(memory.meanMb, 0)} MB), CPU ${fixed((cpu / writeSeconds) * 100, 0)} % of one core, ${fixed(statements / total, 1)} SQL statements per event (writes included); this process (clients, writer) CPU ${fixed(((benchCpu.user + benchCpu.system) / 1e6 / writeSeconds) * 100, 0)} %; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const complete = missing === 0 && duplicates === 0 && foreign === 0 && failed === 0;
  console.log(`\nGoal: ${SUBSCRIBERS} SSE subscribers, p99 event latency <= ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS && complete ? 'MET' : 'NOT MET'} (p99 ${fixed(p99)} ms${complete ? '' : ', deliveries incomplete'})`);
});
