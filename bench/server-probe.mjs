// Preloaded (`node --import ./bench/server-probe.mjs`) into a server the benches start the way
// `npm start` does (scripts/run-built.mjs -> dist/server.js, plain Node, no tsx), so the bench
// measures the production process and not a TypeScript loader. Plain JavaScript on purpose.
// It only observes:
//   - counts SQL statements on the wire (bench/pg-wire-count.mjs, as bench/helpers.ts countPgStatements);
//   - reports the port to the parent over IPC once the server listens (PORT=0: any free port);
//   - answers {stats} with the statement count, process.memoryUsage() and the V8 heap spaces,
//     so a bench can say where resident memory goes;
//   - answers {capture: 'start' | 'stop'} with the statements sent in between (text and bound
//     values, for EXPLAIN).
import http from 'node:http';
import v8 from 'node:v8';
import { answerCapture, countPgStatementsOnTheWire } from './pg-wire-count.mjs';

const counter = countPgStatementsOnTheWire(Number(new URL(process.env.DATABASE_URL ?? 'postgresql://x:5432/').port || 5432));

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const addr = this.address();
    if (addr && typeof addr === 'object') process.send?.({ port: addr.port });
  });
  return listen.apply(this, args);
};

const mb = (n) => Math.round((n / 2 ** 20) * 10) / 10;

process.on('message', (m) => {
  if (answerCapture(counter, m) || !m?.stats) return;
  const mem = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_size)]));
  process.send({
    statements: counter.count,
    memory: { rss: mb(mem.rss), heapTotal: mb(mem.heapTotal), heapUsed: mb(mem.heapUsed), external: mb(mem.external), arrayBuffers: mb(mem.arrayBuffers), spaces },
  });
});
process.on('disconnect', () => process.exit(0));
