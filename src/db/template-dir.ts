import path from 'node:path';
import { PROJECT_ROOT } from '../project-root.js';

/** Where `npm run build` leaves the demo database template (see src/demo/demo-data-dir.ts). */
export const DEFAULT_TEMPLATE_DIR = path.join(PROJECT_ROOT, 'dist', 'demo-template');
