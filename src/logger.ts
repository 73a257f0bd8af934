// Structured logs (pino): JSON lines in production, one level from LOG_LEVEL; lines written while
// handling a request carry its reqId.
import { pino, type Logger } from 'pino';
import { requestLogFields } from './request-id.js';

export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, mixin: requestLogFields });
}

export type { Logger };
