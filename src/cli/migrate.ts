// npm run migrate: applies pending migrations and exits (the server also does this at boot).
import { openDatabase } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { parseCommand, runCommand } from './command.js';

parseCommand({
  usage: `usage: npm run migrate
Applies the pending SQL migrations of prisma/migrations, then the new or changed repeatable steps
of src/db/sql, to the configured database (DATABASE_URL, or the embedded one in DATA_DIR) and
exits. The server does the same at every start.`,
});

await runCommand(async (config) => {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    if (db.kind === 'postgres') await waitForDatabase(db, { seconds: config.databaseWaitSeconds });
    const r = await migrate(db.sql);
    console.log(`${db.describe}: applied ${r.applied.length} (${r.applied.join(', ') || 'none'}), ${r.alreadyApplied.length} already applied; repeatable steps run: ${r.repeated.join(', ') || 'none'}`);
    if (r.newer.length) console.log(`the database has migrations of a newer release (${r.newer.join(', ')}): its repeatable steps were left alone`);
  } finally {
    await db.close();
  }
});
