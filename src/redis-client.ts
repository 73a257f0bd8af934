// The ioredis client, loaded only when REDIS_URL is set. ioredis stays outside the dist/ bundle
// (scripts/build.mjs: it reads its own package.json through __dirname), so importing it costs
// about 40 modules and 100-300 ms of every start, which a start without Redis does not need.
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

export type { Redis };

export function createRedisClient(url: string, options: RedisOptions): Redis {
  const ioredis = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  return new ioredis.Redis(url, options);
}
