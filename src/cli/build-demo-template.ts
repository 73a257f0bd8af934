// Run by `npm run build` (and so by postinstall): prepares the demo database once, so the first
// `npm start` copies a folder instead of running initdb and the seed (src/demo/demo-data-dir.ts).
//   node dist/build-demo-template.js [dir]      default: dist/demo-template
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../config-or-exit.js';
import { buildDemoTemplate } from '../demo/demo-data-dir.js';
import { DEFAULT_TEMPLATE_DIR } from '../db/template-dir.js';

const usage = `usage: npm run build  (or: node dist/build-demo-template.js [dir])
Prepares the embedded demo database template used by the first start (default ${path.relative(process.cwd(), DEFAULT_TEMPLATE_DIR)}).
Reads CHAIN_ID and the *_ADDRESS variables like the server: the orders are signed for that network.`;
const { values, positionals } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const config = loadConfigOrExit();
const t0 = performance.now();
const dir = positionals[0] ?? DEFAULT_TEMPLATE_DIR;
const meta = await buildDemoTemplate(dir, config, () => new Date());
console.log(
  `demo template ready in ${path.relative(process.cwd(), dir) || dir}: ${meta.summary.collections} collections, ${meta.summary.orders} orders, ${meta.summary.sales} sales (${Math.round(performance.now() - t0)} ms)`,
);
