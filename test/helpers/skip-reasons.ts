// Why a test is skipped, in its title, so the run says what to set to run it (the default
// reporter prints skipped titles). test/helpers/skip-summary.ts prints the same at the start.
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from './chromium.js';

export const SKIP_REASONS = {
  postgres: 'set TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres (a PostgreSQL server) to run',
  redis: 'set TEST_REDIS_URL=redis://127.0.0.1:6379 (a Redis server) to run',
  chromium: `install Chromium (apt-get install -y chromium) or set CHROMIUM_PATH; looked for ${CHROMIUM_PATH}`,
  sdk: 'run npm ci --prefix test/sdk-client (npm test does it in pretest) to run',
} as const;

export type Requirement = keyof typeof SKIP_REASONS;

const sdkClient = new URL('../sdk-client/node_modules/@looksrare/sdk', import.meta.url);

/** Whether each requirement is met in this run. */
export function available(): Record<Requirement, boolean> {
  return {
    postgres: !!process.env.TEST_DATABASE_URL,
    redis: !!process.env.TEST_REDIS_URL,
    chromium: existsSync(CHROMIUM_PATH),
    sdk: existsSync(sdkClient),
  };
}

/** The title, with "[skipped: <what to do>]" when the requirement is not met. */
export function titled(title: string, needs: Requirement): string {
  return available()[needs] ? title : `${title} [skipped: ${SKIP_REASONS[needs]}]`;
}
