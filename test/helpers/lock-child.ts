// A second process on an embedded data directory (argv[2]): "open" tries openDatabase and prints
// the outcome; "hold" opens it, prints "holding" and waits to be killed.
import { openDatabase } from '../../src/db/database.js';

const [, , dataDir, mode] = process.argv;
try {
  const db = await openDatabase({ dataDir: dataDir! });
  if (mode === 'hold') {
    console.log('holding');
    setInterval(() => {}, 1000);
  } else {
    console.log('opened');
    await db.close();
  }
} catch (err) {
  console.log(`refused: ${(err as Error).message}`);
  process.exitCode = 3;
}
