// Per-client request budget (v1 observed 120 requests/minute per key), with the RateLimit-*
// headers v1 clients read and Retry-After on 429.
//
// Who is a client: a known X-Looks-Api-Key (API_KEYS, WRITE_API_KEYS) has its own
// budget; no key or an unknown one counts against the client address, so inventing a new key per
// request buys nothing. The address is the socket's peer unless TRUST_PROXY says which proxies
// may speak for it through X-Forwarded-For (proxy-addr, express's rules).
//
// Where the budget lives: in Redis when REDIS_URL is set, so every instance draws
// from one budget; in memory otherwise. A Redis outage must never fail a request or the process:
// the ioredis client never queues commands while disconnected and times them out, and
// rate-limiter-flexible then falls back to an in-memory insurance limiter per instance.
import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { createRedisClient, type Redis } from '../redis-client.js';
import proxyaddr from 'proxy-addr';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
// each class from its own file: the package's index loads every backend it has (src/types/rate-limiter-flexible-lib.d.ts)
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import RateLimiterRedis from 'rate-limiter-flexible/lib/RateLimiterRedis.js';
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import type { Logger } from '../logger.js';

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/** false: use the socket peer; a number: that many proxy hops; a list: proxy-addr trust names/CIDRs */
export type TrustProxy = false | number | string[];

export interface RateLimitOptions {
  /** per client address (and per unknown key); 0 turns rate limiting off */
  perMinute: number;
  /** known API keys and their per-minute budgets */
  apiKeys: ReadonlyMap<string, number>;
  trustProxy: TrustProxy;
  /** shared budget across instances when set */
  redisUrl?: string;
  /** key prefix in Redis (tests isolate themselves with it) */
  redisPrefix?: string;
  /** how long one Redis call may take before the insurance limiter answers (ms) */
  redisTimeoutMs?: number;
  logger?: Logger;
}

/** What the limiter needs to know about one request. */
export interface RateLimitClient {
  apiKey: string | null;
  /** the socket peer; undefined when there is no socket (yoga.fetch in tests) */
  remoteAddress: string | undefined;
  forwardedFor: string | null;
}

// The read lane charges the rate limit before it knows whether it answers; a request it hands
// on to yoga carries the decision, so the limit is charged once and a refusal written in one place.
const rateDecisions = new WeakMap<IncomingMessage, RateDecision>();

export function noteRateDecision(req: IncomingMessage, decision: RateDecision): void {
  rateDecisions.set(req, decision);
}

/** The decision the lane took for this request, if it took one. */
export function rateDecisionTaken(req: IncomingMessage): RateDecision | undefined {
  return rateDecisions.get(req);
}

/** The client of a request, from its headers (fetch's or the lane's) and its socket's peer. */
export function rateLimitClient(headers: { get(name: string): string | null }, remoteAddress: string | undefined): RateLimitClient {
  return { apiKey: headers.get('x-looks-api-key'), remoteAddress, forwardedFor: headers.get('x-forwarded-for') };
}

export interface RateLimiter {
  consume(client: RateLimitClient): Promise<RateDecision>;
  /** the Redis limiter's client is connected (null without Redis) */
  redisReady(): boolean | null;
  close(): Promise<void>;
}

const compiled = new WeakMap<string[], (addr: string, i: number) => boolean>();
function compiledTrust(trustProxy: number | string[]): (addr: string, i: number) => boolean {
  // A hop count trusts that many proxies nearest to us (express's compileTrust does the same).
  if (typeof trustProxy === 'number') return (_addr, i) => i < trustProxy;
  let fn = compiled.get(trustProxy);
  if (!fn) compiled.set(trustProxy, (fn = proxyaddr.compile(trustProxy)));
  return fn;
}

/** The client address a budget is charged to, after the trusted proxies. */
export function clientAddress(client: RateLimitClient, trustProxy: TrustProxy): string {
  const remote = client.remoteAddress ?? 'local';
  if (trustProxy === false || !client.forwardedFor || !client.remoteAddress) return remote;
  const req = { socket: { remoteAddress: remote }, headers: { 'x-forwarded-for': client.forwardedFor } };
  try {
    return proxyaddr(req as never, compiledTrust(trustProxy));
  } catch {
    return remote;
  }
}

/** The budget a request draws from: its own for a known key, else its address's. */
export function rateLimitSubject(
  client: RateLimitClient,
  opts: Pick<RateLimitOptions, 'apiKeys' | 'perMinute' | 'trustProxy'>,
): { key: string; perMinute: number } {
  const known = client.apiKey ? opts.apiKeys.get(client.apiKey) : undefined;
  if (client.apiKey && known !== undefined) {
    // Hashed: the stored key (Redis) and logs never hold the secret itself.
    return { key: `key:${createHash('sha256').update(client.apiKey).digest('hex').slice(0, 32)}`, perMinute: known };
  }
  return { key: `ip:${clientAddress(client, opts.trustProxy)}`, perMinute: opts.perMinute };
}

export function createRateLimiter(opts: RateLimitOptions): RateLimiter | null {
  if (opts.perMinute <= 0) return null;
  const log = opts.logger;
  let redis: Redis | undefined;
  if (opts.redisUrl) {
    redis = createRedisClient(opts.redisUrl, {
      // Fail fast instead of queueing while disconnected, and bound a hanging server: both make
      // rate-limiter-flexible answer from the insurance limiter.
      enableOfflineQueue: false,
      commandTimeout: opts.redisTimeoutMs ?? 300,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      // Keep reconnecting forever, at most every 2 s: the limiter recovers when Redis is back.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    let lastWarn = 0;
    redis.on('error', (err: Error) => {
      // Without a listener ioredis reports every reconnect failure; log at most every 30 s.
      const now = Date.now();
      if (now - lastWarn > 30_000) {
        lastWarn = now;
        log?.warn({ err: err.message }, 'rate limiter: Redis unavailable, limits are per instance until it is back');
      }
    });
  }
  const prefix = opts.redisPrefix ?? 'marketplace:rl';
  // One limiter per distinct budget (rate-limiter-flexible fixes points per limiter).
  const limiters = new Map<number, RateLimiterAbstract>();
  const limiterFor = (points: number): RateLimiterAbstract => {
    let limiter = limiters.get(points);
    if (!limiter) {
      const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: `${prefix}:${points}` });
      limiter = redis
        ? new RateLimiterRedis({
            storeClient: redis,
            points,
            duration: 60,
            keyPrefix: `${prefix}:${points}`,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      limiters.set(points, limiter);
    }
    return limiter;
  };
  const headersFor = (perMinute: number, res: RateLimiterRes) => ({
    'RateLimit-Limit': String(perMinute),
    'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'RateLimit-Reset': String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
  });

  return {
    async consume(client) {
      const { key, perMinute } = rateLimitSubject(client, opts);
      if (perMinute <= 0) return { allowed: true, headers: {} };
      try {
        return { allowed: true, headers: headersFor(perMinute, await limiterFor(perMinute).consume(key)) };
      } catch (res) {
        if (res instanceof RateLimiterRes) {
          return {
            allowed: false,
            headers: { ...headersFor(perMinute, res), 'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))) },
          };
        }
        // Neither Redis nor the insurance limiter answered: serving beats refusing.
        log?.error({ err: res }, 'rate limiter failed; request let through');
        return { allowed: true, headers: {} };
      }
    },
    redisReady: () => (redis ? redis.status === 'ready' : null),
    async close() {
      redis?.disconnect();
    },
  };
}
