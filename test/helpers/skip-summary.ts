// vitest globalSetup: says at the start of the run which groups of tests will be skipped and
// what to set to run them.
import { available, SKIP_REASONS, type Requirement } from './skip-reasons.js';

const WHAT: Record<Requirement, string> = {
  postgres: 'the suite against PostgreSQL and the multi-instance tests',
  redis: 'the cross-instance subscription test',
  chromium: 'the browser tests (GraphiQL, landing page, collection pages, REST reference) and their screenshots',
  sdk: 'the v1 SDK cross-checks',
};

export default function setup() {
  const missing = (Object.keys(WHAT) as Requirement[]).filter((r) => !available()[r]);
  if (!missing.length) return;
  const lines = missing.map((r) => `  - ${WHAT[r]}: ${SKIP_REASONS[r]}`);
  console.log(`\nSome tests will be skipped in this run:\n${lines.join('\n')}\n`);
}
