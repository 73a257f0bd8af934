// Per-request context: the services and this request's DataLoaders (batching the nested
// fields frontends ask for: Collection.stats, Order.collection, ...), plus who is calling.
import DataLoader from 'dataloader';
import type { Services } from './services/index.js';

export interface Context {
  services: Services;
  loaders: ReturnType<typeof createLoaders>;
  /** headers used for the admin and write-key guards */
  headers: Headers;
  now: () => Date;
}

function createLoaders(services: Services) {
  return {
    collection: new DataLoader((addresses: readonly string[]) => services.collections.getCollections(addresses)),
    stats: new DataLoader((addresses: readonly string[]) => services.stats.statsFor(addresses)),
  };
}

export function createContext(services: Services, headers: Headers): Context {
  return { services, loaders: createLoaders(services), headers, now: services.now };
}
