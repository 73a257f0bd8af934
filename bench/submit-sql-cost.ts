// What PostgreSQL spends per stored order, without HTTP or Node in the figure: the
// backend's own CPU time (/proc/<pid>/stat) for submit_orders at several batch sizes, and for the
// floor write a batch of asks triggers. One connection, a fresh database, dropped afterwards.
//   npx tsx bench/submit-sql-cost.ts [--orders 2000] [--pg-url postgresql://postgres@127.0.0.1:5432/postgres]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { submitOrders, type OrderInsert } from '../src/db/submit-orders-sql.js';
import { collectionsSql, floorWriteScript } from '../src/db/floor-sql.js';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '2000' }, 'pg-url': { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' } } });
const N = Number(values.orders);
const STRATEGY = '0x' + '5a'.repeat(20);
const hex = (bytes: number) => '0x' + randomBytes(bytes).toString('hex');
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
};

const dbName = `mkt_sqlcost_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: values['pg-url'] });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(values['pg-url']!);
url.pathname = `/${dbName}`;
const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
try {
  await migrate(db.sql);
  const collections = Array.from({ length: 4 }, () => hex(20));
  for (const c of collections) await db.sql.query(`INSERT INTO collections (address, type, owner) VALUES ($1, 'ERC721', $2)`, [c, hex(20)]);
  const [{ pid }] = (await db.sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
  const now = BigInt(Math.floor(Date.now() / 1000));
  let k = 0;
  const order = (): OrderInsert => {
    k++;
    return {
      hash: hex(32),
      order: {
        isOrderAsk: k % 5 !== 0, signer: hex(20), collection: collections[k % 4]!, price: 10n ** 15n * BigInt(1 + ((k * 7919) % 1000)),
        tokenId: BigInt(k), amount: 1n, strategy: STRATEGY, currency: hex(20), nonce: BigInt(k % 7), startTime: now - 60n, endTime: now + 604800n,
        minPercentageToAsk: 9800n, params: [], encodedParams: '0x', signature: hex(65),
      },
      paramsJson: '[]', sig: { signature: hex(65), v: 27, r: hex(32), s: hex(32) }, checkedBlock: null, collectionType: 'ERC721', discovered: null,
    };
  };
  console.log(`PostgreSQL CPU per order (backend ${pid}), ${N} orders per row; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('| step | batch | orders | backend CPU µs/order | wall µs/order |');
  console.log('|---|---:|---:|---:|---:|');
  for (const size of (process.env.SIZES ?? "1,4,16,64").split(",").map(Number)) {
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    for (let i = 0; i < N; i += size) {
      const r = await submitOrders(db.sql, Array.from({ length: Math.min(size, N - i) }, order));
      if (r.some((x) => x.code !== 'OK')) throw new Error(`refused: ${r.map((x) => x.code)}`);
    }
    console.log(`| submit_orders | ${size} | ${N} | ${(((cpuMs(pid) - c0) * 1000) / N).toFixed(0)} | ${(((performance.now() - t0) * 1000) / N).toFixed(0)} |`);
  }
  for (const per of [1, 4, 16]) {
    const calls = Math.ceil(N / per / 4);
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await db.sql.exec(floorWriteScript(collectionsSql(collections), new Date(), [STRATEGY]).join(';\n') + ';');
    console.log(`| floor write (4 collections) | 1 per ${per} orders | ${calls * per * 4} | ${(((cpuMs(pid) - c0) * 1000) / (calls * per * 4)).toFixed(0)} | ${(((performance.now() - t0) * 1000) / (calls * per * 4)).toFixed(0)} |`);
  }
} finally {
  await db.close();
  if (!process.env.KEEP_DB) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  else console.log(`kept ${dbName}`);
  await admin.end();
}
