// Preloaded (`node --import ./bench/server-probe.mjs`) into a server the benches start the way
// `npm start` does (scripts/run-built.mjs -> dist/server.js, plain Node, no tsx), so the bench
// measures the production process and not a TypeScript loader. Plain JavaScript on purpose.
// It only observes:
//   - counts SQL statements at the pg driver (the same count bench/helpers.ts countPgStatements keeps);
//   - reports the port to the parent over IPC once the server listens (PORT=0: any free port);
//   - answers {stats} with the statement count, process.memoryUsage() and the V8 heap spaces,
//     so a bench can say where resident memory goes.
import http from 'node:http';
import net from 'node:net';
import v8 from 'node:v8';

// dist/ bundles pg into the server's own code, so a patch of node_modules' pg would see nothing.
// Count on the wire instead: every statement pg sends ends with one Sync message (extended
// protocol: 'S' + length 4, written on its own) or is one Query message (simple protocol, 'Q').
const PG_PORT = Number(new URL(process.env.DATABASE_URL ?? 'postgresql://x:5432/').port || 5432);
let statements = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (chunk, ...rest) {
  if (this.remotePort === PG_PORT && chunk instanceof Uint8Array && chunk.length > 0) {
    if (chunk[0] === 0x51 || (chunk.length === 5 && chunk[0] === 0x53 && chunk[4] === 4)) statements++;
  }
  return write.call(this, chunk, ...rest);
};

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
  if (!m?.stats) return;
  const mem = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_size)]));
  process.send({
    statements,
    memory: { rss: mb(mem.rss), heapTotal: mb(mem.heapTotal), heapUsed: mb(mem.heapUsed), external: mb(mem.external), arrayBuffers: mb(mem.arrayBuffers), spaces },
  });
});
process.on('disconnect', () => process.exit(0));
