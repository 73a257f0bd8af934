// Webhook delivery under the load of the goal in docs/webhooks.md: events written through the
// real write path (signed orders POSTed to /api/v1/orders, each a LIST event) over 100
// collections, 100 endpoints each subscribed to one collection plus 5 firehose endpoints, the
// built server (as `npm start` runs it) on PostgreSQL sending, receivers on this machine that
// verify every request with the `standardwebhooks` package's Webhook.verify.
//
// Receivers: most answer at once (healthy); 10 answer after 250 ms (slow; a firehose one after 3 ms), 5 refuse 30 % of
// requests with a 500 (failing), 5 stop listening for 20 s in the middle of each step and come
// back (dying); among the firehose endpoints one is slow and one dies. Latency is measured from
// the event's created_at (the database clock of its transaction) to the first verified receipt.
//
// Prints, per step (a rate of events per minute held for --minutes): delivery p50/p99 for healthy
// endpoints against the goal of 1 s (after the step's first --warmup-seconds, 10 by default, which
// are printed apart: the books start empty, so the first listings move every collection's floor at
// once), events lost (due but never received after the drain), the
// signatures verified and refused, the deliveries per second achieved, the server's CPU and
// statements per delivery; then the highest rate that met the goal.
//
//   npx tsx bench/webhook-bench.ts [--rates 10000[,20000,...]] [--minutes 1] [--warmup-seconds 10] [--drain-seconds 120] [--pg-url ...] [--cpu-prof DIR] [--backlog] [--timeline]
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { keccak256, toUtf8Bytes, Wallet } from 'ethers';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.js';
import { createBenchDatabase, fixed, machine, percentile, rssMb, runBench, SERVER_NODE_FLAGS, startBuiltServer, table } from './helpers.js';
import { registerCollections, signOrders } from './signed-orders.js';

const { values: args } = parseArgs({
  options: {
    rates: { type: 'string', default: '10000' },
    minutes: { type: 'string', default: '1' },
    'drain-seconds': { type: 'string', default: '120' },
    'pg-url': { type: 'string' },
    'cpu-prof': { type: 'string' },
    /** print how far behind each endpoint is when the writes end */
    backlog: { type: 'boolean', default: false },
    /** print the healthy firehose endpoints' worst latency per 5 s of the step */
    timeline: { type: 'boolean', default: false },
    /** the first seconds of each step are reported apart, not counted in the goal's p99 */
    'warmup-seconds': { type: 'string', default: '10' },
  },
});
const RATES = args.rates!.split(',').map(Number);
const MINUTES = Number(args.minutes);
const DRAIN_MS = Number(args['drain-seconds']) * 1000;
const WARMUP_MS = Number(args['warmup-seconds']) * 1000;
/** events created before this (epoch ms) are the step's warm-up: their latency is kept apart */
let measureFrom = 0;
const COLLECTIONS = 100;
const FIREHOSE = 5;
const GOAL_P99_MS = 1000;
const KEYS = ['webhook-bench-key-1', 'webhook-bench-key-2', 'webhook-bench-key-3'];

type Behaviour = 'healthy' | 'slow' | 'failing' | 'dying';
const behaviourOf = (i: number): Behaviour =>
  i < COLLECTIONS ? (i < 80 ? 'healthy' : i < 90 ? 'slow' : i < 95 ? 'failing' : 'dying') : (['healthy', 'healthy', 'healthy', 'slow', 'dying'] as const)[i - COLLECTIONS]!;

interface Receiver {
  index: number;
  behaviour: Behaviour;
  collection: string | null;
  secret: string;
  port: number;
  server: Server | null;
  /** token id -> receipts (LIST events) */
  got: Map<string, number>;
  /** event id -> receipts of the other events (FLOOR_CHANGE) */
  others: Map<string, number>;
  /** ms from created_at to the first receipt, healthy receivers only (after the warm-up) */
  latencies: number[];
  /** the same, of the warm-up's events */
  warmLatencies: number[];
  /** [created_at ms, latency ms] of the first receipts, healthy receivers only */
  timeline: [number, number][];
  verified: number;
  refused: number;
}

function listen(r: Receiver): Promise<void> {
  if (r.server) return Promise.resolve();
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const at = Date.now();
    const body = Buffer.concat(chunks).toString('utf8');
    if (r.behaviour === 'slow') await new Promise((ok) => setTimeout(ok, r.collection ? 250 : 3));
    if (r.behaviour === 'failing' && Math.random() < 0.3) return void res.writeHead(500).end();
    let payload: { data: { eventId: string; type: string; tokenId: string; createdAt: string } };
    try {
      payload = new Webhook(r.secret).verify(body, req.headers as Record<string, string>) as typeof payload;
    } catch {
      r.refused++;
      return void res.writeHead(400).end();
    }
    r.verified++;
    if (payload.data.type !== 'LIST') {
      // the moves of a collection's floor (and best bid) the listings cause: delivered, not checked per token
      r.others.set(payload.data.eventId, (r.others.get(payload.data.eventId) ?? 0) + 1);
      return void res.writeHead(204).end();
    }
    const t = payload.data.tokenId;
    const n = r.got.get(t) ?? 0;
    r.got.set(t, n + 1);
    if (n === 0 && r.behaviour === 'healthy') {
      const created = Date.parse(payload.data.createdAt);
      (created >= measureFrom ? r.latencies : r.warmLatencies).push(at - created);
      if (args.timeline) r.timeline.push([created, at - created]);
    }
    res.writeHead(204).end();
  });
  r.server = server;
  return new Promise((ok) => server.listen(r.port, '127.0.0.1', () => ((r.port = (server.address() as AddressInfo).port), ok())));
}

function stop(r: Receiver): Promise<void> {
  const s = r.server;
  r.server = null;
  if (!s) return Promise.resolve();
  s.closeAllConnections();
  return new Promise((ok) => s.close(() => ok()));
}

await runBench(async () => {
  const db = await createBenchDatabase("postgres", { prefix: "whbench", pgUrl: args["pg-url"] });
  const env = {
    ...db.env,
    API_KEYS: KEYS.join(','),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_FIRST_MS: '500',
    WEBHOOK_RETRY_MAX_MS: '4000',
    WEBHOOK_DISABLE_AFTER_FAILURES: '10000',
    WEBHOOK_TIMEOUT_MS: '5000',
    SIGNATURE_WORKERS: '0',
    INDEXER: 'off',
    LOG_LEVEL: 'warn',
  };
  const server = startBuiltServer(env, args['cpu-prof'] ? [...SERVER_NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : SERVER_NODE_FLAGS);
  const base = new URL(await server.base());
  const network = loadConfig({ SEED: '0' }).network;
  const collections = Array.from({ length: COLLECTIONS }, (_, i) => new Wallet(keccak256(toUtf8Bytes(`webhook-bench-collection-${i}`))).address);
  await registerCollections(db.url!, collections);

  const receivers: Receiver[] = [];
  for (let i = 0; i < COLLECTIONS + FIREHOSE; i++) {
    const r: Receiver = { index: i, behaviour: behaviourOf(i), collection: i < COLLECTIONS ? collections[i]! : null, secret: '', port: 0, server: null, got: new Map(), others: new Map(), latencies: [], warmLatencies: [], timeline: [], verified: 0, refused: 0 };
    await listen(r);
    const res = await fetch(new URL('/api/v1/webhooks', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-looks-api-key': KEYS[i % KEYS.length]! },
      body: JSON.stringify({ url: `http://127.0.0.1:${r.port}/hook`, filter: r.collection ? { collection: r.collection } : {} }),
    });
    const json = (await res.json()) as { data: { secret: string } };
    if (res.status !== 201 && res.status !== 200) throw new Error(`registering endpoint ${i}: ${res.status} ${JSON.stringify(json)}`);
    r.secret = json.data.secret;
    receivers.push(r);
  }
  console.log(
    `webhook bench: ${COLLECTIONS} collection endpoints + ${FIREHOSE} firehose (healthy ${receivers.filter((r) => r.behaviour === 'healthy').length}, ` +
      `slow ${receivers.filter((r) => r.behaviour === 'slow').length}, failing ${receivers.filter((r) => r.behaviour === 'failing').length}, ` +
      `dying ${receivers.filter((r) => r.behaviour === 'dying').length}); steps ${RATES.join(', ')} events/min for ${MINUTES} min each; built server on ${db.describe}; ${machine()}`,
  );

  const rows: (string | number)[][] = [];
  let best = 0;
  let firstToken = 1;
  for (const rate of RATES) {
    const total = Math.round(rate * MINUTES);
    // each step its own signers, so their nonces start afresh
    const keys = Array.from({ length: 64 }, (_, i) => keccak256(toUtf8Bytes(`webhook-bench-signer-${rate}-${rows.length}-${i}`)));
    const signed = await signOrders(total, { chainId: network.chainId, exchange: network.exchange, weth: network.weth, ask: network.strategies.standardSale[0]!, collections, keys, firstTokenId: firstToken });
    firstToken += total;
    for (const r of receivers) {
      r.got.clear();
      r.others.clear();
      r.latencies = [];
      r.warmLatencies = [];
      r.timeline = [];
    }
    const verified0 = receivers.reduce((n, r) => n + r.verified, 0);
    const refused0 = receivers.reduce((n, r) => n + r.refused, 0);
    const statements0 = await server.statements();
    const cpu0 = server.cpuSeconds();
    const benchCpu0 = process.cpuUsage();
    const t0 = performance.now();
    measureFrom = Date.now() + WARMUP_MS;
    const perSecond = rate / 60;
    const dying = receivers.filter((r) => r.behaviour === 'dying');
    const stepMs = MINUTES * 60_000;
    // the dying receivers stop for 20 s from a third of the step
    let comeback: NodeJS.Timeout | undefined;
    const outage = setTimeout(() => {
      for (const r of dying) void stop(r);
      comeback = setTimeout(() => dying.forEach((r) => void listen(r)), 20_000);
    }, stepMs / 3);
    let refusedWrites = 0;
    const posts: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
      const o = signed[i]!;
      posts.push(
        fetch(new URL('/api/v1/orders', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o.body) }).then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 201) refusedWrites++;
        }),
      );
    }
    await Promise.all(posts);
    const writeSeconds = (performance.now() - t0) / 1000;
    if (args.backlog) {
      const byClass = new Map<string, number[]>();
      for (const r of receivers) {
        const k = `${r.behaviour}${r.collection ? '' : ' firehose'}`;
        const due = r.collection ? signed.filter((o) => o.collection === r.collection).length : total;
        byClass.set(k, [...(byClass.get(k) ?? []), due - r.got.size]);
      }
      for (const [k, v] of byClass) console.log(`  at the end of the writes, ${k}: behind by ${v.join(' ')}`);
    }
    clearTimeout(outage);
    clearTimeout(comeback);
    for (const r of dying) await listen(r);
    // the drain: until every endpoint has every event its filter selects, or the time is up
    const due = (r: Receiver) => (r.collection ? signed.filter((o) => o.collection === r.collection) : signed);
    const dueCount = receivers.reduce((n, r) => n + due(r).length, 0);
    const received = () => receivers.reduce((n, r) => n + r.got.size, 0);
    const drainStart = performance.now();
    while (received() < dueCount && performance.now() - drainStart < DRAIN_MS) await new Promise((ok) => setTimeout(ok, 250));
    const drainSeconds = (performance.now() - drainStart) / 1000;
    const seconds = (performance.now() - t0) / 1000;
    let lost = 0;
    let duplicates = 0;
    let foreign = 0;
    for (const r of receivers) {
      const wanted = new Set(due(r).map((o) => o.tokenId));
      for (const t of wanted) if (!r.got.has(t)) lost++;
      for (const [t, n] of r.got) {
        if (!wanted.has(t)) foreign++;
        duplicates += n - 1;
      }
    }
    const cpu = server.cpuSeconds() - cpu0;
    const statements = (await server.statements()) - statements0;
    const latencies = Float64Array.from(receivers.flatMap((r) => r.latencies)).sort();
    const p99 = percentile(latencies, 99);
    const verified = receivers.reduce((n, r) => n + r.verified, 0) - verified0;
    const refused = receivers.reduce((n, r) => n + r.refused, 0) - refused0;
    const met = p99 <= GOAL_P99_MS && lost === 0 && foreign === 0 && refused === 0 && refusedWrites === 0;
    if (met) best = Math.max(best, rate);
    rows.push([
      rate,
      `${fixed(total / writeSeconds, 0)}/s`,
      fixed(dueCount / writeSeconds, 0),
      fixed(percentile(latencies, 50), 0),
      fixed(p99, 0),
      lost,
      duplicates,
      `${verified}/${refused}`,
      fixed(drainSeconds, 1),
      fixed((cpu / seconds) * 100, 0),
      fixed(statements / Math.max(1, verified), 2),
      met ? 'MET' : 'NOT MET',
    ]);
    if (args.timeline) {
      const worst = new Map<number, number>();
      const start = Date.now() - (performance.now() - t0);
      for (const r of receivers.filter((x) => !x.collection)) for (const [c, l] of r.timeline) worst.set(Math.floor((c - start) / 5000), Math.max(worst.get(Math.floor((c - start) / 5000)) ?? 0, l));
      console.log(`  healthy firehose, worst latency per 5 s of the step: ${[...worst].sort((a, b) => a[0] - b[0]).map(([k, l]) => `${k * 5}s:${l}`).join(' ')}`);
    }
    const otherDeliveries = receivers.reduce((n, r) => n + r.others.size, 0);
    const otherDuplicates = receivers.reduce((n, r) => n + [...r.others.values()].reduce((m, k) => m + k - 1, 0), 0);
    console.log(
      `  besides the listings: ${otherDeliveries} deliveries of the floor changes they caused (${otherDuplicates} twice); ` +
        `${fixed((dueCount + otherDeliveries) / writeSeconds, 0)} deliveries/s in all while writing`,
    );
    const p99Of = (rs: Receiver[]) => fixed(percentile(Float64Array.from(rs.flatMap((r) => r.latencies)).sort(), 99), 0);
    const warm = Float64Array.from(receivers.flatMap((r) => r.warmLatencies)).sort();
    console.log(`  the first ${WARMUP_MS / 1000} s of the step (not counted below): healthy p50 ${fixed(percentile(warm, 50), 0)} ms, p99 ${fixed(percentile(warm, 99), 0)} ms, max ${fixed(warm.at(-1) ?? 0, 0)} ms`);
    console.log(`  healthy p99 by kind: collection endpoints ${p99Of(receivers.filter((r) => r.collection))} ms, firehose ${p99Of(receivers.filter((r) => !r.collection))} ms`);
    console.log(
      `step ${rate}/min: ${total} events in ${fixed(writeSeconds, 1)} s (${refusedWrites} writes refused), ${dueCount} deliveries due, drained ${fixed(drainSeconds, 1)} s after the writes; ` +
        `server RSS ${fixed(rssMb(server.pid), 0)} MB; this process (writer, receivers) CPU ${fixed(((process.cpuUsage(benchCpu0).user + process.cpuUsage(benchCpu0).system) / 1e6 / seconds) * 100, 0)} %; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`,
    );
  }
  console.log(
    '\n' +
      table(
        ['events/min', 'written', 'deliveries due/s', 'healthy p50 ms', 'healthy p99 ms', 'lost', 'duplicates', 'verified/refused', 'drain s', 'server CPU %', 'statements/delivery', 'goal'],
        rows,
      ),
  );
  console.log(`\nGoal: healthy delivery p99 <= ${GOAL_P99_MS} ms, 0 events lost, every signature verified. Highest rate that met it: ${best ? `${best} events/min` : 'none of the steps'}`);
  if (args['cpu-prof']) {
    server.stop();
    await new Promise((ok) => server.child.once('exit', ok));
  }
  for (const r of receivers) await stop(r);
});
