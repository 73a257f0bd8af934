// The only reader of process.env. Parsed and validated once at boot: a bad value stops the
// process with a message naming the variable, instead of surfacing later as "undefined".
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { normalizeAddress } from './domain/address.js';
import { resolveNetwork, type Network } from './domain/networks.js';

const bool = (fallback: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['1', 'true', 'yes', 'on'].includes(v)));

const int = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      if (!/^\d+$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `expected a whole number, got "${v}"` });
        return z.NEVER;
      }
      const n = Number(v);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `expected ${min}..${max}, got ${n}` });
        return z.NEVER;
      }
      return n;
    });

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const address = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const a = normalizeAddress(v);
    if (!a) {
      ctx.addIssue({ code: 'custom', message: `expected an address (0x + 40 hex digits), got "${v}"` });
      return z.NEVER;
    }
    return a;
  });

const addressList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const list = v.split(',').map((p) => p.trim()).filter(Boolean);
    const out: string[] = [];
    for (const p of list) {
      const a = normalizeAddress(p);
      if (!a) {
        ctx.addIssue({ code: 'custom', message: `expected comma-separated addresses, "${p}" is not one` });
        return z.NEVER;
      }
      out.push(a);
    }
    return out;
  });

const envSchema = z.object({
  REDIS_URL: optionalString.refine((v) => v === undefined || /^rediss?:\/\//.test(v), { message: 'must be a redis:// or rediss:// URL' }),
  INDEXER: z.enum(['on', 'off']).default('on'),
  INDEXER_START_BLOCK: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '' || v === 'latest') return 'latest' as const;
      if (!/^\d+$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `expected a block number or "latest", got "${v}"` });
        return z.NEVER;
      }
      return Number(v);
    }),
  INDEXER_CONFIRMATIONS: int(3, 0, 1000),
  INDEXER_BATCH_SIZE: int(100, 1, 100_000),
  INDEXER_POLL_MS: int(2000, 10, 3_600_000),
  // a collection registered later gets its transfers and sales backfilled from this block ("off": never)
  INDEXER_BACKFILL_FROM_BLOCK: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 0;
      if (v === 'off') return null;
      if (!/^\d+$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `expected a block number or "off", got "${v}"` });
        return z.NEVER;
      }
      return Number(v);
    }),
  CHAIN_ID: int(1, 1, 2 ** 31),
  RPC_URL: optionalString.refine((v) => v === undefined || /^(https?|wss?):\/\//.test(v), {
    message: 'must be an http(s):// or ws(s):// URL',
  }),
  EXCHANGE_ADDRESS: address,
  WETH_ADDRESS: address,
  TRANSFER_MANAGER_ERC721_ADDRESS: address,
  TRANSFER_MANAGER_ERC1155_ADDRESS: address,
  STRATEGY_STANDARD_SALE_ADDRESSES: addressList,
  STRATEGY_COLLECTION_OFFER_ADDRESSES: addressList,
  STRATEGY_PRIVATE_SALE_ADDRESSES: addressList,
  STRATEGY_DUTCH_AUCTION_ADDRESSES: addressList,
  PORT: int(4000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    message: 'must be a postgres:// or postgresql:// URL (unset it to use the embedded database)',
  }),
  DATABASE_POOL_SIZE: int(10, 1, 500),
  DATA_DIR: z.string().default('./data'),
  SEED: bool(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WRITE_API_KEYS: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? [] : v.split(',').map((k) => k.trim()).filter(Boolean))),
  ADMIN_API_KEY: optionalString.refine((v) => v === undefined || v.length >= 16, {
    message: 'must be at least 16 characters',
  }),
  GRAPHIQL: bool(true),
  RATE_LIMIT_PER_MINUTE: int(120, 0, 1_000_000),
  MAX_BODY_BYTES: int(1_048_576, 1024, 64 * 1_048_576),
  MAX_QUERY_COMPLEXITY: int(5000, 10, 1_000_000),
  MAX_QUERY_DEPTH: int(10, 2, 100),
  LISTING_REWARDS_ENABLED: bool(true),
  LISTING_REWARD_POINTS: z
    .string()
    .default('500,360,200,100,50')
    .transform((v, ctx) => {
      const parts = v.split(',').map((p) => p.trim());
      if (parts.length !== 5 || parts.some((p) => !/^\d+$/.test(p))) {
        ctx.addIssue({ code: 'custom', message: 'expected five comma-separated whole numbers' });
        return z.NEVER;
      }
      return parts.map(Number);
    }),
  GLOBAL_DATA_MAX_AGE_SECONDS: int(86_400, 1, 365 * 86_400),
  SIGNATURE_WORKERS: int(availableParallelism(), 0, 256),
});

export type Config = {
  /** the chain's address book with env overrides applied (src/domain/networks.ts) */
  network: Network;
  rpcUrl: string | undefined;
  /** live events reach every instance through Redis when set; in-process otherwise */
  redisUrl: string | undefined;
  /** the chain indexer (issue 4); runs in the service process when RPC_URL is set and INDEXER=on */
  indexer: { enabled: boolean; startBlock: number | 'latest'; confirmations: number; batchSize: number; pollMs: number; backfillFromBlock: number | null };
  port: number;
  host: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** a folder for the embedded database, or 'memory' */
  dataDir: string;
  seed: boolean;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  adminApiKey: string | undefined;
  /** when non-empty, order writes need one of these in X-Looks-Api-Key */
  writeApiKeys: string[];
  graphiql: boolean;
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  maxQueryComplexity: number;
  maxQueryDepth: number;
  listingRewards: { enabled: boolean; points: number[]; maxAgeSeconds: number };
  /** worker threads verifying order signatures; 0 = on the main thread */
  signatureWorkers: number;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    network: resolveNetwork(e.CHAIN_ID, {
      exchange: e.EXCHANGE_ADDRESS,
      weth: e.WETH_ADDRESS,
      transferManagerERC721: e.TRANSFER_MANAGER_ERC721_ADDRESS,
      transferManagerERC1155: e.TRANSFER_MANAGER_ERC1155_ADDRESS,
      standardSale: e.STRATEGY_STANDARD_SALE_ADDRESSES,
      collectionOffer: e.STRATEGY_COLLECTION_OFFER_ADDRESSES,
      privateSale: e.STRATEGY_PRIVATE_SALE_ADDRESSES,
      dutchAuction: e.STRATEGY_DUTCH_AUCTION_ADDRESSES,
    }),
    rpcUrl: e.RPC_URL,
    redisUrl: e.REDIS_URL,
    indexer: {
      enabled: e.INDEXER === 'on',
      startBlock: e.INDEXER_START_BLOCK,
      confirmations: e.INDEXER_CONFIRMATIONS,
      batchSize: e.INDEXER_BATCH_SIZE,
      pollMs: e.INDEXER_POLL_MS,
      backfillFromBlock: e.INDEXER_BACKFILL_FROM_BLOCK,
    },
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    dataDir: e.DATA_DIR,
    seed: e.SEED,
    logLevel: e.LOG_LEVEL,
    adminApiKey: e.ADMIN_API_KEY,
    writeApiKeys: e.WRITE_API_KEYS,
    graphiql: e.GRAPHIQL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxQueryComplexity: e.MAX_QUERY_COMPLEXITY,
    maxQueryDepth: e.MAX_QUERY_DEPTH,
    listingRewards: {
      enabled: e.LISTING_REWARDS_ENABLED,
      points: e.LISTING_REWARD_POINTS,
      maxAgeSeconds: e.GLOBAL_DATA_MAX_AGE_SECONDS,
    },
    signatureWorkers: e.SIGNATURE_WORKERS,
  };
}
