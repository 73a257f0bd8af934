// Per-request context: the services and this request's DataLoaders (batching the nested
// fields frontends ask for: Collection.stats, Order.collection, ...), plus who is calling.
import DataLoader from 'dataloader';
import { createStatementBatch, type StatementBatch } from './db/statement-batch.js';
import type { Services } from './services/index.js';
import { readDb } from './services/deps.js';

export interface Context {
  services: Services;
  loaders: ReturnType<typeof createLoaders>;
  /** this request's reads of one level, combined into one statement (src/db/statement-batch.ts) */
  sql: StatementBatch;
  /** headers used for the admin and write-key guards */
  headers: Headers;
  now: () => Date;
}

function createLoaders(services: Services, sql: StatementBatch) {
  return {
    collection: new DataLoader((addresses: readonly string[]) => services.collections.getCollections(addresses, sql)),
    stats: new DataLoader((addresses: readonly string[]) => services.stats.statsFor(addresses, sql)),
    /** `<order hash>|<status>`: the latest event that set it (Order.fillability) */
    statusEvents: new DataLoader((keys: readonly string[]) => services.fillability.latestStatusEvents(keys, sql)),
    /** `<signer>|<currency>`: the indexer's last read of a bid maker's currency (Order.fillability.missing) */
    currencyHoldings: new DataLoader((keys: readonly string[]) => services.fillability.currencyHoldings(keys, sql)),
  };
}

/**
 * The same request with DataLoaders of its own (statements still batched with the request's):
 * the read engine primes them with partial rows for the resolver-only fields it resolves in place.
 */
export function forkContext(ctx: Context): Context {
  return { ...ctx, loaders: createLoaders(ctx.services, ctx.sql) };
}

export function createContext(services: Services, headers: Headers): Context {
  const sql = createStatementBatch(readDb(services.deps).sql);
  return { services, loaders: createLoaders(services, sql), sql, headers, now: services.now };
}
