// The market event stream's reader (src/services/market-event-log.ts): how long one read takes
// over a large log, replaying from the start (100 events per read), under a narrow filter (2,000
// rows looked at per read), and at the head where a live stream polls or is woken (nothing new),
// plus the end-to-end replay rate through the subscription over SSE. Prints EXPLAIN of the
// head read so the index it uses is visible.
//
//   npx tsx bench/event-stream-bench.ts [--db postgres|pglite] [--events 200000] [--iterations 200] [--pg-url postgresql://...]
//
// Events are written in transactions of 1,000 rows over 50 collections, so tx_id varies as it
// does under real writers.
import { parseArgs } from 'node:util';
import { LOG_START, logHeadPosition, readMarketEventsAfter, VISIBILITY_HORIZON_SQL } from '../src/services/market-event-log.js';
import { bootBenchApp, createBenchDatabase, fixed, machine, runBench, table, timeIt, type DbKind } from './helpers.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    events: { type: 'string', default: '200000' },
    iterations: { type: 'string', default: '200' },
    'pg-url': { type: 'string' },
  },
});

const collection = (i: number) => '0x' + i.toString(16).padStart(40, '0');

await runBench(async () => {
  const total = Number(args.events);
  const db = await createBenchDatabase(args.db as DbKind, { prefix: 'stream', pgUrl: args['pg-url'], memory: args.db === 'pglite' });
  const app = await bootBenchApp(db);
  const sql = app.db.sql;
  const t0 = performance.now();
  for (let from = 0; from < total; from += 1000) {
    await sql.query(
      `INSERT INTO market_events (type, collection_address, token_id, from_address, price)
       SELECT (ARRAY['LIST','OFFER','SALE','TRANSFER'])[1 + g % 4]::"MarketEventType", '0x' || lpad(to_hex(g % 50), 40, '0'), g % 5000,
              '0x' || lpad(to_hex(g % 2000), 40, '0'), CASE WHEN g % 4 = 3 THEN NULL ELSE 1000 + g END
       FROM generate_series($1::int, $2::int) g`,
      [from, Math.min(total, from + 1000) - 1],
    );
  }
  await sql.exec('ANALYZE market_events');
  console.log(`${db.describe}: ${total} events written in ${fixed((performance.now() - t0) / 1000)} s; ${machine()}`);

  const n = Number(args.iterations);
  const head = await logHeadPosition(sql);
  // positions spread over the log for the replay and filtered reads
  const starts = await sql.query<{ txId: string; id: string }>(
    `SELECT tx_id::text AS "txId", id::text AS id FROM market_events WHERE id % $1::bigint = 0 ORDER BY id`,
    [Math.max(1, Math.floor(total / n))],
  );
  const at = (i: number) => starts[i % starts.length] ?? LOG_START;
  const rows: (string | number)[][] = [];
  const row = (name: string, r: { p50: number; p99: number; mean: number }, note: string) => rows.push([name, fixed(r.p50, 2), fixed(r.p99, 2), fixed(r.mean, 2), note]);
  row('SELECT 1 (a round trip, for scale)', await timeIt(n, () => sql.query('SELECT 1')), 'baseline');
  row('replay, all events, 100 per read', await timeIt(n, (i) => readMarketEventsAfter(sql, at(i), {}, 100)), '100 events');
  row('replay, one collection (2%)', await timeIt(n, (i) => readMarketEventsAfter(sql, at(i), { collection: collection(7) }, 100)), '<=2,000 rows looked at');
  row('replay, SALE over 1,500 wei', await timeIt(n, (i) => readMarketEventsAfter(sql, at(i), { types: ['SALE'], minPrice: '1500' }, 100)), 'types + price');
  row('head, nothing new (poll or wake-up)', await timeIt(n, () => readMarketEventsAfter(sql, head, {}, 100)), '0 events');
  console.log(`\nreadMarketEventsAfter, ${n} sequential reads each (ms)\n`);
  console.log(table(['read', 'p50', 'p99', 'mean', ''], rows));

  // the whole log through the subscription, as a client replaying from "0" sees it
  const replay = Math.min(total, 50_000);
  const res = await app.yoga.fetch('http://bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { marketEvents(after: "0") { eventId type tokenId price } }' }),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const r0 = performance.now();
  let seen = 0;
  let buffer = '';
  while (seen < replay) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let i;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      if (buffer.slice(0, i).includes('event: next')) seen++;
      buffer = buffer.slice(i + 2);
    }
  }
  const seconds = (performance.now() - r0) / 1000;
  await reader.cancel();
  console.log(`\nSSE replay from "0": ${seen} events in ${fixed(seconds, 2)} s = ${fixed(seen / seconds, 0)} events/s (one client, in process)`);

  if (db.kind === 'postgres') {
    const plan = await sql.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT e.id FROM market_events e WHERE (e.tx_id, e.id) > ($1::xid8, $2::bigint) AND e.tx_id < ${VISIBILITY_HORIZON_SQL} ORDER BY e.tx_id, e.id LIMIT 2000`,
      [head.txId, head.id],
    );
    console.log(`\nEXPLAIN of the head scan:\n${plan.map((p) => `  ${p['QUERY PLAN']}`).join('\n')}`);
  }
  await app.close();
});
