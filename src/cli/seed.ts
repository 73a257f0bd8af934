// npm run seed: loads the demo marketplace into the configured database (refuses a database
// that already has collections, so it never mixes demo data into real data).
import { boot } from '../app.js';
import { loadConfig } from '../config.js';
import { seedDemo } from '../db/seed-demo.js';
import { createLogger } from '../logger.js';

const config = { ...loadConfig(), seed: false };
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
