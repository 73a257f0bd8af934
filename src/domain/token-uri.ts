// Where a token's metadata (or image) lives, from the URI its contract returns (ERC-721 tokenURI,
// ERC-1155 uri). Content-addressed forms are recognised even when written as somebody's gateway
// URL, so they are read through our own verified gateways rather than the host they name. Pure:
// nothing is fetched here, and the fetcher still checks where a name resolves (SSRF).
import { Buffer } from 'node:buffer';
import { CID } from 'multiformats/cid';
import { base32, base32upper } from 'multiformats/bases/base32';
import { base36 } from 'multiformats/bases/base36';
import { base58btc } from 'multiformats/bases/base58';

export type ContentSource =
  | { kind: 'inline'; mediaType: string; bytes: Uint8Array; parameters?: Record<string, string> }
  | { kind: 'ipfs'; cid: string; path: string }
  | { kind: 'arweave'; id: string; path: string }
  | { kind: 'http'; url: string };

export type TokenUriProblem = { code: 'UNSUPPORTED_URI' | 'INVALID_URI'; message: string };

type Parsed = { ok: true; source: ContentSource } | { ok: false; problem: TokenUriProblem };

const MAX_URI_BYTES = 16 * 1024;
const MAX_DATA_URI_BYTES = 8 * 1024 * 1024;

const invalid = (message: string): Parsed => ({ ok: false, problem: { code: 'INVALID_URI', message } });
const unsupported = (message: string): Parsed => ({ ok: false, problem: { code: 'UNSUPPORTED_URI', message } });
const ok = (source: ContentSource): Parsed => ({ ok: true, source });

// CIDs arrive in base58btc (v0 'Qm', v1 'z'), base32 (the v1 default, and upper case from some
// tools) and base36 (subdomain gateways); whatever the input, `cid` is the canonical text.
const CID_BASES = base58btc.decoder.or(base32.decoder).or(base32upper.decoder).or(base36.decoder);

function canonicalCid(text: string): string | null {
  try {
    // decoding the bytes again drops the input text CID.parse caches as the CID's string form
    return CID.decode(CID.parse(text, CID_BASES).bytes).toString();
  } catch {
    return null;
  }
}

const ARWEAVE_ID = /^[A-Za-z0-9_-]{43}$/;
/** Whitespace (Unicode's too), C0, DEL and C1: never part of a URL a contract meant. */
const BAD_URI_CHARACTER = /[\s\u0000-\u001f\u007f-\u009f]/u;
/** In a data: URI's text only tab, LF and CR pass: JSON and SVG returned inline hold them. */
const BAD_DATA_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * A content path ('' or '/a/b.json') in one spelling: empty and '.' segments dropped (gateways
 * resolve them alike), each segment percent-decoded then encoded again, and '..' refused so a
 * path cannot leave the content it names. Null when the path cannot be used.
 */
function contentPath(raw: string): string | null {
  let path = '';
  for (const segment of raw.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return null; // a malformed escape or bytes that are not UTF-8
    }
    if (decoded === '' || decoded === '.') continue;
    if (decoded === '..' || /[/\\\u0000-\u001f\u007f-\u009f]/.test(decoded)) return null; // '%20' may name a file; a control character never does
    path += '/' + encodeURIComponent(decoded).replace(/%(24|26|2B|2C|3B|3D|3A|40)/g, (e) => decodeURIComponent(e));
  }
  return path;
}

/** The part of `rest` before any query or fragment: they do not address content. */
const beforeQuery = (rest: string) => rest.replace(/[?#].*$/s, '');

/** `CID` or `CID/path` (already past `ipfs://` or `/ipfs/`). */
function ipfsSource(rest: string, form: string): Parsed {
  const [first = '', ...more] = beforeQuery(rest).split('/');
  const cid = canonicalCid(first);
  if (!cid) return invalid(`${form}: ${JSON.stringify(first.slice(0, 100))} is not a CID`);
  const path = contentPath(more.join('/'));
  if (path === null) return invalid(`${form}: the path is malformed or leaves the content with '..'`);
  return ok({ kind: 'ipfs', cid, path });
}

function arweaveSource(rest: string, form: string): Parsed {
  const [id = '', ...more] = beforeQuery(rest).split('/');
  if (!ARWEAVE_ID.test(id)) return invalid(`${form}: ${JSON.stringify(id.slice(0, 100))} is not an Arweave transaction id (43 base64url characters)`);
  const path = contentPath(more.join('/'));
  if (path === null) return invalid(`${form}: the path is malformed or leaves the content with '..'`);
  return ok({ kind: 'arweave', id, path });
}

/** WHATWG percent-decode over UTF-8 bytes: a '%' not followed by two hex digits stays a '%'. */
function percentDecode(text: string): Uint8Array {
  const input = new TextEncoder().encode(text);
  const out = new Uint8Array(input.length);
  let n = 0;
  const hex = (b: number | undefined) => (b === undefined ? -1 : b >= 48 && b <= 57 ? b - 48 : b >= 65 && b <= 70 ? b - 55 : b >= 97 && b <= 102 ? b - 87 : -1);
  for (let i = 0; i < input.length; i++) {
    const b = input[i]!;
    const hi = b === 37 ? hex(input[i + 1]) : -1;
    const lo = hi >= 0 ? hex(input[i + 2]) : -1;
    if (lo >= 0) {
      out[n++] = hi * 16 + lo;
      i += 2;
    } else out[n++] = b;
  }
  return out.slice(0, n);
}

const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * RFC 2397 `data:[<mediatype>][;base64],<data>`. An omitted media type is text/plain with
 * charset US-ASCII. Parameters are parsed out of `mediaType` (names lower-cased, quotes removed);
 * a bare flag such as the common `;utf8` is kept with an empty value. Base64 is the forgiving
 * kind browsers decode (whitespace skipped, padding optional) but in the standard alphabet only.
 */
function dataSource(uri: string): Parsed {
  const comma = uri.indexOf(',');
  if (comma < 0) return invalid('data: URI without the "," before its data');
  const header = uri.slice(5, comma).split(';').map((p) => p.trim());
  const payload = uri.slice(comma + 1);
  const base64 = header.length > 1 && header.at(-1)!.toLowerCase() === 'base64';
  if (base64) header.pop();
  const mediaType = header[0]!.toLowerCase();
  if (mediaType !== '' && !MEDIA_TYPE.test(mediaType)) return invalid(`data: URI media type ${JSON.stringify(mediaType.slice(0, 100))} is not type/subtype`);
  const pairs: [string, string][] = [];
  for (const p of header.slice(1)) {
    if (p === '') continue;
    const eq = p.indexOf('=');
    const name = (eq < 0 ? p : p.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? '' : p.slice(eq + 1).trim().replace(/^"(.*)"$/s, '$1');
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) return invalid(`data: URI parameter ${JSON.stringify(p.slice(0, 100))} is malformed`);
    pairs.push([name, value]);
  }
  // fromEntries defines own properties, so a parameter named __proto__ stays a plain key
  const parameters = Object.fromEntries(pairs);
  if (mediaType === '' && !('charset' in parameters)) parameters.charset = 'US-ASCII';
  if (BAD_DATA_CHARACTER.test(payload)) return invalid('data: URI data holds control characters');
  let bytes: Uint8Array;
  if (base64) {
    let b64 = percentDecodedText(payload).replace(/[\t\n\f\r ]/g, '');
    if (b64.length % 4 === 0) b64 = b64.replace(/={1,2}$/, '');
    if (b64.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(b64)) return invalid('data: URI base64 data is not base64');
    bytes = Uint8Array.from(Buffer.from(b64, 'base64'));
  } else bytes = percentDecode(payload);
  return ok({ kind: 'inline', mediaType: mediaType || 'text/plain', bytes, parameters });
}

/** Base64 text sometimes arrives percent-encoded ('%3D' padding); it is ASCII either way. */
const percentDecodedText = (text: string) => (text.includes('%') ? new TextDecoder().decode(percentDecode(text)) : text);

/** http(s) URLs, with gateway spellings of IPFS and Arweave content recognised as that content. */
function httpSource(uri: string): Parsed {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return invalid('not a valid http(s) URL');
  }
  if (url.username || url.password) return unsupported('URLs with credentials are not fetched');
  if (!url.hostname) return invalid('http(s) URL without a host');
  const host = url.hostname;
  const subdomain = /^([a-z0-9]+)\.ipfs\.[^.]/.exec(host);
  if (subdomain && canonicalCid(subdomain[1]!)) return ipfsSource(subdomain[1] + url.pathname, 'IPFS subdomain gateway URL');
  const pathGateway = /^\/ipfs\/([^/?#]+)(.*)$/s.exec(url.pathname);
  if (pathGateway && canonicalCid(pathGateway[1]!)) return ipfsSource(pathGateway[1]! + pathGateway[2]!, 'IPFS gateway URL');
  const arPath = /^\/([A-Za-z0-9_-]{43})(\/.*)?$/s.exec(url.pathname);
  if (arPath && (host === 'arweave.net' || host.endsWith('.arweave.net'))) return arweaveSource(arPath[1]! + (arPath[2] ?? ''), 'Arweave gateway URL');
  url.hash = ''; // never sent to the server
  return ok({ kind: 'http', url: url.toString() });
}

export function parseContentUri(uri: string): Parsed {
  const text = uri.trim(); // contracts often pad the URI with spaces or a newline
  if (text === '') return invalid('empty URI');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  const limit = scheme === 'data' || text.startsWith('{') ? MAX_DATA_URI_BYTES : MAX_URI_BYTES;
  // UTF-8 bytes are at least as many as UTF-16 units, so a long string is refused before counting
  if (text.length > limit || Buffer.byteLength(text, 'utf8') > limit) return invalid(`longer than ${limit} bytes`);

  if (scheme === 'data') return dataSource(text);
  if (text.startsWith('{')) {
    // JSON returned as the URI itself: the document is the value
    if (BAD_DATA_CHARACTER.test(text)) return invalid('inline JSON holds control characters');
    return ok({ kind: 'inline', mediaType: 'application/json', bytes: new TextEncoder().encode(text), parameters: { charset: 'utf-8' } });
  }
  if (BAD_URI_CHARACTER.test(text)) return invalid('URI holds whitespace or control characters');
  switch (scheme) {
    case 'ipfs':
      if (!/^ipfs:\/\//i.test(text)) return invalid('IPFS URI not of the form ipfs://CID/path');
      return ipfsSource(text.slice(7).replace(/^ipfs\//, ''), 'ipfs:// URI');
    case 'ar':
      if (!/^ar:\/\//i.test(text)) return invalid('Arweave URI not of the form ar://id/path');
      return arweaveSource(text.slice(5), 'ar:// URI');
    case 'http':
    case 'https':
      return httpSource(text);
    case undefined:
      // a bare CID (optionally with a path), as some contracts return it
      if (/^(Qm|b)/.test(text) && canonicalCid(text.split(/[/?#]/, 1)[0]!)) return ipfsSource(text, 'bare CID');
      return unsupported('not an absolute URI');
    default:
      return unsupported(`the ${scheme}: scheme is not read`);
  }
}

const MAX_UINT256 = (1n << 256n) - 1n;

/** ERC-1155 metadata URI: every `{id}` becomes the id as 64 lower-case hex digits, zero padded. */
export function expandTokenIdTemplate(uri: string, tokenId: bigint): string {
  if (tokenId < 0n || tokenId > MAX_UINT256) throw new RangeError(`token id ${tokenId} is not a uint256`);
  return uri.replaceAll('{id}', tokenId.toString(16).padStart(64, '0'));
}

/** The public URL we give out for a source; null for inline content (it has no URL). */
export function gatewayUrl(source: ContentSource, ipfsGateway: string, arweaveGateway: string): string | null {
  switch (source.kind) {
    case 'inline':
      return null;
    case 'ipfs':
      return `${ipfsGateway.replace(/\/+$/, '')}/ipfs/${source.cid}${source.path}`;
    case 'arweave':
      return `${arweaveGateway.replace(/\/+$/, '')}/${source.id}${source.path}`;
    case 'http':
      return source.url;
  }
}
