// npm run market-data:import -- <file.json>: stores external market data for listing rewards from
// a JSON array of {collection, volume24hGlobal, floorGlobal, observedAt?} (the MarketDataInput
// of the upsertMarketData mutation) through the same service and validation. The file is applied
// whole or not at all. Runs with the operator's database credentials, so it is the CLI form of
// the x-api-key guarded mutation.
import { runJsonImport } from './run-json-import.js';

await runJsonImport(`usage: npm run market-data:import -- <market-data.json>
Stores external market data for listing rewards from a JSON array of
{collection, volume24hGlobal, floorGlobal, observedAt?}, all or nothing (exit 1 with the problems).`, async (services, list, file) => {
  const r = await services.listingRewards.upsertMarketData(list);
  return `imported ${file}: ${r.written} written, ${r.ignoredOlder} ignored (older than the stored observation)`;
});
