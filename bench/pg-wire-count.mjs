// Counts the SQL statements a process sends to PostgreSQL, on the wire, whichever copy of pg
// sends them (dist/ bundles its own; PostGraphile in bench/peer has another): every statement
// pg sends ends with one Sync message (extended protocol: 'S' + length 4, written on its own) or
// is one Query message (simple protocol, 'Q'). Plain JavaScript: the server probe preloads it.
import net from 'node:net';

/** Starts counting writes to sockets connected to `port`; returns the live counter. */
export function countPgStatementsOnTheWire(port = 5432) {
  const counter = { count: 0 };
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (chunk, ...rest) {
    if (this.remotePort === port && chunk instanceof Uint8Array && chunk.length > 0) {
      if (chunk[0] === 0x51 || (chunk.length === 5 && chunk[0] === 0x53 && chunk[4] === 4)) counter.count++;
    }
    return write.call(this, chunk, ...rest);
  };
  return counter;
}
