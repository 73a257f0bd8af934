// The Node flags `npm start` gives the server, read from package.json's start script, so that
// everything else that runs the built server (the cluster launcher, the benches, the built-server
// test) runs the same process an operator gets, and a flag changed there changes them all.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const START_NODE_FLAGS: string[] = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start as string)
  .split(/\s+/)
  .filter((arg) => arg.startsWith('--'));
