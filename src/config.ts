// The only reader of process.env. Parsed and validated once at boot: a bad value stops the
// process with a message naming the variable, instead of surfacing later as "undefined".
//
// Each setting is declared once below: its parser, its default and its meaning (.describe()).
// docs/configuration.md and .env.example are generated from these declarations
// (`npm run config:docs`, scripts/print-config-docs.ts) and a test fails when they drift.
import proxyaddr from 'proxy-addr';
import * as z from 'zod';
import { normalizeAddress } from './domain/address.js';
import { missingNetworkAddresses, resolveNetwork, type Network } from './domain/networks.js';

/**
 * What the generated docs say about a setting beyond its meaning, kept in zod's metadata
 * registry by the helpers below so that a default is written once, where it is parsed.
 */
type SettingMeta = {
  /** the value an unset variable reads as, written as it would be in the environment */
  default?: string;
  /** a value to show, commented out, in .env.example for a setting without a default */
  example?: string;
  /** the only accepted values */
  values?: readonly string[];
};

// .meta() takes any keys; this checks ours.
const meta = (m: SettingMeta) => m;

const SWITCH_VALUES = ['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'] as const;

/** On or off; the empty string is refused like any other word outside SWITCH_VALUES. */
const bool = (fallback: boolean) =>
  z
    .enum(SWITCH_VALUES)
    .optional()
    .transform((v) => (v === undefined ? fallback : ['1', 'true', 'yes', 'on'].includes(v)))
    .meta(meta({ default: String(fallback) }));

/** One word out of a few. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z.enum(values).default(fallback).meta(meta({ default: fallback, values }));

/** Free text; set but empty stays empty. */
const text = (fallback: string) => z.string().default(fallback).meta(meta({ default: fallback }));

/** A value read from its text; unset or empty reads as `fallback`, which goes through `parse` too. */
const parsed = <T>(fallback: string, parse: (v: string, ctx: z.RefinementCtx<string | undefined>) => T) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => parse(v === undefined || v === '' ? fallback : v, ctx))
    .meta(meta({ default: fallback }));

const int = (fallback: number, min: number, max: number) =>
  parsed(String(fallback), (v, ctx) => {
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

/** A block number, or a word that stands for something else. */
const blockOr = <W extends string, R>(fallback: string, word: W, meaning: R) =>
  parsed(fallback, (v, ctx) => {
    if (v === word) return meaning;
    if (!/^\d+$/.test(v)) {
      ctx.addIssue({ code: 'custom', message: `expected a block number or "${word}", got "${v}"` });
      return z.NEVER;
    }
    return Number(v);
  });

/** Trimmed; blank reads as unset. */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const url = (schemes: RegExp, message: string, example: string) =>
  optionalString.refine((v) => v === undefined || schemes.test(v), { message }).meta(meta({ example }));

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

const POSTGRES_URL = /^postgres(ql)?:\/\//;

const serving = {
  PORT: int(4000, 0, 65535).describe('where to listen; `0` picks a free port'),
  HOST: text('0.0.0.0').describe('the address to listen on'),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info').describe('pino log level'),
  GRAPHIQL: bool(true).describe('GraphiQL on /graphql in a browser; `false` in production'),
  READ_ENGINE: bool(true).describe(
    'answer queries with one SQL statement that returns the finished JSON (`src/read-engine/`); `false` leaves every field to its resolver (a switch for operators: same answers, slower)',
  ),
  READ_GENERIC_PLANS: bool(true).describe(
    'on PostgreSQL, a query shape whose generic plan reads only rows its index conditions find (no sort, hash or bitmap; a client\'s value never in a filter) runs on connections that plan it once instead of per request (`src/read-engine/generic-plans.ts`); `false`: every statement is planned per request',
  ),
  REDIS_URL: url(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL', 'redis://127.0.0.1:6379').describe(
    'live events reach the subscribers of every instance (yoga pubsub over Redis), and all instances draw from one rate-limit budget; unset, or while Redis is unreachable, both stay within each instance (logged)',
  ),
  HEALTH_CHECK_TIMEOUT_MS: int(1000, 50, 60_000).describe('`/readyz` waits at most this long for each component'),
  SHUTDOWN_TIMEOUT_MS: int(8000, 0, 600_000).describe('on SIGTERM/SIGINT, how long in-flight requests may take to finish before the process exits'),
  EVENT_STREAM_POLL_MS: int(1000, 20, 60_000).describe(
    'an open `marketEvents` subscription reads the event log at least this often; new events wake it sooner through the event bus (Redis across instances), so this bounds the delay only while Redis is down or for writes the bus does not announce',
  ),
  TRAIT_FLOOR_EVENTS_MS: int(1000, 0, 3_600_000).describe(
    'how often a trait value\'s floor moves are written to the event log as `TRAIT_FLOOR_CHANGE` (docs/metadata.md); `0` turns them off. The trait panel reads floors live either way',
  ),
  EVENT_LOG_RETENTION_DAYS: int(0, 0, 36_500).describe(
    'events older than this many days are pruned from the market event log (in small batches, every few minutes); `0` keeps the whole log, which activity pages and histories need. A subscriber resuming from a pruned event gets `CURSOR_EXPIRED`',
  ),
};

const access = {
  RATE_LIMIT_PER_MINUTE: int(120, 0, 1_000_000).describe(
    'requests per minute per client address (no key, or an unknown `X-Looks-Api-Key`), REST and GraphQL; `0` turns rate limiting off',
  ),
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
    })
    .meta(meta({ example: 'partner-key-1:1200,partner-key-2' }))
    .describe('known `X-Looks-Api-Key` values (8+ characters), comma-separated, each `key` or `key:perMinute`; each key has its own budget'),
  RATE_LIMIT_API_KEY_PER_MINUTE: int(600, 0, 1_000_000).describe('budget of a known key without its own (`API_KEYS`, `WRITE_API_KEYS`)'),
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
    })
    .meta(meta({ example: 'loopback' }))
    .describe(
      'who may name the client in `X-Forwarded-For`: unset = nobody (the socket peer counts), a hop count, or comma-separated addresses/CIDRs/`loopback`/`linklocal`/`uniquelocal` (the load balancer)',
    ),
  MAX_BODY_BYTES: int(1_048_576, 1024, 64 * 1_048_576).describe(
    'larger request bodies get 413 (counted while read, any transfer encoding, REST and GraphQL)',
  ),
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
    })
    .meta(meta({ example: 'https://app.example.com' }))
    .describe('browser origins allowed with credentials, comma-separated; unset or `*`: any origin may read, never with credentials'),
  GRAPHQL_INTROSPECTION: bool(true).describe('`false` refuses `__schema` and `__type`'),
  GRAPHQL_PERSISTED_OPERATIONS: optionalString
    .meta(meta({ example: './operations.json' }))
    .describe('a JSON file `{ "id": "query" }` of operations clients may run by id (`extensions.persistedQuery.sha256Hash`)'),
  GRAPHQL_PERSISTED_ONLY: bool(false).describe('`true`: /graphql runs only the operations of `GRAPHQL_PERSISTED_OPERATIONS`'),
  MAX_QUERY_COMPLEXITY: int(5000, 10, 1_000_000).describe('GraphQL cost limit (a connection costs about `first` x its fields)'),
  MAX_QUERY_DEPTH: int(10, 2, 100).describe('GraphQL depth limit'),
  WRITE_API_KEYS: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? [] : v.split(',').map((k) => k.trim()).filter(Boolean)))
    .meta(meta({ example: 'key-one,key-two' }))
    .describe('comma-separated; when set, order writes need one of them in `X-Looks-Api-Key`'),
  ADMIN_API_KEY: optionalString
    .refine((v) => v === undefined || v.length >= 16, { message: 'must be at least 16 characters' })
    .meta(meta({ example: 'change-me-to-a-long-random-string' }))
    .describe('enables the admin mutations (`upsertCollection`, `upsertMarketData`), which need it in the `x-api-key` header; 16+ characters'),
};

const database = {
  DATABASE_URL: url(
    POSTGRES_URL,
    'must be a postgres:// or postgresql:// URL (unset it to use the embedded database)',
    'postgresql://postgres@127.0.0.1:5432/marketplace',
  ).describe('PostgreSQL; unset: the embedded PGlite (PostgreSQL in WASM) under `DATA_DIR`'),
  DATA_DIR: text('./data').describe('the embedded database\'s folder, or `memory` to keep it in memory'),
  SEED: bool(true).describe('load the demo marketplace into a newly created embedded database'),
  DATABASE_POOL_SIZE: int(10, 1, 500).describe(
    'PostgreSQL connections per instance and pool (instances x pools x size must stay below the server\'s `max_connections`; the read engine\'s generic plans (`READ_GENERIC_PLANS`) have a second pool of this size, and a replica gets pools of the same size)',
  ),
  DATABASE_WAIT_SECONDS: parsed('10', (v, ctx) => {
    if (v === 'forever') return Infinity;
    if (!/^\d+$/.test(v) || Number(v) > 86_400) {
      ctx.addIssue({ code: 'custom', message: `expected seconds (0..86400) or "forever", got "${v}"` });
      return z.NEVER;
    }
    return Number(v);
  }).describe('PostgreSQL unreachable at boot: retry this long, then exit 1; `forever` waits'),
  DATABASE_CONNECT_TIMEOUT_MS: int(2000, 0, 600_000).describe('to get a pooled PostgreSQL connection (opening one included); `0`: no limit'),
  DATABASE_STATEMENT_TIMEOUT_MS: int(5000, 0, 3_600_000).describe(
    'per statement (the server\'s `statement_timeout`; the client gives up 1 s later if the server says nothing); `0`: no limit',
  ),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(10_000, 0, 3_600_000).describe('PostgreSQL ends a transaction left idle this long, releasing its locks; `0`: no limit'),
  DATABASE_SESSION_TIMEOUT_MS: int(60_000, 0, 3_600_000).describe(
    'per statement on dedicated sessions (the indexer\'s batches); `0`: no limit. Migrations have none: an index build takes as long as its table needs',
  ),
  DATABASE_REPLICA_URL: url(
    POSTGRES_URL,
    'must be a postgres:// or postgresql:// URL of a streaming replica of DATABASE_URL',
    'postgresql://postgres@replica-host:5432/marketplace',
  ).describe('a streaming replica of `DATABASE_URL` (needs it): order lists, collections, stats and listing rewards read there'),
  DATABASE_REPLICA_MAX_LAG_MS: int(2000, 0, 3_600_000).describe(
    'a replica further behind than this is not read (reads go to the primary until it catches up)',
  ),
  DATABASE_REPLICA_PROBE_MS: int(500, 50, 60_000).describe('how often the replica\'s replayed WAL position is compared with the primary\'s'),
};

const chain = {
  CHAIN_ID: int(1, 1, 2 ** 31).describe('selects the built-in address book (1 mainnet, 5 Goerli); another chain needs its addresses below'),
  RPC_URL: url(/^(https?|wss?):\/\//, 'must be an http(s):// or ws(s):// URL', 'http://127.0.0.1:8545').describe(
    'JSON-RPC node: chain checks on submission, and the chain indexer; unset: both off',
  ),
  INDEXER: oneOf(['on', 'off'], 'on').describe('`off`: no chain indexer in this process (`npm run indexer` runs it alone)'),
  INDEXER_START_BLOCK: blockOr('latest', 'latest', 'latest' as const).describe('first block when nothing was indexed yet'),
  INDEXER_CONFIRMATIONS: int(3, 0, 1000).describe('blocks left below the head'),
  INDEXER_BATCH_SIZE: int(100, 1, 100_000).describe('blocks per batch'),
  INDEXER_POLL_MS: int(2000, 10, 3_600_000).describe('pause when caught up (also a standby\'s retry period for the indexer lease)'),
  INDEXER_BACKFILL_FROM_BLOCK: blockOr('0', 'off', null).describe(
    'a collection registered later gets its transfers and sales backfilled from this block; `off`: never',
  ),
  CONSISTENCY_MAX_WAIT_MS: int(5000, 0, 60_000).describe(
    'the longest a read waits for the block (`X-Min-Block`) or transaction (`X-Wait-For-Tx`) it asks for; then it is answered with what is indexed, and says so (docs/api.md, "Consistency"); a client may ask for less with `X-Max-Wait-Ms`',
  ),
};

// A chain without a built-in address book needs the four that missingNetworkAddresses() names.
const addresses = {
  EXCHANGE_ADDRESS: address.describe('the exchange contract'),
  WETH_ADDRESS: address.describe('WETH'),
  TRANSFER_MANAGER_ERC721_ADDRESS: address.describe('the ERC-721 transfer manager'),
  TRANSFER_MANAGER_ERC1155_ADDRESS: address.describe('the ERC-1155 transfer manager'),
  STRATEGY_STANDARD_SALE_ADDRESSES: addressList.describe('fixed-price strategies, comma-separated'),
  STRATEGY_COLLECTION_OFFER_ADDRESSES: addressList.describe('collection-offer strategies, comma-separated'),
  STRATEGY_PRIVATE_SALE_ADDRESSES: addressList.describe('private-sale strategies, comma-separated'),
  STRATEGY_DUTCH_AUCTION_ADDRESSES: addressList.describe('Dutch-auction strategies, comma-separated'),
};

const orders = {
  SIGNATURE_WORKERS: int(0, 0, 256).describe(
    'worker threads verifying order signatures; `0` verifies on the main thread, the faster choice with the native crypto addon (a check costs less than handing it to a thread); threads pay off on the pure-JS fallback',
  ),
  // Read by src/domain/crypto-backend.ts as it loads, before this module runs (hashing picks its
  // backend on import, also in worker threads); declared here so a typo stops the boot.
  CRYPTO_BACKEND: oneOf(['native', 'js'], 'native').describe(
    '`js` skips the native keccak/libsecp256k1 addons and hashes and recovers in pure JS, as a start does by itself when the addons do not load; the start log names the backend',
  ),
  LISTING_REWARDS_ENABLED: bool(true).describe('`false`: listing rewards answer `data: null`'),
  LISTING_REWARD_POINTS: text('500,360,200,100,50')
    .transform((v, ctx) => {
      const parts = v.split(',').map((p) => p.trim());
      if (parts.length !== 5 || parts.some((p) => !/^\d+$/.test(p))) {
        ctx.addIssue({ code: 'custom', message: 'expected five comma-separated whole numbers' });
        return z.NEVER;
      }
      return parts.map(Number);
    })
    .describe('listing-reward points per snapshot by rank, five comma-separated whole numbers'),
  GLOBAL_DATA_MAX_AGE_SECONDS: int(86_400, 1, 365 * 86_400).describe('older external market data does not count for listing rewards'),
};

const webhooks = {
  WEBHOOKS: bool(true).describe('`false`: this instance sends no webhooks (endpoints can still be managed; another instance delivers)'),
  WEBHOOK_POLL_MS: int(5000, 10, 600_000).describe(
    'the webhook sender looks for due endpoints at least this often; new events wake it sooner through the event bus',
  ),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000).describe('a delivery that has not been answered within this long counts as failed'),
  WEBHOOK_MAX_RESPONSE_BYTES: int(65_536, 0, 16 * 1_048_576).describe('the sender reads at most this much of a receiver\'s answer, then drops the connection'),
  WEBHOOK_RETRY_FIRST_MS: int(30_000, 1, 86_400_000).describe('wait after the first failed delivery; each further failure doubles it, with jitter, up to `WEBHOOK_RETRY_MAX_MS`'),
  WEBHOOK_RETRY_MAX_MS: int(3_600_000, 1, 86_400_000).describe('the longest wait between two attempts'),
  WEBHOOK_DISABLE_AFTER_FAILURES: int(30, 1, 10_000).describe(
    'consecutive failed attempts after which an endpoint is DISABLED (30 with the default waits: about a day); re-enabling resumes from its cursor',
  ),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(false).describe(
    '`true` lets endpoints point at loopback, private, link-local and unique-local addresses (a receiver on the same network); off, such targets are refused when registered and when a name resolves to one at delivery time',
  ),
};

/** A comma-separated list of http(s) base URLs, without a trailing slash. */
const baseUrlList = (fallback: string) =>
  parsed(fallback, (v, ctx) => {
    const list = v.split(',').map((p) => p.trim().replace(/\/+$/, '')).filter(Boolean);
    const bad = list.find((p) => !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(p));
    if (bad !== undefined || list.length === 0) {
      ctx.addIssue({ code: 'custom', message: `expected comma-separated http(s) base URLs, got "${bad ?? v}"` });
      return z.NEVER;
    }
    return list;
  });

const metadata = {
  METADATA: bool(true).describe(
    '`false`: this instance reads no token metadata (another instance does, or metadata comes from imports); with `RPC_URL` unset nothing is read either: token URIs come from the chain',
  ),
  IPFS_GATEWAYS: baseUrlList('https://trustless-gateway.link,https://ipfs.io').describe(
    'trustless IPFS gateways, comma-separated, tried in turn; what they answer is checked against its CID (a gateway cannot change a token\'s traits)',
  ),
  IPFS_PUBLIC_GATEWAY: text('https://ipfs.io').describe('the gateway `ipfs://` images and animations are given out through, as http(s) URLs'),
  ARWEAVE_GATEWAY: baseUrlList('https://arweave.net').describe('where `ar://` URIs are read (the first of the list)'),
  METADATA_ALLOW_PRIVATE_TARGETS: bool(false).describe(
    '`true` lets metadata, gateway and image reads reach loopback, private, link-local and unique-local addresses (a metadata host on the same network); off, they are refused, each redirect and each resolved address checked',
  ),
  METADATA_TIMEOUT_MS: int(10_000, 100, 120_000).describe('one read, connection to last byte (a host trickling bytes ends here)'),
  METADATA_MAX_BYTES: int(2 * 1_048_576, 1024, 64 * 1_048_576).describe('the most a read may bring, after decompression'),
  METADATA_CONCURRENCY: int(32, 1, 1024).describe('token reads in flight per instance'),
  METADATA_PER_HOST_CONCURRENCY: int(8, 1, 1024).describe('reads in flight per host (a `Retry-After` from a host pauses it)'),
  METADATA_RETRIES: int(3, 0, 20).describe('attempts after a transient failure (timeout, connection, 408, 429, 5xx) within one read, with exponential backoff'),
  METADATA_RECHECK_HOURS: int(24, 1, 24 * 365).describe('a token whose URI is mutable (http, https) is read again after this long'),
  METADATA_REFRESH_COOLDOWN_SECONDS: int(60, 0, 86_400).describe('the least time between two refreshes a client asks for, per token'),
  METADATA_COLLECTION_REFRESH_COOLDOWN_SECONDS: int(3600, 0, 7 * 86_400).describe('the least time between two refreshes of a whole collection'),
};

const media = {
  MEDIA_BASE_URL: url(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http(s) origin such as https://cdn.example.com (no query)', 'https://cdn.example.com')
    .transform((v) => v?.replace(/\/+$/, ''))
    .describe(
      'the origin media URLs are given out under (a CDN in front of this service, serving the same `/media/...` paths); unset: root-relative `/media/<sha256>/<variant>` URLs, resolved against this service\'s own origin',
    ),
  MEDIA: bool(true).describe(
    '`false`: this instance fetches no images (another instance does); it still serves `/media/` and encodes a variant asked for the first time',
  ),
  MEDIA_MAX_BYTES: int(16 * 1_048_576, 1024, 256 * 1_048_576).describe('the largest source image fetched or uploaded, after decompression'),
  MEDIA_MAX_PIXELS: int(64 * 1_048_576, 1024, 1_000_000_000).describe(
    'the most pixels an image may decode to (width x height; an animation kept animated counts every frame): a decompression bomb is refused before its pixels exist',
  ),
  MEDIA_FETCH_TIMEOUT_MS: int(30_000, 100, 600_000).describe('one image read, connection to last byte (a host trickling bytes ends here)'),
  MEDIA_CONCURRENCY: int(8, 1, 256).describe('source images fetched and stored at once per instance'),
  MEDIA_CACHE_MB: int(64, 0, 65_536).describe('encoded variants kept in this process\'s memory for serving (least recently served dropped first); `0`: every request reads the database'),
  MEDIA_GC_GRACE_HOURS: int(168, 1, 24 * 3650).describe(
    'stored images nothing names any more (no collection\'s logo or banner, no token\'s image) are deleted after this long',
  ),
};

/** The settings in the groups the generated docs present them in. */
const GROUPS = [
  { title: 'Serving', settings: serving },
  { title: 'Limits and access', settings: access },
  {
    title: 'Database',
    about:
      'The timeouts bound how long a stuck PostgreSQL may hold a request: past one, the request answers 503 with `Retry-After` instead of hanging.',
    settings: database,
  },
  { title: 'Chain and indexer', settings: chain },
  {
    title: 'Contract addresses',
    about:
      'Chains 1 and 5 have built-in address books; each variable overrides one entry. Another `CHAIN_ID` needs `EXCHANGE_ADDRESS`, `WETH_ADDRESS`, `STRATEGY_STANDARD_SALE_ADDRESSES` and `STRATEGY_COLLECTION_OFFER_ADDRESSES`: the service refuses to start without them.',
    settings: addresses,
  },
  { title: 'Orders and listing rewards', settings: orders },
  { title: 'Webhooks', settings: webhooks },
  { title: 'Token metadata', settings: metadata },
  {
    title: 'Media',
    about:
      'Logos, banners and token images, fetched once, stored under their SHA-256 and served from `/media/<sha256>/<variant>` (docs/media.md). Image reads go through the metadata fetcher: `IPFS_GATEWAYS`, `ARWEAVE_GATEWAY` and `METADATA_ALLOW_PRIVATE_TARGETS` apply to them too.',
    settings: media,
  },
] as const;

const envSchema = z.object({ ...serving, ...access, ...database, ...chain, ...addresses, ...orders, ...webhooks, ...metadata, ...media });

type Env = z.infer<typeof envSchema>;

export type Config = ReturnType<typeof configFrom>;

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
  return configFrom(e, network);
}

/** The shape the code uses: grouped by the part that reads it. The variables' meanings are above. */
function configFrom(e: Env, network: Network) {
  return {
    /** the chain's address book with the address variables applied (src/domain/networks.ts) */
    network,
    rpcUrl: e.RPC_URL,
    redisUrl: e.REDIS_URL,
    indexer: {
      enabled: e.INDEXER === 'on',
      startBlock: e.INDEXER_START_BLOCK,
      confirmations: e.INDEXER_CONFIRMATIONS,
      batchSize: e.INDEXER_BATCH_SIZE,
      pollMs: e.INDEXER_POLL_MS,
      /** null: never backfill */
      backfillFromBlock: e.INDEXER_BACKFILL_FROM_BLOCK,
    },
    /** a read asking for a block or transaction waits at most this long (src/http/consistency.ts) */
    consistencyMaxWaitMs: e.CONSISTENCY_MAX_WAIT_MS,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    /** PostgreSQL timeouts in ms, 0 = no limit (src/db/database.ts) */
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      sessionMs: e.DATABASE_SESSION_TIMEOUT_MS,
    },
    healthCheckTimeoutMs: e.HEALTH_CHECK_TIMEOUT_MS,
    /** reads may go to this streaming replica of databaseUrl (src/db/read-replica.ts) */
    databaseReplica: e.DATABASE_REPLICA_URL
      ? { url: e.DATABASE_REPLICA_URL, maxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS, probeMs: e.DATABASE_REPLICA_PROBE_MS }
      : undefined,
    /** Infinity: wait for PostgreSQL as long as it takes */
    databaseWaitSeconds: e.DATABASE_WAIT_SECONDS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    /** the market event log as a stream (src/services/market-event-stream.ts) and its retention */
    eventLog: { streamPollMs: e.EVENT_STREAM_POLL_MS, retentionDays: e.EVENT_LOG_RETENTION_DAYS, traitFloorEveryMs: e.TRAIT_FLOOR_EVENTS_MS },
    /** a folder for the embedded database, or 'memory' */
    dataDir: e.DATA_DIR,
    seed: e.SEED,
    logLevel: e.LOG_LEVEL,
    adminApiKey: e.ADMIN_API_KEY,
    writeApiKeys: e.WRITE_API_KEYS,
    graphiql: e.GRAPHIQL,
    readEngine: e.READ_ENGINE,
    readGenericPlans: e.READ_GENERIC_PLANS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    /** the per-minute budget of a known key without its own */
    apiKeyPerMinute: e.RATE_LIMIT_API_KEY_PER_MINUTE,
    /** known API keys (API_KEYS, WRITE_API_KEYS; the demo's, src/demo/demo-api-key.ts) and each one's per-minute budget */
    apiKeyLimits: new Map<string, number>([
      ...e.WRITE_API_KEYS.map((k) => [k, e.RATE_LIMIT_API_KEY_PER_MINUTE] as const),
      ...e.API_KEYS.map(({ key, perMinute }) => [key, perMinute ?? e.RATE_LIMIT_API_KEY_PER_MINUTE] as const),
    ]),
    /** false: nobody; a hop count; or the trusted addresses (src/http/rate-limit.ts) */
    trustProxy: e.TRUST_PROXY,
    /** null: any origin, never with credentials */
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
    /** 0: on the main thread */
    signatureWorkers: e.SIGNATURE_WORKERS,
    /** the webhook sender (src/services/webhook-worker.ts) */
    webhooks: {
      enabled: e.WEBHOOKS,
      pollMs: e.WEBHOOK_POLL_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: e.WEBHOOK_MAX_RESPONSE_BYTES,
      retryFirstMs: e.WEBHOOK_RETRY_FIRST_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
      disableAfterFailures: e.WEBHOOK_DISABLE_AFTER_FAILURES,
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    },
    /** the token metadata pipeline (src/services/metadata-worker.ts) */
    metadata: {
      enabled: e.METADATA,
      ipfsGateways: e.IPFS_GATEWAYS,
      ipfsPublicGateway: e.IPFS_PUBLIC_GATEWAY.replace(/\/+$/, ''),
      arweaveGateway: e.ARWEAVE_GATEWAY[0]!,
      allowPrivateTargets: e.METADATA_ALLOW_PRIVATE_TARGETS,
      timeoutMs: e.METADATA_TIMEOUT_MS,
      maxBytes: e.METADATA_MAX_BYTES,
      concurrency: e.METADATA_CONCURRENCY,
      perHostConcurrency: e.METADATA_PER_HOST_CONCURRENCY,
      retries: e.METADATA_RETRIES,
      recheckMs: e.METADATA_RECHECK_HOURS * 3_600_000,
      refreshCooldownMs: e.METADATA_REFRESH_COOLDOWN_SECONDS * 1000,
      collectionRefreshCooldownMs: e.METADATA_COLLECTION_REFRESH_COOLDOWN_SECONDS * 1000,
    },
    /** images served from /media/ (src/services/media/) */
    media: {
      /** no trailing slash; undefined: root-relative URLs */
      baseUrl: e.MEDIA_BASE_URL,
      enabled: e.MEDIA,
      maxBytes: e.MEDIA_MAX_BYTES,
      maxPixels: e.MEDIA_MAX_PIXELS,
      fetchTimeoutMs: e.MEDIA_FETCH_TIMEOUT_MS,
      concurrency: e.MEDIA_CONCURRENCY,
      cacheBytes: e.MEDIA_CACHE_MB * 1_048_576,
      gcGraceMs: e.MEDIA_GC_GRACE_HOURS * 3_600_000,
    },
  };
}

/** One setting as the generated docs present it. */
export type SettingDoc = SettingMeta & { name: string; description: string };

/** The declarations above, read back for docs/configuration.md and .env.example. */
export function describeSettings(): { title: string; about?: string; settings: SettingDoc[] }[] {
  return GROUPS.map((group) => ({
    title: group.title,
    ...('about' in group ? { about: group.about } : {}),
    settings: Object.entries(group.settings).map(([name, schema]) => {
      const { description, ...rest } = metaOf(schema);
      if (!description) throw new Error(`${name} has no .describe() in src/config.ts`);
      return { name, description, ...rest };
    }),
  }));
}

/** A schema's metadata, merged with that of what a .transform() was applied to. */
function metaOf(schema: z.ZodType): SettingMeta & { description?: string } {
  const inner = schema instanceof z.ZodPipe ? metaOf(schema.in as z.ZodType) : {};
  return { ...inner, ...(z.globalRegistry.get(schema) as (SettingMeta & { description?: string }) | undefined) };
}
