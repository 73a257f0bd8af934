// The shared shape of the operator import commands: a JSON file in, one service call, the
// problems printed on refusal (exit 1), usage errors exit 2. They boot without the chain
// indexer: a one-shot command must not start following the chain.
import { readFileSync } from 'node:fs';
import { boot } from '../app.js';
import { ServiceError } from '../domain/errors.js';
import { createLogger } from '../logger.js';
import type { Services } from '../services/index.js';
import { parseCommand, runCommand, usageError } from './command.js';

export async function runJsonImport(usage: string, apply: (services: Services, list: unknown, file: string) => Promise<string>): Promise<void> {
  const { positionals } = parseCommand({ usage, allowPositionals: true });
  const file = positionals[0];
  if (!file || positionals.length > 1) usageError(usage, file ? 'one file at a time' : 'which file?');
  let list: unknown;
  try {
    list = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`cannot read ${file}: ${(err as Error).message}`);
    process.exit(2);
  }
  await runCommand(async (baseConfig) => {
    const config = { ...baseConfig, seed: false };
    const running = await boot(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel), { indexer: false });
    try {
      console.log(await apply(running.services, list, file));
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      console.error(err.message);
      for (const p of err.problems) console.error(`  ${p.field}: ${p.message}`);
      process.exitCode = 1;
    } finally {
      await running.close();
    }
  });
}
