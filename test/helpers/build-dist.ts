// vitest globalSetup: the built-service test and the cluster tests run dist/ (what `npm start`
// runs), so it is rebuilt once here, before any test file runs, when a source is newer than it.
// Rebuilding in each file instead would have parallel files writing dist/ at the same time.
import { ensureDistCurrent } from '../../scripts/ensure-dist-current.mjs';

export default async function setup() {
  const rebuilt = await ensureDistCurrent();
  if (rebuilt) console.log(`\nrebuilt dist/ for the built-service and cluster tests (${rebuilt.why}) in ${rebuilt.ms} ms\n`);
}
