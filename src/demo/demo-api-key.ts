// The demo deployment's own API key. Webhooks belong to API keys, so a deployment without any
// answers their routes 403; the demo (`npm start` on the embedded database it seeded itself)
// has this one key instead, printed at start and written in docs/webhooks.md, so that every
// documented example works there. It is public: a deployment with a database of its own
// (DATABASE_URL, an embedded one that was not seeded as the demo) or with keys of its own
// (API_KEYS, WRITE_API_KEYS) never has it.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

export const DEMO_API_KEY = 'demo-marketplace-key';

/**
 * Written into the embedded database's folder when the demo is laid out there, before the folder
 * takes its final name (src/demo/demo-data-dir.ts): a folder holds the demo if and only if it
 * has this file, across restarts. PostgreSQL ignores files it does not know in its data folder.
 */
const MARK = 'marketplace-demo';

export function markDemoDatabaseDir(dir: string): void {
  writeFileSync(path.join(dir, MARK), 'seeded as the demo marketplace: the service gives it the demo API key (src/demo/demo-api-key.ts)\n');
}

export const isDemoDatabaseDir = (dir: string) => existsSync(path.join(dir, MARK));

/** The configuration with the demo key when the database is the demo the service seeded and no key is configured. */
export function withDemoApiKey(config: Config, servesItsOwnDemo: boolean): Config {
  if (!servesItsOwnDemo || config.databaseUrl || config.apiKeyLimits.size > 0) return config;
  return { ...config, apiKeyLimits: new Map([[DEMO_API_KEY, config.apiKeyPerMinute]]) };
}
