// The shape every operator command shares: node:util parseArgs, `--help` prints the
// usage and does nothing else, a usage error prints the usage and exits 2, and the failures an
// operator can act on (configuration, locked data directory, unreachable database, ...) print
// one line without a stack (src/startup-failure.ts) and exit 1.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfigOrExit } from '../config-or-exit.js';
import type { Config } from '../config.js';
import { describeStartupFailure } from '../startup-failure.js';

export interface CommandSpec<O extends NonNullable<ParseArgsConfig['options']>> {
  usage: string;
  options?: O;
  allowPositionals?: boolean;
}

export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(spec: CommandSpec<O>) {
  const options = { ...(spec.options ?? {}), help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean'; short: 'h' } };
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options, allowPositionals: spec.allowPositionals ?? false, strict: true });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${spec.usage}`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(spec.usage);
    process.exit(0);
  }
  return parsed;
}

export function usageError(usage: string, message: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

/** Runs the body of a command; an actionable failure becomes one line and exit 1. */
export async function runCommand(body: (config: Config) => Promise<void>): Promise<void> {
  const config = loadConfigOrExit();
  try {
    await body(config);
  } catch (err) {
    const line = describeStartupFailure(err, config);
    if (!line) throw err;
    console.error(line);
    process.exitCode = 1;
  }
}
