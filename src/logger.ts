// Structured logs (pino): JSON lines in production, one level from LOG_LEVEL.
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

export type { Logger };
