// Counts the SQL statements a process sends to PostgreSQL, on the wire, whichever copy of pg
// sends them (dist/ bundles its own; PostGraphile in bench/peer has another): every statement
// pg sends ends with one Sync message (extended protocol: 'S' + length 4, written on its own) or
// is one Query message (simple protocol, 'Q'). Plain JavaScript: the server probe preloads it.
//
// It can also record what is sent (startCapture/stopCapture): the text of each statement with
// its parameter values as bound, so a bench can EXPLAIN exactly what a server ran. Named
// prepared statements are parsed once per connection, maybe long before a capture, so their
// texts are remembered all the time (one byte compared per write; a named Parse is rare).
import net from 'node:net';

/** Parse messages of named statements, per socket: name -> { text, types }. */
const prepared = new WeakMap();
/** The last unnamed Parse per socket (its Bind follows it). */
const unnamed = new WeakMap();
/** The `options` each socket's StartupMessage set (`-c plan_cache_mode=...`): the session settings its statements were planned under. */
const sessionOptions = new WeakMap();

/** A StartupMessage (int32 length, int32 protocol 3.0, then name/value C strings): records its `options`. */
function observeStartup(socket, buf) {
  if (buf.length < 8 || buf.readInt32BE(4) !== 196608) return false;
  let at = 8;
  while (at < buf.length && buf[at] !== 0) {
    const [key, p1] = cstring(buf, at);
    const [value, p2] = cstring(buf, p1);
    if (key === 'options') sessionOptions.set(socket, value);
    at = p2;
  }
  return true;
}

function cstring(buf, at) {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

/** Walks the messages of one write; records Parse always (named), Bind and Query when capturing. */
function observe(socket, chunk, capture) {
  const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  let at = 0;
  while (at + 5 <= buf.length) {
    const type = buf[at];
    const len = buf.readInt32BE(at + 1);
    const body = at + 5;
    const next = at + 1 + len;
    if (len < 4 || next > buf.length) return;
    if (type === 0x50) {
      // Parse: name, text, int16 n, n x int32 type oids
      const [name, p1] = cstring(buf, body);
      const [text, p2] = cstring(buf, p1);
      const n = buf.readInt16BE(p2);
      const types = Array.from({ length: n }, (_, i) => buf.readUInt32BE(p2 + 2 + 4 * i));
      if (name) {
        let m = prepared.get(socket);
        if (!m) prepared.set(socket, (m = new Map()));
        m.set(name, { text, types });
      } else if (capture) unnamed.set(socket, { text, types });
    } else if (capture && type === 0x42) {
      // Bind: portal, statement, int16 nf, nf x int16 formats, int16 n, n x (int32 len, bytes)
      const [, p1] = cstring(buf, body);
      const [name, p2] = cstring(buf, p1);
      const nf = buf.readInt16BE(p2);
      const formats = Array.from({ length: nf }, (_, i) => buf.readInt16BE(p2 + 2 + 2 * i));
      let p = p2 + 2 + 2 * nf;
      const n = buf.readInt16BE(p);
      p += 2;
      const values = [];
      for (let i = 0; i < n; i++) {
        const l = buf.readInt32BE(p);
        p += 4;
        if (l < 0) values.push(null);
        else {
          const binary = (nf === 1 ? formats[0] : formats[i]) === 1;
          values.push(binary ? `\\x${buf.toString('hex', p, p + l)}` : buf.toString('utf8', p, p + l));
          p += l;
        }
      }
      const stmt = name ? prepared.get(socket)?.get(name) : unnamed.get(socket);
      capture.push({ text: stmt?.text ?? `-- prepared statement ${name} (parsed before the capture on this connection)`, types: stmt?.types ?? [], values, name: name || undefined, options: sessionOptions.get(socket) });
    } else if (capture && type === 0x51) {
      const [text] = cstring(buf, body);
      capture.push({ text, types: [], values: [], options: sessionOptions.get(socket) });
    }
    at = next;
  }
}

/** Starts counting writes to sockets connected to `port`; returns the live counter (and the capture switch). */
export function countPgStatementsOnTheWire(port = 5432) {
  let capture = null;
  const counter = {
    count: 0,
    startCapture() {
      capture = [];
    },
    stopCapture() {
      const list = capture ?? [];
      capture = null;
      return list;
    },
  };
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (chunk, ...rest) {
    if (this.remotePort === port && chunk instanceof Uint8Array && chunk.length > 0) {
      if (chunk[0] === 0 && !sessionOptions.has(this)) {
        try {
          observeStartup(this, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
        } catch {}
      }
      if (chunk[0] === 0x51 || (chunk.length === 5 && chunk[0] === 0x53 && chunk[4] === 4)) counter.count++;
      if (capture || (chunk[0] === 0x50 && chunk.length > 5 && chunk[5] !== 0)) {
        try {
          observe(this, chunk, capture);
        } catch {
          // a message this reader does not follow: counted, not recorded
        }
      }
    }
    return write.call(this, chunk, ...rest);
  };
  return counter;
}

/** Answers a parent's {capture: 'start' | 'stop'} over IPC; true when the message was one. */
export function answerCapture(counter, m) {
  if (m?.capture === 'start') {
    counter.startCapture();
    process.send?.({ capturing: true });
    return true;
  }
  if (m?.capture === 'stop') {
    process.send?.({ captured: counter.stopCapture() });
    return true;
  }
  return false;
}
