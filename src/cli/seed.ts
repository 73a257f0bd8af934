// npm run seed: loads the demo marketplace into the configured database (refuses a database
// that already has collections, so it never mixes demo data into real data). Unlike the first
// embedded start (src/demo/demo-data-dir.ts) this is not atomic: interrupted, drop and recreate
// the database before running it again.
import { boot } from '../app.js';
import { seedDemo } from '../demo/seed-demo.js';
import { createLogger } from '../logger.js';
import { parseCommand, runCommand } from './command.js';

parseCommand({
  usage: `usage: npm run seed
Loads the demo marketplace (7 collections, 420 signed orders, 3,000 sales, ...) into the configured
database, which must have no collections yet. The embedded database gets it on its first start
already (SEED=0 skips that).`,
});

await runCommand(async (baseConfig) => {
  const config = { ...baseConfig, seed: false };
  const logger = createLogger(config.logLevel);
  const running = await boot(config, logger, { indexer: false });
  try {
    const existing = await running.db.prisma.collection.count();
    if (existing > 0) {
      logger.error(`the database already has ${existing} collection(s); seed only an empty database`);
      process.exitCode = 1;
    } else {
      const t0 = performance.now();
      const summary = await seedDemo(running.services);
      logger.info({ ...summary, ms: Math.round(performance.now() - t0) }, 'demo marketplace seeded');
    }
  } finally {
    await running.close();
  }
});
