// Hostile token metadata through the whole pipeline: token URIs read from a contract on a local
// EVM, documents served by loopback servers that misbehave (huge, deep, not UTF-8, not JSON,
// redirecting in circles or into the private network, hanging, trickling, lying about their
// length, inflating) and by a trustless IPFS gateway that lies, read by the real fetcher and
// worker into a real database. After one drain every hostile token is ERROR with its code or OK
// with its fields sanitised, the control tokens read among them are exact, trait counts equal a
// recount, and GraphQL answers every token.
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { getAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../../src/chain/chain-reader.js';
import type { ContentSource } from '../../src/domain/token-uri.js';
import { guardedLookup } from '../../src/services/guarded-lookup.js';
import { createContentFetcher, type ContentFetcher } from '../../src/services/metadata-fetch/index.js';
import { safeGet } from '../../src/services/metadata-fetch/safe-get.js';
import { createMetadataQueue } from '../../src/services/metadata-queue.js';
import { createMetadataWorker } from '../../src/services/metadata-worker.js';
import { createTokenRarity } from '../../src/services/token-rarity.js';
import { deployContract, type TestERC1155, type TestERC721 } from '../helpers/evm/deploy.js';
import { startLocalEvm, type LocalEvm } from '../helpers/evm/local-evm.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { startServer, type LocalServer } from './metadata-fetch/local-servers.js';
import { carOf, importContent, type Imported } from './metadata-fetch/trustless-gateway.js';

const TIMEOUT_MS = 1500;
const MAX_BYTES = 1024 * 1024;
const RETRIES = 1;
const NO_CODE_COLLECTION = getAddress('0x000000000000000000000000000000000000dead');

/** What a GraphQL token query answers (the fields every token is asked for). */
interface TokenAnswer {
  name: string | null;
  description: string | null;
  image: string | null;
  animationURL: string | null;
  externalURL: string | null;
  attributes: Array<{ traitType: string; value: string; kind: string; tokenCount: number }> | null;
  metadata: { status: string; nextFetchAt: string | null; tokenURI: string | null; error: { code: string; message: string | null } | null };
}

interface Servers {
  hostile: LocalServer;
  slow: LocalServer;
  limited: LocalServer;
  raw: { origin: string; close(): Promise<void> };
  canary: LocalServer;
  cids: Record<string, string>;
}

/**
 * One token each. `uri` is what the contract answers; `code` the error it must end with (none: it
 * must end OK).
 */
interface HostileCase {
  name: string;
  uri: (s: Servers) => string;
  code?: string;
  /** more to check on the GraphQL answer (an OK token's sanitised fields, a failed one's URI) */
  check?: (t: TokenAnswer) => void;
  /** a failure worth reading again: a retry is scheduled (metadata.nextFetchAt set) */
  retried?: boolean;
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v));
/** `{"name":"deep","x":[[...]]}` with `levels` containers in all (the object is the first). */
const nested = (levels: number) => `{"name":"deep","x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
const CONTROL = (i: number) => ({ name: `Control ${i}`, image: `https://img.example/${i}.png`, attributes: [{ trait_type: 'Kind', value: 'Control' }, { trait_type: 'Serial', value: i }] });
const traitsOf = (t: TokenAnswer) => (t.attributes ?? []).map((a) => [a.traitType, a.value]);

/** The hostile server's documents and behaviours, by path. */
const PAGES: Record<string, (res: http.ServerResponse) => void> = {
  '/huge': (res) => res.writeHead(200).end(json({ name: 'huge', description: 'x'.repeat(3 * MAX_BYTES) })),
  '/big-doc': (res) => res.writeHead(200).end(json({ name: 'big', description: 'x'.repeat(400 * 1024) })),
  '/deep-1000': (res) => res.writeHead(200).end(nested(1000)),
  '/deep-33': (res) => res.writeHead(200).end(nested(33)),
  '/deep-32': (res) => res.writeHead(200).end(nested(32)),
  '/deep-unclosed': (res) => res.writeHead(200).end('['.repeat(200_000)),
  '/bad-utf8': (res) => res.writeHead(200).end(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')])),
  '/utf16': (res) => res.writeHead(200).end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"name":"utf16"}', 'utf16le')])),
  '/bom': (res) => res.writeHead(200).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json({ name: 'BOM', attributes: [{ trait_type: 'Mark', value: 'BOM' }] })])),
  '/nul': (res) => res.writeHead(200).end(json({ name: 'Nul\u0000Name\u0007\u009b', description: 'a\u0000b\tc\nd', attributes: [{ trait_type: 'K\u0000ey', value: 'V\u0000al\u001b' }] })),
  '/lone-surrogate': (res) => res.writeHead(200).end('{"name":"half \\ud800 pair","attributes":[{"trait_type":"Half","value":"\\udc00"}]}'),
  // 10,000 within the 256 KB a document may have: values without a trait type
  '/10000-attributes': (res) => res.writeHead(200).end(json({ name: 'many', attributes: Array.from({ length: 10_000 }, (_, i) => ({ value: `v${i}` })) })),
  '/attributes-object': (res) => res.writeHead(200).end(json({ name: 'map', attributes: { Eyes: 'Laser', Mouth: 'Smile', Level: 7, Bad: { nested: true } } })),
  '/attributes-string': (res) => res.writeHead(200).end(json({ name: 'string attrs', attributes: 'Eyes: Laser' })),
  '/html': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body><h1>Welcome</h1><script>alert(1)</script></body></html>'),
  '/array': (res) => res.writeHead(200).end(json([{ name: 'in a list' }])),
  '/empty': (res) => res.writeHead(200).end(),
  '/null': (res) => res.writeHead(200).end('null'),
  '/loop/a': (res) => res.writeHead(302, { location: '/loop/b' }).end(),
  '/loop/b': (res) => res.writeHead(302, { location: '/loop/a' }).end(),
  '/to-ftp': (res) => res.writeHead(302, { location: 'ftp://files.example/meta.json' }).end(),
  '/bomb': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(GZIP_BOMB),
  '/br-bomb': (res) => res.writeHead(200, { 'content-encoding': 'br' }).end(BROTLI_BOMB),
  '/3000-codings': (res) => res.writeHead(200, { 'content-encoding': Array(3000).fill('gzip').join(',') }).end(zlib.gzipSync(json({ name: 'layers' }))),
  '/not-gzip': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(json({ name: 'not gzip' })),
  '/gzip-ok': (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(json(CONTROL(3)))),
  '/declared-huge': (res) => void res.writeHead(200, { 'content-length': String(50 * MAX_BYTES) }).write('{'),
  '/missing': (res) => res.writeHead(404).end('not found'),
  '/always-500': (res) => res.writeHead(500).end('oops'),
  '/svg-script': (res) => res.writeHead(200).end(json({ name: 'SVG', image_data: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>' })),
  '/javascript-urls': (res) => res.writeHead(200).end(json({ name: 'JS', image: 'javascript:alert(1)', image_url: ' JaVaScRiPt:alert(2)', animation_url: 'java\tscript:alert(3)', external_url: 'javascript:alert(4)' })),
  '/huge-text': (res) => res.writeHead(200).end(json({ name: `${'n'.repeat(5000)}😀`, description: 'd'.repeat(200_000), attributes: [{ trait_type: '😀'.repeat(150), value: '🦄'.repeat(800) }] })),
  '/huge-numbers': (res) =>
    res
      .writeHead(200)
      .end(
        '{"name":1e400,"attributes":[{"trait_type":"Big","value":1e308},{"trait_type":"Long","value":123456789012345678901234567890},' +
          '{"trait_type":"Inf","value":-1e400},{"trait_type":"When","display_type":"date","value":1e300},{"trait_type":"Zero","value":-0}]}',
      ),
  // a trait value that looks numeric for 200,000 characters, then is not
  '/digits': (res) => res.writeHead(200).end(json({ name: 'digits', attributes: [{ trait_type: 'Digits', value: `${'1'.repeat(200_000)}x` }, { trait_type: 'Big', display_type: 'number', value: '9'.repeat(1000) }] })),
  '/proto': (res) =>
    res
      .writeHead(200)
      .end('{"__proto__":{"polluted":"yes"},"name":"Proto","constructor":{"prototype":{"polluted":"yes"}},"attributes":{"__proto__":"Shield","constructor":"Sword","hasOwnProperty":"Bow"}}'),
  '/duplicates': (res) =>
    res.writeHead(200).end(
      json({
        name: 'dup',
        attributes: [
          { trait_type: 'Hat', value: 'Red' },
          { trait_type: 'Hat', value: 'Red' },
          { trait_type: 'Hat', value: '  Red ' },
          { trait_type: 'hat', value: 'red' },
          { trait_type: 'Level', value: 1 },
          { trait_type: 'Level', value: '1' },
        ],
      }),
    ),
};
for (let i = 0; i <= 10; i++) PAGES[`/chain/${i}`] = (res) => res.writeHead(301, { location: `/chain/${i + 1}` }).end();
for (let i = 1; i <= 4; i++) PAGES[`/control/${i}`] = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json(CONTROL(i)));
PAGES['/to-control'] = (res) => res.writeHead(307, { location: '/control/4' }).end();
PAGES['/to-imds'] = (res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }).end();
PAGES['/to-ten'] = (res) => res.writeHead(302, { location: 'http://10.0.0.1/metadata.json' }).end();

let GZIP_BOMB: Buffer;
let BROTLI_BOMB: Buffer;

const CASES: HostileCase[] = [
  // well-behaved controls, read among the hostile tokens
  { name: 'control: http', uri: (s) => `${s.hostile.origin}/control/1`, check: (t) => expect(traitsOf(t)).toEqual([['Kind', 'Control'], ['Serial', '1']]) },
  { name: 'control: ipfs, verified CAR', uri: (s) => `ipfs://${s.cids.control}/control.json`, check: (t) => expect(t.name).toBe('Control 2') },
  { name: 'control: gzip', uri: (s) => `${s.hostile.origin}/gzip-ok`, check: (t) => expect(t.name).toBe('Control 3') },
  { name: 'control: through a redirect', uri: (s) => `${s.hostile.origin}/to-control`, check: (t) => expect(t.name).toBe('Control 4') },
  { name: 'control: data: base64', uri: () => `data:application/json;base64,${json(CONTROL(5)).toString('base64')}`, check: (t) => expect(t.name).toBe('Control 5') },
  { name: '32 levels deep (at the cap)', uri: (s) => `${s.hostile.origin}/deep-32`, check: (t) => expect(t.name).toBe('deep') },

  // size and shape
  { name: '3 MB document', uri: (s) => `${s.hostile.origin}/huge`, code: 'TOO_LARGE' },
  { name: '400 KB document (over the 256 KB parse cap)', uri: (s) => `${s.hostile.origin}/big-doc`, code: 'TOO_LARGE' },
  { name: '1,000 levels deep', uri: (s) => `${s.hostile.origin}/deep-1000`, code: 'INVALID_METADATA' },
  { name: '33 levels deep (one past the cap)', uri: (s) => `${s.hostile.origin}/deep-33`, code: 'INVALID_METADATA' },
  { name: '200,000 unclosed brackets', uri: (s) => `${s.hostile.origin}/deep-unclosed`, code: 'INVALID_METADATA' },
  { name: 'invalid UTF-8', uri: (s) => `${s.hostile.origin}/bad-utf8`, code: 'INVALID_JSON' },
  { name: 'UTF-16 with its BOM', uri: (s) => `${s.hostile.origin}/utf16`, code: 'INVALID_JSON' },
  { name: 'UTF-8 BOM', uri: (s) => `${s.hostile.origin}/bom`, check: (t) => expect([t.name, traitsOf(t)]).toEqual(['BOM', [['Mark', 'BOM']]]) },
  {
    name: 'NUL and control characters in text',
    uri: (s) => `${s.hostile.origin}/nul`,
    check: (t) => expect([t.name, t.description, traitsOf(t)]).toEqual(['NulName', 'ab\tc\nd', [['Key', 'Val']]]),
  },
  { name: 'lone surrogate escapes', uri: (s) => `${s.hostile.origin}/lone-surrogate`, check: (t) => expect([t.name, traitsOf(t)]).toEqual(['half \uFFFD pair', [['Half', '\uFFFD']]]) },
  {
    name: '10,000 attributes',
    uri: (s) => `${s.hostile.origin}/10000-attributes`,
    check: (t) => expect(traitsOf(t)).toEqual(Array.from({ length: 500 }, (_, i) => ['', `v${i}`])),
  },
  {
    name: 'attributes as an object map',
    uri: (s) => `${s.hostile.origin}/attributes-object`,
    check: (t) => expect(traitsOf(t)).toEqual([['Eyes', 'Laser'], ['Mouth', 'Smile'], ['Level', '7']]),
  },
  { name: 'attributes as a string', uri: (s) => `${s.hostile.origin}/attributes-string`, check: (t) => expect([t.name, t.attributes]).toEqual(['string attrs', []]) },
  { name: 'HTML instead of JSON', uri: (s) => `${s.hostile.origin}/html`, code: 'INVALID_JSON' },
  { name: 'a JSON array at the top', uri: (s) => `${s.hostile.origin}/array`, code: 'INVALID_METADATA' },
  { name: 'empty body', uri: (s) => `${s.hostile.origin}/empty`, code: 'INVALID_JSON' },
  { name: "'null' body", uri: (s) => `${s.hostile.origin}/null`, code: 'INVALID_METADATA' },
  {
    name: 'SVG with <script> as image_data',
    uri: (s) => `${s.hostile.origin}/svg-script`,
    check: (t) => {
      expect(t.image).toMatch(/^data:image\/svg\+xml;base64,[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(t.image!.split(',')[1]!, 'base64').toString()).toContain('<script>');
    },
  },
  { name: 'javascript: image, animation and external URLs', uri: (s) => `${s.hostile.origin}/javascript-urls`, check: (t) => expect([t.name, t.image, t.animationURL, t.externalURL]).toEqual(['JS', null, null, null]) },
  {
    name: 'huge name, description and trait (4-byte characters)',
    uri: (s) => `${s.hostile.origin}/huge-text`,
    check: (t) => {
      expect([...t.name!].length).toBe(200);
      expect([...t.description!].length).toBe(10_000);
      expect(traitsOf(t)).toEqual([['😀'.repeat(100), '🦄'.repeat(500)]]);
    },
  },
  {
    name: 'huge numbers',
    uri: (s) => `${s.hostile.origin}/huge-numbers`,
    check: (t) => expect([t.name, traitsOf(t)]).toEqual([null, [['Big', '1e+308'], ['Long', '1.2345678901234568e+29'], ['When', '1e+297'], ['Zero', '0']]]),
  },
  {
    name: 'a 200,000-digit trait value (no backtracking blow-up)',
    uri: (s) => `${s.hostile.origin}/digits`,
    check: (t) => expect(traitsOf(t)).toEqual([['Digits', '1'.repeat(500)], ['Big', '9'.repeat(500)]]),
  },
  {
    name: '__proto__ and constructor keys',
    uri: (s) => `${s.hostile.origin}/proto`,
    check: (t) => expect([t.name, traitsOf(t)]).toEqual(['Proto', [['__proto__', 'Shield'], ['constructor', 'Sword'], ['hasOwnProperty', 'Bow']]]),
  },
  {
    name: 'a duplicate trait pair',
    uri: (s) => `${s.hostile.origin}/duplicates`,
    check: (t) => expect(traitsOf(t)).toEqual([['Hat', 'Red'], ['hat', 'red'], ['Level', '1']]),
  },

  // HTTP behaviour
  { name: 'redirect loop', uri: (s) => `${s.hostile.origin}/loop/a`, code: 'TOO_MANY_REDIRECTS' },
  { name: 'redirect chain longer than the limit', uri: (s) => `${s.hostile.origin}/chain/0`, code: 'TOO_MANY_REDIRECTS' },
  { name: 'redirect to ftp://', uri: (s) => `${s.hostile.origin}/to-ftp`, code: 'UNSUPPORTED_URI' },
  { name: 'redirect to 169.254.169.254 (cloud metadata)', uri: (s) => `http://metadata.example:${s.hostile.port}/to-imds`, code: 'BLOCKED_TARGET' },
  { name: 'redirect to 10.0.0.1', uri: (s) => `http://metadata.example:${s.hostile.port}/to-ten`, code: 'BLOCKED_TARGET' },
  { name: 'URI at 169.254.169.254', uri: () => 'http://169.254.169.254/latest/meta-data/', code: 'BLOCKED_TARGET' },
  { name: 'URI at 10.0.0.1 written as ::ffff:a00:1', uri: () => 'http://[::ffff:a00:1]/1.json', code: 'BLOCKED_TARGET' },
  { name: 'URI at loopback written 0x7f000001', uri: (s) => `http://0x7f000001:${s.canary.port}/canary.json`, code: 'BLOCKED_TARGET' },
  { name: 'URI at localhost', uri: (s) => `http://localhost:${s.canary.port}/canary.json`, code: 'BLOCKED_TARGET' },
  { name: 'accepts and never answers', uri: (s) => `${s.slow.origin}/silent`, code: 'TIMEOUT', retried: true },
  { name: 'trickles a byte per 100 ms', uri: (s) => `${s.slow.origin}/trickle`, code: 'TIMEOUT', retried: true },
  { name: 'TCP accepted, nothing said', uri: (s) => `${s.raw.origin}/silent`, code: 'TIMEOUT', retried: true },
  { name: 'not HTTP at all', uri: (s) => `${s.raw.origin}/garbage`, code: 'NETWORK', retried: true },
  { name: 'Content-Length longer than the body', uri: (s) => `${s.raw.origin}/short-body`, code: 'NETWORK', retried: true },
  { name: 'Content-Length shorter than the body', uri: (s) => `${s.raw.origin}/long-body`, code: 'INVALID_JSON' },
  { name: 'Content-Length of 50 MB', uri: (s) => `${s.hostile.origin}/declared-huge`, code: 'TOO_LARGE' },
  { name: 'gzip bomb (16 MiB of zeros in 16 KB)', uri: (s) => `${s.hostile.origin}/bomb`, code: 'TOO_LARGE' },
  { name: 'brotli bomb', uri: (s) => `${s.hostile.origin}/br-bomb`, code: 'TOO_LARGE' },
  {
    name: 'Content-Encoding listing gzip 3,000 times',
    uri: (s) => `${s.hostile.origin}/3000-codings`,
    code: 'NETWORK',
    retried: true,
    check: (t) => expect(t.metadata.error!.message).toContain('3000 content codings'), // refused before 3,000 decompressors were made
  },
  { name: 'gzip declared, not gzip', uri: (s) => `${s.hostile.origin}/not-gzip`, code: 'NETWORK', retried: true },
  { name: '404', uri: (s) => `${s.hostile.origin}/missing`, code: 'HTTP_STATUS' },
  { name: '500 every time', uri: (s) => `${s.hostile.origin}/always-500`, code: 'HTTP_STATUS', retried: true },
  {
    name: '429 with Retry-After an hour',
    uri: (s) => `${s.limited.origin}/busy`,
    code: 'HTTP_STATUS',
    retried: true,
    // the host asked for an hour: the retry waits that long, not the first backoff step
    check: (t) => expect(Number(t.metadata.nextFetchAt) - Date.now() / 1000).toBeGreaterThan(3500),
  },

  // the token URI itself
  { name: 'empty tokenURI', uri: () => '', code: 'NO_URI' },
  { name: 'blank tokenURI', uri: () => ' \n ', code: 'NO_URI' },
  { name: 'ftp://', uri: () => 'ftp://files.example/1.json', code: 'UNSUPPORTED_URI' },
  { name: 'javascript: as the URI', uri: () => 'javascript:alert(1)', code: 'UNSUPPORTED_URI' },
  { name: 'data: with bad base64', uri: () => 'data:application/json;base64,eyJuYW1lIjoi*?!', code: 'INVALID_URI' },
  { name: 'ipfs:// with an invalid CID', uri: () => 'ipfs://QmNotACid0000/1.json', code: 'INVALID_URI' },
  { name: "ipfs:// with '..'", uri: (s) => `ipfs://${s.cids.control}/../1.json`, code: 'INVALID_URI' },
  // what text cannot hold is stored as U+FFFD, the rest of the URI as it was
  { name: 'NUL in the URI', uri: (s) => `${s.hostile.origin}/control/1\u0000.json`, code: 'INVALID_URI', check: (t) => expect(t.metadata.tokenURI).toMatch(/\/control\/1\uFFFD\.json$/) },
  { name: 'data: URI with NUL', uri: () => 'data:application/json,{"name":"a\u0000"}', code: 'INVALID_URI' },
  // stored cut to 2,048 UTF-16 units: the cut falls inside the emoji's surrogate pair
  { name: 'a long bad URI cut inside a surrogate pair', uri: () => `http://h.example/${'a'.repeat(2030)}😀 x`, code: 'INVALID_URI', check: (t) => expect(t.metadata.tokenURI).toMatch(/a\uFFFD$/) },
  { name: '17 KB URI', uri: () => `https://h.example/${'a'.repeat(17 * 1024)}`, code: 'INVALID_URI' },

  // IPFS gateways that lie
  { name: 'gateway serving a tampered CAR', uri: (s) => `ipfs://${s.cids.tampered}/1.json`, code: 'CID_MISMATCH' },
  { name: "gateway serving another CID's content", uri: (s) => `ipfs://${s.cids.swapped}/1.json`, code: 'CID_MISMATCH' },
  { name: 'gateway serving a tampered raw block', uri: (s) => `ipfs://${s.cids.rawTampered}`, code: 'CID_MISMATCH' },
  { name: 'gateway serving no CAR at all', uri: (s) => `ipfs://${s.cids.garbage}/1.json`, code: 'CID_MISMATCH' },
  { name: 'IPFS DAG unfolding to 4 MiB of zeros', uri: (s) => `ipfs://${s.cids.dagBomb}/zeros.json`, code: 'TOO_LARGE' },
  { name: 'IPFS path naming a directory', uri: (s) => `ipfs://${s.cids.control}`, code: 'UNSUPPORTED_URI' },
  { name: 'IPFS path naming nothing', uri: (s) => `ipfs://${s.cids.control}/nope.json`, code: 'HTTP_STATUS' },
];

let evm: LocalEvm;
let app: TestApp;
let servers: Servers;
let gateway: LocalServer;
let nft: TestERC721;
let collection: string;
let multi: string;
const tokenIdOf = (c: HostileCase) => String(CASES.indexOf(c) + 1);

/** A TCP server that speaks broken HTTP, by request path. */
async function startRawServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (d) => {
      const path = /^GET (\S+)/.exec(d.toString('latin1'))?.[1];
      const body = JSON.stringify(CONTROL(9));
      if (path === '/garbage') socket.end('SSH-2.0-OpenSSH_9.6\r\n\u0000\u0001\u0002');
      else if (path === '/short-body') socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${body}`);
      else if (path === '/long-body') socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 20\r\nConnection: close\r\n\r\n${body}`);
      // '/silent': accepted, never a byte
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}

/** A trustless gateway whose answer depends on the CID asked for: some honest, most not. */
async function startLyingGateway(contents: { good: Imported[]; tampered: Imported; swapped: [Imported, Imported]; rawTampered: Imported; garbage: Imported }) {
  const cars = new Map<string, () => Promise<Uint8Array>>();
  const raws = new Map<string, Uint8Array>();
  const flip = (b: Uint8Array) => {
    const c = Uint8Array.from(b);
    c[c.length - 1]! ^= 0xff;
    return c;
  };
  for (const g of contents.good) cars.set(g.root.toString(), () => carOf(g.root, g.blocks));
  cars.set(contents.tampered.root.toString(), async () => flip(await carOf(contents.tampered.root, contents.tampered.blocks)));
  const [asked, served] = contents.swapped;
  cars.set(asked.root.toString(), () => carOf(served.root, served.blocks));
  cars.set(contents.garbage.root.toString(), async () => Buffer.from('<html>pinning service is down</html>'));
  raws.set(contents.rawTampered.root.toString(), flip(contents.rawTampered.blocks[0]!.bytes));
  return startServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cid = /^\/ipfs\/([^/]+)/.exec(url.pathname)?.[1] ?? '';
    const raw = url.searchParams.get('format') === 'raw' ? raws.get(cid) : undefined;
    if (raw) return void res.writeHead(200, { 'content-type': 'application/vnd.ipld.raw' }).end(raw);
    const car = cars.get(cid);
    if (!car) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/vnd.ipld.car; version=1' }).end(await car());
  });
}

beforeAll(async () => {
  GZIP_BOMB = zlib.gzipSync(Buffer.alloc(16 << 20), { level: 9 });
  BROTLI_BOMB = zlib.brotliCompressSync(Buffer.alloc(16 << 20), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
  evm = await startLocalEvm();
  const [w0, w1] = evm.wallets;
  nft = await deployContract<TestERC721>('TestERC721', w0!, 'Hostile', 'HOST');
  const m = await deployContract<TestERC1155>('TestERC1155', w0!, 'Multi', 'MULTI');
  collection = await nft.getAddress();
  multi = await m.getAddress();

  const hostile = await startServer((req, res) => {
    const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
    if (page) return page(res);
    const e = /^\/1155\/([0-9a-f]{64})\.json$/.exec(req.url ?? '');
    if (e) return void res.writeHead(200).end(json({ name: `Pass ${BigInt('0x' + e[1])}`, attributes: [{ trait_type: 'Kind', value: 'Control' }] }));
    res.writeHead(404).end();
  });
  const slow = await startServer((req, res) => {
    if (req.url === '/trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(t));
    }
    // '/silent': headers never come
  });
  const limited = await startServer((_req, res) => void res.writeHead(429, { 'retry-after': '3600' }).end());
  const canary = await startServer((_req, res) => void res.writeHead(200).end(json(CONTROL(0))));
  const raw = await startRawServer();

  const file = (path: string, content: Uint8Array) => importContent([{ path, content }], { wrapWithDirectory: true });
  const control = await file('control.json', json(CONTROL(2)));
  const tampered = await file('1.json', json({ name: 'tampered' }));
  const swapped = await file('1.json', json({ name: 'asked for' }));
  const other = await file('other.json', json({ name: 'served instead' }));
  const garbage = await file('1.json', json({ name: 'never served' }));
  const dagBomb = await importContent([{ path: 'zeros.json', content: new Uint8Array(4 << 20) }], { wrapWithDirectory: true });
  const rawTampered = await importContent([{ content: json({ name: 'raw block' }) }]);
  gateway = await startLyingGateway({ good: [control, dagBomb], tampered, swapped: [swapped, other], rawTampered, garbage });
  servers = {
    hostile,
    slow,
    limited,
    canary,
    raw,
    cids: {
      control: control.root.toString(),
      tampered: tampered.root.toString(),
      swapped: swapped.root.toString(),
      garbage: garbage.root.toString(),
      dagBomb: dagBomb.root.toString(),
      rawTampered: rawTampered.root.toString(),
    },
  };

  for (const c of CASES) {
    const uri = c.uri(servers);
    if (uri !== '') await (await nft.setTokenURI(tokenIdOf(c), uri)).wait();
  }
  await (await m.setURI(`${hostile.origin}/1155/{id}.json`, 7)).wait();

  app = await startTestApp({ METADATA_CONCURRENCY: String(CASES.length + 8) });
  for (const [address, type] of [[collection, 'ERC721'], [multi, 'ERC1155'], [NO_CODE_COLLECTION, 'ERC721']] as const) {
    await app.db.sql.query(`INSERT INTO collections (address, owner, type) VALUES ($1, $1, $2::"CollectionType")`, [address, type]);
  }
  await app.db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) SELECT $1, g, $2, 1 FROM generate_series(1, $3::int) g`, [
    collection,
    w1!.address,
    CASES.length,
  ]);
  await app.db.sql.query(`INSERT INTO token_balances (collection_address, token_id, owner, balance) VALUES ($1, 7, $3, 1), ($2, 1, $3, 1)`, [multi, NO_CODE_COLLECTION, w1!.address]);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([servers?.hostile.close(), servers?.slow.close(), servers?.limited.close(), servers?.canary.close(), servers?.raw.close(), gateway?.close()]);
  await evm?.stop();
});

/**
 * An agent that answers `metadata.example` with loopback (standing in for a public name's DNS
 * answer) and resolves every other name through the guard, as the fetcher's agents do.
 */
function publicNameAgent(): http.Agent {
  const guard = guardedLookup(false);
  return new http.Agent({
    lookup: ((name: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) =>
      name === 'metadata.example'
        ? options.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)
        : guard(name, options as never, cb as never)) as never,
  });
}

/**
 * The fetcher the worker reads through: the production guard (private targets refused) for every
 * URI, except that the test's own loopback servers stand for public hosts: they are read with
 * private targets allowed, and `metadata.example` resolves to loopback (as a public name would
 * to a public address) so that a redirect from it is checked by the guard alone.
 */
function hostileFetcher(): ContentFetcher {
  const options = {
    ipfsGateways: [gateway.origin],
    arweaveGateway: 'https://arweave.invalid',
    timeoutMs: TIMEOUT_MS,
    maxBytes: MAX_BYTES,
    maxRedirects: 3,
    perHostConcurrency: 8,
    perHostIntervalMs: 0,
    retries: RETRIES,
    retryBaseDelayMs: 20,
  };
  const open = createContentFetcher({ ...options, allowPrivateTargets: true });
  const guarded = createContentFetcher({ ...options, allowPrivateTargets: false });
  const agent = publicNameAgent();
  const ours = new Set([servers.hostile, servers.slow, servers.limited, servers.raw, gateway].map((s) => new URL(s.origin).host));
  return {
    fetch(source: ContentSource) {
      if (source.kind !== 'http') return open.fetch(source);
      const url = new URL(source.url);
      if (url.hostname === 'metadata.example') {
        return safeGet(source.url, { timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, allowPrivateTargets: false, agents: { http: agent, https: agent as never, destroy: () => agent.destroy() } });
      }
      return (ours.has(url.host) ? open : guarded).fetch(source);
    },
    close() {
      open.close();
      guarded.close();
      agent.destroy();
    },
  };
}

const TOKEN_QUERY = `query($c: Address!, $t: Uint256!) { token(collection: $c, tokenId: $t) {
  name description image animationURL externalURL attributes { traitType value kind tokenCount } metadata { status nextFetchAt tokenURI error { code message } } } }`;

async function tokenAnswer(c: string, tokenId: string): Promise<TokenAnswer> {
  const res = await app.gql<{ token: TokenAnswer }>(TOKEN_QUERY, { c, t: tokenId });
  expect(res.status, `${c} ${tokenId}`).toBe(200);
  expect(res.errors, `${c} ${tokenId}: ${JSON.stringify(res.errors)}`).toBeUndefined();
  return res.data!.token;
}

describe(`hostile token metadata (${backendName})`, () => {
  let drained = 0;
  let drainMs = 0;

  beforeAll(async () => {
    const deps = app.services.deps;
    const queue = createMetadataQueue(deps);
    const fetcher = hostileFetcher();
    const worker = createMetadataWorker(deps, queue, createTokenRarity(deps), createChainReader(evm.rpcUrl, deps.network), fetcher, { instanceId: 'hostile', random: () => 0.5 });
    await queue.enqueue(collection, CASES.map(tokenIdOf));
    await queue.enqueue(multi, ['7']);
    await queue.enqueue(NO_CODE_COLLECTION, ['1']);
    const started = performance.now();
    try {
      for (let n; (n = await worker.runOnce()) > 0; ) drained += n;
    } finally {
      fetcher.close();
    }
    drainMs = performance.now() - started;
  }, 60_000);

  it('reads every token in one drain, each bounded by the deadline', () => {
    expect(CASES.filter((c) => c.code).length).toBeGreaterThanOrEqual(30);
    expect(drained).toBe(CASES.length + 2);
    // the slowest read: every attempt timing out, one after another
    expect(drainMs).toBeLessThan(TIMEOUT_MS * (RETRIES + 1) + 10_000);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const t = await tokenAnswer(collection, tokenIdOf(c));
    if (c.code) {
      expect(t.metadata).toMatchObject({ status: 'ERROR', error: { code: c.code } });
      expect([t.name, t.attributes]).toEqual([null, null]);
      // a transient failure is tried again; a final one only at the recheck of a mutable URI or on an event
      if (c.retried) expect(t.metadata.nextFetchAt, 'a retry is scheduled').not.toBeNull();
    } else {
      expect(t.metadata).toMatchObject({ status: 'OK', error: null });
    }
    c.check?.(t);
  });

  it('answers a contract call that fails (no code at the address) and an ERC-1155 {id} template', async () => {
    expect((await tokenAnswer(NO_CODE_COLLECTION, '1')).metadata).toMatchObject({ status: 'ERROR', error: { code: 'TOKEN_URI_REVERTED' } });
    expect(await tokenAnswer(multi, '7')).toMatchObject({ name: 'Pass 7', metadata: { status: 'OK' } });
  });

  it('keeps the control tokens exact and the trait counts equal to a recount', async () => {
    const controls = await app.db.sql.query<{ n: number }>(`SELECT token_count AS n FROM trait_values WHERE collection_address = $1 AND trait_type = 'Kind' AND value = 'Control'`, [collection]);
    expect(controls).toEqual([{ n: CASES.filter((c) => c.name.startsWith('control:')).length }]);
    const drift = await app.db.sql.query(
      `SELECT * FROM (SELECT collection_address, trait_type, value, count(*)::int AS n FROM token_attributes GROUP BY 1, 2, 3) r
       FULL JOIN trait_values v USING (collection_address, trait_type, value) WHERE r.n IS DISTINCT FROM v.token_count`,
    );
    expect(drift).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never connected to a target the guard refused', () => {
    expect(servers.canary.seen).toEqual([]);
    const hops = servers.hostile.seen.map((r) => r.path);
    expect(hops).toContain('/to-imds'); // the redirect was read; its target was not
    expect(hops.filter((p) => p === '/always-500')).toHaveLength(RETRIES + 1);
    expect(servers.limited.seen).toHaveLength(1); // Retry-After beyond the retry cap: handed back, not waited for
  });
});
