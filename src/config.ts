// The only reader of process.env. Parsed and validated once at boot: a bad value stops the
// process with a message naming the variable, instead of surfacing later as "undefined".
import proxyaddr from 'proxy-addr';
import * as z from 'zod';
import { normalizeAddress } from './domain/address.js';
import { missingNetworkAddresses, resolveNetwork, type Network } from './domain/networks.js';
import type { DatabaseTimeouts } from './db/database.js';

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
  // How long a stuck PostgreSQL may hold a request; 0 = no limit.
  DATABASE_CONNECT_TIMEOUT_MS: int(2000, 0, 600_000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(5000, 0, 3_600_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(10_000, 0, 3_600_000),
  DATABASE_SESSION_TIMEOUT_MS: int(60_000, 0, 3_600_000),
  HEALTH_CHECK_TIMEOUT_MS: int(1000, 50, 60_000),
  // Read replica (src/db/read-replica.ts).
  DATABASE_REPLICA_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    message: 'must be a postgres:// or postgresql:// URL of a streaming replica of DATABASE_URL',
  }),
  DATABASE_REPLICA_MAX_LAG_MS: int(2000, 0, 3_600_000),
  DATABASE_REPLICA_PROBE_MS: int(500, 50, 60_000),
  DATABASE_WAIT_SECONDS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 10;
      if (v === 'forever') return Infinity;
      if (!/^\d+$/.test(v) || Number(v) > 86_400) {
        ctx.addIssue({ code: 'custom', message: `expected seconds (0..86400) or "forever", got "${v}"` });
        return z.NEVER;
      }
      return Number(v);
    }),
  SHUTDOWN_TIMEOUT_MS: int(8000, 0, 600_000),
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
  READ_ENGINE: bool(true),
  RATE_LIMIT_PER_MINUTE: int(120, 0, 1_000_000),
  MAX_BODY_BYTES: int(1_048_576, 1024, 64 * 1_048_576),
  MAX_QUERY_COMPLEXITY: int(5000, 10, 1_000_000),
  MAX_QUERY_DEPTH: int(10, 2, 100),
  // Facing the internet: rate-limit subjects, proxies.
  API_KEYS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const out: { key: string; perMinute: number | undefined }[] = [];
      for (const part of (v ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
        const m = /^(.+?)(?::(\d+))?$/.exec(part)!;
        if (m[1]!.length < 8) {
          ctx.addIssue({ code: 'custom', message: 'every key must be at least 8 characters (key or key:perMinute)' });
          return z.NEVER;
        }
        out.push({ key: m[1]!, perMinute: m[2] === undefined ? undefined : Number(m[2]) });
      }
      return out;
    }),
  RATE_LIMIT_API_KEY_PER_MINUTE: int(600, 0, 1_000_000),
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx): string[] | null => {
      const list = (v ?? '').split(',').map((p) => p.trim()).filter(Boolean);
      if (list.length === 0 || list.includes('*')) return null;
      const bad = list.find((o) => !/^https?:\/\/[^/\s]+$/.test(o));
      if (bad) {
        ctx.addIssue({ code: 'custom', message: `expected comma-separated origins like https://app.example.com (no path), "${bad}" is not one` });
        return z.NEVER;
      }
      return list;
    }),
  GRAPHQL_INTROSPECTION: bool(true),
  GRAPHQL_PERSISTED_OPERATIONS: optionalString,
  GRAPHQL_PERSISTED_ONLY: bool(false),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx): false | number | string[] => {
      const t = v?.trim() ?? '';
      if (t === '' || ['0', 'false', 'no', 'off'].includes(t)) return false;
      if (/^\d+$/.test(t)) {
        if (Number(t) > 32) {
          ctx.addIssue({ code: 'custom', message: 'expected at most 32 proxy hops' });
          return z.NEVER;
        }
        return Number(t);
      }
      const list = t.split(',').map((p) => p.trim()).filter(Boolean);
      const bad = list.find((p) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d+)?)$/.test(p));
      let invalid = bad;
      if (!invalid) {
        try {
          proxyaddr.compile(list);
        } catch (err) {
          invalid = (err as Error).message;
        }
      }
      if (invalid) {
        ctx.addIssue({ code: 'custom', message: `expected a hop count or comma-separated addresses/CIDRs/loopback/linklocal/uniquelocal, "${invalid}" is not one` });
        return z.NEVER;
      }
      return list;
    }),
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
  // 0: with native recovery a check costs about 0.1 ms, less than a round trip to a worker thread
  SIGNATURE_WORKERS: int(0, 0, 256),
});

export type Config = {
  /** the chain's address book with env overrides applied (src/domain/networks.ts) */
  network: Network;
  rpcUrl: string | undefined;
  /** live events reach every instance through Redis when set; in-process otherwise */
  redisUrl: string | undefined;
  /** the chain indexer; runs in the service process when RPC_URL is set and INDEXER=on */
  indexer: { enabled: boolean; startBlock: number | 'latest'; confirmations: number; batchSize: number; pollMs: number; backfillFromBlock: number | null };
  port: number;
  host: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** PostgreSQL connection, statement, idle-in-transaction and session timeouts (src/db/database.ts) */
  databaseTimeouts: DatabaseTimeouts;
  /** /readyz waits at most this long for each component */
  healthCheckTimeoutMs: number;
  /** reads may go to this streaming replica of databaseUrl (src/db/read-replica.ts) */
  databaseReplica: { url: string; maxLagMs: number; probeMs: number } | undefined;
  /** how long boot retries an unreachable PostgreSQL before giving up (Infinity: wait for it) */
  databaseWaitSeconds: number;
  /** SIGTERM/SIGINT: how long in-flight requests may take to finish before the process exits */
  shutdownTimeoutMs: number;
  /** a folder for the embedded database, or 'memory' */
  dataDir: string;
  seed: boolean;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  adminApiKey: string | undefined;
  /** when non-empty, order writes need one of these in X-Looks-Api-Key */
  writeApiKeys: string[];
  graphiql: boolean;
  /** queries answered by one SQL statement returning JSON (src/read-engine/); false: by the resolvers only */
  readEngine: boolean;
  rateLimitPerMinute: number;
  /** known API keys (API_KEYS, WRITE_API_KEYS) and each one's per-minute budget */
  apiKeyLimits: Map<string, number>;
  /** which proxies may name the client in X-Forwarded-For (src/http/rate-limit.ts) */
  trustProxy: false | number | string[];
  /** browser origins allowed with credentials; null: any origin, never with credentials */
  corsOrigins: string[] | null;
  graphqlIntrospection: boolean;
  /** a JSON file { "id": "query" } of operations clients may run by id; with persistedOnly nothing else runs */
  persistedOperations: { file: string | undefined; only: boolean };
  maxBodyBytes: number;
  maxQueryComplexity: number;
  maxQueryDepth: number;
  listingRewards: { enabled: boolean; points: number[]; maxAgeSeconds: number };
  /** worker threads verifying order signatures; 0 = on the main thread */
  signatureWorkers: number;
};

export class ConfigError extends Error {}

/** The variable that provides each address missingNetworkAddresses() can name. */
const NETWORK_VARIABLE: Record<string, string> = {
  exchange: 'EXCHANGE_ADDRESS',
  weth: 'WETH_ADDRESS',
  'standardSale strategy': 'STRATEGY_STANDARD_SALE_ADDRESSES',
  'collectionOffer strategy': 'STRATEGY_COLLECTION_OFFER_ADDRESSES',
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.DATABASE_REPLICA_URL && !e.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_REPLICA_URL: needs DATABASE_URL (a replica of the embedded database does not exist)');
  }
  const network = resolveNetwork(e.CHAIN_ID, {
      exchange: e.EXCHANGE_ADDRESS,
      weth: e.WETH_ADDRESS,
      transferManagerERC721: e.TRANSFER_MANAGER_ERC721_ADDRESS,
      transferManagerERC1155: e.TRANSFER_MANAGER_ERC1155_ADDRESS,
      standardSale: e.STRATEGY_STANDARD_SALE_ADDRESSES,
      collectionOffer: e.STRATEGY_COLLECTION_OFFER_ADDRESSES,
      privateSale: e.STRATEGY_PRIVATE_SALE_ADDRESSES,
      dutchAuction: e.STRATEGY_DUTCH_AUCTION_ADDRESSES,
  });
  // Cross-variable checks: a chain without its contracts boots and then fails every order.
  const missing = missingNetworkAddresses(network).map(
    (m) => `  ${NETWORK_VARIABLE[m] ?? m}: chain ${e.CHAIN_ID} has no built-in ${m} address; set it`,
  );
  if (missing.length) throw new ConfigError(`Invalid configuration:\n${missing.join('\n')}`);
  return {
    network,
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
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      sessionMs: e.DATABASE_SESSION_TIMEOUT_MS,
    },
    healthCheckTimeoutMs: e.HEALTH_CHECK_TIMEOUT_MS,
    databaseReplica: e.DATABASE_REPLICA_URL
      ? { url: e.DATABASE_REPLICA_URL, maxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS, probeMs: e.DATABASE_REPLICA_PROBE_MS }
      : undefined,
    databaseWaitSeconds: e.DATABASE_WAIT_SECONDS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    dataDir: e.DATA_DIR,
    seed: e.SEED,
    logLevel: e.LOG_LEVEL,
    adminApiKey: e.ADMIN_API_KEY,
    writeApiKeys: e.WRITE_API_KEYS,
    graphiql: e.GRAPHIQL,
    readEngine: e.READ_ENGINE,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    apiKeyLimits: new Map([
      ...e.WRITE_API_KEYS.map((k) => [k, e.RATE_LIMIT_API_KEY_PER_MINUTE] as const),
      ...e.API_KEYS.map(({ key, perMinute }) => [key, perMinute ?? e.RATE_LIMIT_API_KEY_PER_MINUTE] as const),
    ]),
    trustProxy: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS,
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION,
    persistedOperations: { file: e.GRAPHQL_PERSISTED_OPERATIONS, only: e.GRAPHQL_PERSISTED_ONLY },
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
