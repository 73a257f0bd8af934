// One webhook request: POST the signed body to the endpoint's URL. node:http(s) rather than
// fetch, because its `lookup` hook lets the connection go to exactly the address that was checked:
// a name is resolved once per connection, every address it resolves to must be allowed (DNS
// rebinding cannot slip a private address in between the check and the connect). No redirects
// are followed (a 3xx is a failed delivery), the whole request is bounded by a timeout, and at
// most maxResponseBytes of the answer are read.
//
// Connections are kept alive per endpoint (WebhookAgents): a connection is checked when it is
// opened and goes on to the address it was opened to, so reusing it checks nothing less, and a
// busy endpoint no longer pays a TCP handshake (and a DNS lookup) per event.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../domain/webhook-endpoint.js';
import { guardedLookup, PRIVATE_TARGET_CODE, PRIVATE_TARGET_REFUSED } from './guarded-lookup.js';

export interface SendOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  allowPrivateTargets: boolean;
}

export interface SendResult {
  /** a 2xx answer */
  ok: boolean;
  statusCode: number | null;
  /** why it failed, in words safe to show the endpoint's owner */
  error: string | null;
  durationMs: number;
}

/** Idle connections are closed after this long (a receiver's own keep-alive is often 5 s). */
const IDLE_MS = 4000;

/**
 * Keep-alive agents by endpoint URL: one connection per endpoint, reused between events. By URL,
 * not origin: two endpoints on one host each get their own, so a slow one never queues the other.
 */
export class WebhookAgents {
  private agents = new Map<string, http.Agent>();
  constructor(private allowPrivate: boolean) {}
  for(target: URL): http.Agent {
    let agent = this.agents.get(target.href);
    if (!agent) {
      const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 1, timeout: IDLE_MS, lookup: guardedLookup(this.allowPrivate) };
      agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(target.href, agent);
    }
    return agent;
  }
  /** Closes every connection (the sender stops). */
  destroy() {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}

export function postWebhook(url: string, body: string, headers: Record<string, string>, opts: SendOptions, agents?: WebhookAgents): Promise<SendResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // a literal address never goes through lookup
  if (!opts.allowPrivateTargets && isIP(host) && isPrivateAddress(host)) return Promise.resolve(done(null, PRIVATE_TARGET_REFUSED));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'marketplace-webhooks/1', ...headers },
        lookup: guardedLookup(opts.allowPrivateTargets),
        // without agents (a one-off request): a connection of its own
        agent: agents ? agents.for(target) : false,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // the answer's body is not used: stop reading past the cap
          if (read > opts.maxResponseBytes) {
            res.destroy();
            finish(done(res.statusCode ?? null, null));
          }
        });
        res.on('end', () => finish(done(res.statusCode ?? null, null)));
        res.on('error', () => finish(done(res.statusCode ?? null, null)));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(done(null, `no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish(done(null, err.code === PRIVATE_TARGET_CODE ? PRIVATE_TARGET_REFUSED : err.code ? `connection failed (${err.code})` : 'connection failed'));
    });
    req.end(body);
  });
}
