import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// One suite, two databases: embedded PGlite by default; TEST_DATABASE_URL runs the same files
// against a PostgreSQL server (each file creates and drops its own copy of a migrated template).
export default defineConfig({
  resolve: {
    // graphql 16 ships CJS and ESM builds; Vite would pick the ESM one for our files while the
    // Pothos and yoga packages load the CJS one under Node, giving two "graphql" instances.
    // Node (tsx, npm start) resolves the CJS entry; the tests must run the same code.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/sdk-client/**', 'node_modules/**'],
    pool: 'forks',
    // vitest's default keeps one core free, which on two cores runs the files one at a time while
    // many of them wait on child processes and sockets: two workers at least. Files share their
    // worker's loaded modules instead of importing the application again each (a third of the
    // suite's CPU time on two cores); each file still opens its own database and app.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ['default'],
    // prints which tests this run skips and what to set to run them; rebuilds a stale dist/;
    // migrates the database each file copies
    globalSetup: ['test/helpers/skip-summary.ts', 'test/helpers/build-dist.ts', 'test/helpers/template-database.ts'],
  },
});
