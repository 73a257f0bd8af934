// One GET for a URL someone else chose (a token's metadata, an image): node:http(s) rather than
// fetch, because its `lookup` hook makes the connection go to exactly the address that was checked
// (see ../guarded-lookup.ts). Redirects are followed here, one hop at a time, so each target is
// checked again; one deadline covers every hop, connect, headers and the whole body, so a server
// trickling a byte a second ends at the deadline; the body is capped after decompression, so a
// small gzip bomb ends as soon as it has inflated past the cap.
import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { addAbortSignal, pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { isPrivateAddress } from '../../domain/webhook-endpoint.js';
import { guardedLookup, PRIVATE_TARGET_CODE, PRIVATE_TARGET_REFUSED } from '../guarded-lookup.js';
import { failure, parseRetryAfter, type FetchFailure, type FetchOutcome } from './fetch-outcome.js';
import type { GuardedAgents } from './guarded-agents.js';

export type { FetchErrorCode, FetchOutcome } from './fetch-outcome.js';

export interface SafeGetOptions {
  /** one deadline for the whole request: every redirect hop, connect, headers and body */
  timeoutMs: number;
  /** most body bytes accepted, counted after decompression */
  maxBytes: number;
  allowPrivateTargets: boolean;
  /** redirects followed; default 5 */
  maxRedirects?: number;
  /** the Accept header; default any type */
  accept?: string;
  /** keep-alive agents from createGuardedAgents (same allowPrivateTargets); default a connection per request */
  agents?: GuardedAgents;
}

/** A GET with these guards; the gateway fetchers take one so the fetcher can put a limiter in front. */
export type Getter = (url: string, opts: SafeGetOptions) => Promise<FetchOutcome>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A guard said no: carries the outcome up to safeGet. */
class Refused extends Error {
  constructor(readonly outcome: FetchFailure) {
    super(outcome.message);
  }
}

export async function safeGet(url: string, opts: SafeGetOptions): Promise<FetchOutcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
  try {
    return await follow(url, opts, deadline.signal);
  } catch (err) {
    if (err instanceof Refused) return err.outcome;
    if (deadline.signal.aborted) return failure('TIMEOUT', `no complete answer within ${opts.timeoutMs} ms`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === PRIVATE_TARGET_CODE) return failure('BLOCKED_TARGET', PRIVATE_TARGET_REFUSED);
    return failure('NETWORK', `connection failed (${code ?? (err as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
}

async function follow(start: string, opts: SafeGetOptions, signal: AbortSignal): Promise<FetchOutcome> {
  const maxRedirects = opts.maxRedirects ?? 5;
  const seen = new Set<string>();
  let target = checkTarget(start, opts.allowPrivateTargets);
  for (let redirects = 0; ; redirects++) {
    seen.add(target.href);
    const res = await request(target, opts, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location) {
      res.destroy();
      const next = checkTarget(location, opts.allowPrivateTargets, target);
      if (seen.has(next.href)) return failure('TOO_MANY_REDIRECTS', `redirect loop back to ${next.href}`);
      if (redirects >= maxRedirects) return failure('TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`);
      target = next;
      continue;
    }
    if (status >= 300) {
      res.destroy();
      return failure('HTTP_STATUS', `HTTP ${status}`, { status, retryAfterMs: parseRetryAfter(res.headers['retry-after']) });
    }
    // compressed length: a body that is bigger before inflating is not going to be smaller after
    if (Number(res.headers['content-length']) > opts.maxBytes) {
      res.destroy();
      return failure('TOO_LARGE', `Content-Length ${res.headers['content-length']} is over ${opts.maxBytes} bytes`);
    }
    const bytes = await readCapped(res, opts.maxBytes, signal);
    return { ok: true, bytes, contentType: res.headers['content-type'] ?? null, finalUrl: target.href };
  }
}

/** http(s) only; a literal private address or a loopback name refused before any connection. */
function checkTarget(url: string, allowPrivate: boolean, base?: URL): URL {
  let u: URL;
  try {
    u = new URL(url, base);
  } catch {
    throw new Refused(failure('UNSUPPORTED_URI', 'not an absolute URL'));
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Refused(failure('UNSUPPORTED_URI', `${u.protocol} URLs are not fetched`));
  // the URL parser has already turned 0x7f.1, 2130706433 and [::ffff:127.0.0.1] into canonical form
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (!allowPrivate && ((isIP(host) && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))) {
    throw new Refused(failure('BLOCKED_TARGET', `${u.host}: ${PRIVATE_TARGET_REFUSED}`));
  }
  return u;
}

function request(target: URL, opts: SafeGetOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      target,
      {
        method: 'GET',
        headers: { accept: opts.accept ?? '*/*', 'accept-encoding': 'gzip, br, deflate', 'user-agent': 'marketplace-metadata/1' },
        lookup: guardedLookup(opts.allowPrivateTargets),
        agent: opts.agents ? (secure ? opts.agents.https : opts.agents.http) : false,
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

/** The body, decoded, failing the moment it passes maxBytes (and when the deadline aborts it). */
async function readCapped(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  addAbortSignal(signal, res);
  let chain: Transform[];
  try {
    chain = decoders(res.headers['content-encoding']);
  } catch (err) {
    res.destroy();
    throw err;
  }
  const body = (chain.length ? pipeline([res, ...chain], () => {}) : res) as Readable;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw new Refused(failure('TOO_LARGE', `body is over ${maxBytes} bytes`));
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Content codings undone, at most: each is a decompressor (tens of KB), and a header can list thousands. */
const MAX_CODINGS = 2;

/** Codings are listed in the order applied (RFC 9110 §8.4), so they are undone last to first. */
function decoders(header: string | undefined): Transform[] {
  const codings = (header ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c && c !== 'identity');
  if (codings.length > MAX_CODINGS) throw new Refused(failure('NETWORK', `${codings.length} content codings, more than ${MAX_CODINGS}`));
  return codings.reverse().map((c) => {
    if (c === 'gzip' || c === 'x-gzip') return zlib.createGunzip();
    // zlib-wrapped, as RFC 9110 defines it (a server sending raw deflate fails as NETWORK)
    if (c === 'deflate') return zlib.createInflate();
    if (c === 'br') return zlib.createBrotliDecompress();
    throw new Refused(failure('NETWORK', `unsupported Content-Encoding ${c}`));
  });
}
