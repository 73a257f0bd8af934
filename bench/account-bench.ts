// Account reads: the latency of account(address) pages (holdings valued with totals, offers it
// could fill, its orders, its activity) for a typical holder and a whale, from the read engine
// (one statement) and from the resolvers (READ_ENGINE off), over a generated market.
//
//   npx tsx bench/account-bench.ts [--db postgres|pglite] [--orders 200000] [--collections 100]
//                                  [--tokens 2000] [--iterations 100] [--pg-url postgresql://...] [--explain]
//
// The market is bench/helpers.ts's (Zipf over the collections, about 74% of orders live, 12% of
// bids collection offers, 2,000 signers). Ownership: tokens 1..--tokens of the 20 hottest
// collections, each held by one of the signers; the whale holds every 10th token of the hottest
// one besides. Before timing, the two paths' answers are compared: a fast wrong answer fails.
// --explain (PostgreSQL) prints EXPLAIN ANALYZE of the engine's statement for each whale request.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { explainStatements, formatExplained } from './peer-explain.js';
import { bootBenchApp, countPgStatements, createBenchDatabase, fixed, generateCollections, loadMarket, machine, runBench, table, timeIt, type DbKind } from './helpers.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    orders: { type: 'string', default: '200000' },
    collections: { type: 'string', default: '100' },
    tokens: { type: 'string', default: '2000' },
    iterations: { type: 'string', default: '100' },
    'pg-url': { type: 'string' },
    explain: { type: 'boolean', default: false },
  },
});

// the generated orders are live around the real clock (bench/helpers.ts): pinned for the run
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);

const QUERIES: Record<string, string> = {
  holdings: `query($a: Address!) { account(address: $a) { holdings(first: 20) { totalCount valueAtFloor valueAtBestBid edges { cursor node { balance valueAtFloor valueAtBestBid token { tokenId bestAsk { price } bestBid { price } lastSale { price } } } } } } }`,
  offersReceived: `query($a: Address!) { account(address: $a) { offersReceived(first: 20) { totalCount edges { cursor node { hash price tokenId collection { name } } } } } }`,
  orders: `query($a: Address!) { account(address: $a) { orders(first: 20, filter: { status: [VALID] }) { totalCount edges { node { hash price status } } } } }`,
  activity: `query($a: Address!) { account(address: $a) { activity(first: 20) { totalCount edges { node { type tokenId price createdAt } } } } }`,
};

runBench(async () => {
  const wire = args.explain && args.db === 'postgres' ? countPgStatements() : null;
  const db = await createBenchDatabase(args.db as DbKind, { prefix: 'account_bench', pgUrl: args['pg-url'] });
  // loading 200,000 orders (and their event log rows) on a busy machine outlasts the default 5 s
  const running = await bootBenchApp(db, { now: () => NOW, env: { DATABASE_STATEMENT_TIMEOUT_MS: '0' } });
  const collections = await generateCollections(Number(args.collections));
  const t0 = performance.now();
  await loadMarket(running, collections, Number(args.orders));
  const sql = running.db.sql;
  const hottest = collections.slice(0, 20).map((c) => c.address);
  await sql.query(
    `WITH s AS (SELECT signer, (row_number() OVER (ORDER BY signer COLLATE "C"))::int - 1 AS i FROM (SELECT DISTINCT signer FROM orders) x),
          n AS (SELECT count(*)::int AS n FROM s)
     INSERT INTO token_balances (collection_address, token_id, owner, balance)
     SELECT c, g, s.signer, 1 FROM unnest($1::text[]) c, generate_series(1, $2::int) g, n, s
      WHERE s.i = abs(hashtext(c || ':' || g)) % n.n`,
    [hottest, Number(args.tokens)],
  );
  const [whale] = await sql.query<{ signer: string }>(`SELECT signer FROM orders ORDER BY id LIMIT 1`);
  await sql.query(`UPDATE token_balances SET owner = $1 WHERE collection_address = $2 AND token_id % 10 = 0`, [whale!.signer, hottest[0]]);
  await sql.exec('ANALYZE');
  const [typical] = await sql.query<{ owner: string; n: string }>(
    `SELECT owner, count(*)::text AS n FROM token_balances WHERE owner <> $1 GROUP BY owner ORDER BY count(*), owner LIMIT 1 OFFSET (SELECT count(DISTINCT owner) / 2 FROM token_balances)`,
    [whale!.signer],
  );
  const [whaleHeld] = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM token_balances WHERE owner = $1`, [whale!.signer]);
  console.log(`${machine()}\n${db.describe}: ${args.orders} orders over ${args.collections} collections, ${Number(args.tokens) * 20} held tokens, loaded in ${fixed((performance.now() - t0) / 1000)} s`);
  console.log(`typical holder ${typical!.owner}: ${typical!.n} tokens; whale ${whale!.signer}: ${whaleHeld!.n} tokens\n`);

  const ask = async (query: string, a: string, engine: boolean) => {
    running.services.deps.config.readEngine = engine;
    const res = await running.yoga.fetch('http://bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { a } }) });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${res.status} ${text.slice(0, 500)}`);
    return text;
  };
  const rows: (string | number)[][] = [];
  const n = Number(args.iterations);
  for (const [who, a] of [['typical', typical!.owner], ['whale', whale!.signer]] as const) {
    for (const [name, query] of Object.entries(QUERIES)) {
      const [e, r] = [await ask(query, a, true), await ask(query, a, false)];
      if (e !== r) throw new Error(`${name} (${who}): the engine and the resolvers disagree\n${e.slice(0, 400)}\n${r.slice(0, 400)}`);
      const engine = await timeIt(n, () => ask(query, a, true));
      const resolvers = await timeIt(n, () => ask(query, a, false));
      rows.push([`${name} (${who})`, fixed(engine.p50, 2), fixed(engine.p99, 2), fixed(resolvers.p50, 2), fixed(resolvers.p99, 2)]);
    }
  }
  running.services.deps.config.readEngine = true;
  if (wire && db.url) {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const [name, query] of Object.entries(QUERIES)) {
        wire.startCapture();
        await ask(query, whale!.signer, true);
        console.log(formatExplained(`${name} (whale), engine`, await explainStatements(client, wire.stopCapture(), 'analyze', 'force_custom_plan')));
      }
    } finally {
      await client.end();
    }
  }
  console.log(table(['request', 'engine p50 ms', 'engine p99 ms', 'resolvers p50 ms', 'resolvers p99 ms'], rows));
});
