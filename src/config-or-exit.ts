// For entry points: the configuration, or one line per problem on stderr and exit 2 (no stack).
import { ConfigError, loadConfig, type Config } from './config.js';

export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(2);
  }
}
