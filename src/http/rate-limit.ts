// Per-client request budget (v1 observed 120 requests/minute per key), with the RateLimit-*
// headers v1 clients read and Retry-After on 429. In memory per instance; rate-limiter-flexible
// offers the same limiter over Redis for a cluster.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

export function createRateLimiter(perMinute: number) {
  if (perMinute <= 0) return null;
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  const headersFor = (res: RateLimiterRes) => ({
    'RateLimit-Limit': String(perMinute),
    'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'RateLimit-Reset': String(Math.ceil(res.msBeforeNext / 1000)),
  });
  return async function consume(key: string): Promise<RateDecision> {
    try {
      return { allowed: true, headers: headersFor(await limiter.consume(key)) };
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      return { allowed: false, headers: { ...headersFor(res), 'Retry-After': String(Math.ceil(res.msBeforeNext / 1000)) } };
    }
  };
}
