// The three classes of rate-limiter-flexible this service uses, imported from their own files:
// the package's index requires all 25 backends (Mongo, MySQL, Dynamo, etcd...), 171 KB of code
// that every start would compile for nothing (src/http/rate-limit.ts). Typed by the package's
// own declarations.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export = RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRedis.js' {
  import { RateLimiterRedis } from 'rate-limiter-flexible';
  export = RateLimiterRedis;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export = RateLimiterRes;
}
