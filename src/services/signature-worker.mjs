// Entry of a signature pool worker thread (see signature-pool.ts). Plain JavaScript because a
// worker thread has no TypeScript loader: under vitest nothing is inherited, and under `tsx`
// (npm start, the CLIs, the benchmarks) the inherited `--import tsx` registers its hooks on the
// main thread only. tsImport registers tsx for this import and its dependencies alone (it also
// maps the '.js' specifiers of the sources to their '.ts' files, which Node's own type
// stripping would not).
import { tsImport } from 'tsx/esm/api';

const mod = await tsImport('./signature-worker.ts', import.meta.url);

export default mod.default;
