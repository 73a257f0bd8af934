// Structured logs (pino): JSON lines, one level from LOG_LEVEL; lines written while handling a
// request carry its reqId. At a terminal (stdout is a TTY) the same lines are printed for a person
// by pino-pretty, loaded only then; piped or redirected, they stay JSON lines for the log shipper.
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import { requestLogFields } from './request-id.js';

/** pino-pretty's stream for a person at a terminal (synchronous, in this thread), or undefined. */
function prettyDestination(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  const pretty = createRequire(import.meta.url)('pino-pretty') as (o: object) => DestinationStream;
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

export function createLogger(level: string): Logger {
  const options = { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, mixin: requestLogFields };
  const pretty = prettyDestination();
  return pretty ? pino(options, pretty) : pino(options);
}

export type { Logger };
