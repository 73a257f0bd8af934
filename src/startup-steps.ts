// Startup says what it is doing and how long each step took: one log line per
// step with its own ms and the ms since the process started, so a slow start shows its culprit.
import type { Logger } from './logger.js';

export interface StartupSteps {
  /** runs one step, logging `step` with its duration (and `fields` it returns, if any) */
  /** `since`: when the step really began (performance.now()), if earlier than this call */
  run<T>(step: string, fn: () => Promise<T> | T, fields?: (result: T) => Record<string, unknown>, since?: number): Promise<T>;
  /** milliseconds since the process started */
  sinceStart(): number;
}

export function createStartupSteps(logger: Pick<Logger, 'info'>): StartupSteps {
  const sinceStart = () => Math.round(performance.now());
  return {
    sinceStart,
    async run(step, fn, fields, since) {
      const t0 = since ?? performance.now();
      const result = await fn();
      logger.info({ step, ms: Math.round(performance.now() - t0), sinceStartMs: sinceStart(), ...fields?.(result) }, `startup: ${step}`);
      return result;
    },
  };
}

/** Steps that log nothing (tests, CLIs that keep quiet). */
export const silentSteps: StartupSteps = { run: async (_s, fn) => fn(), sinceStart: () => Math.round(performance.now()) };
