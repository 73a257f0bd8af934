// npm run market-data:import -- <file.json>: stores external market data for listing rewards from
// a JSON array of {collection, volume24hGlobal, floorGlobal, observedAt?} (the MarketDataInput
// of the upsertMarketData mutation) through the same service and validation. The file is applied
// whole or not at all. Runs with the operator's database credentials, so it is the CLI form of
// the x-api-key guarded mutation.
import { readFileSync } from 'node:fs';
import { boot } from '../app.js';
import { loadConfig } from '../config.js';
import { ServiceError } from '../domain/errors.js';
import { createLogger } from '../logger.js';

const file = process.argv[2];
if (!file) {
  console.error('usage: npm run market-data:import -- <market-data.json>');
  process.exit(2);
}
let list: unknown;
try {
  list = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`cannot read ${file}: ${(err as Error).message}`);
  process.exit(2);
}
const config = { ...loadConfig(), seed: false };
const running = await boot(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel));
try {
  const result = await running.services.listingRewards.upsertMarketData(list);
  console.log(`imported ${file}: ${result.written} written, ${result.ignoredOlder} ignored (older than the stored observation)`);
} catch (err) {
  if (!(err instanceof ServiceError)) throw err;
  console.error(err.message);
  for (const p of err.problems) console.error(`  ${p.field}: ${p.message}`);
  process.exitCode = 1;
} finally {
  await running.close();
}
