// npm run migrate: applies pending migrations and exits (the server also does this at boot).
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrate } from '../db/migrate.js';

const config = loadConfig();
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
try {
  const r = await migrate(db.sql);
  console.log(`${db.describe}: applied ${r.applied.length} (${r.applied.join(', ') || 'none'}), ${r.alreadyApplied.length} already applied`);
} finally {
  await db.close();
}
