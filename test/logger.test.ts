// Log lines are JSON when stdout is not a terminal (a log shipper reads them) and printed for a
// person when it is; the built server's first lines show both.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPT = `import('./src/logger.ts').then(({ createLogger }) => createLogger('info').info({ port: 1 }, 'ready in 5 ms: http://localhost:1'))`;

describe('logger', () => {
  it('writes JSON lines when stdout is not a terminal', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', SCRIPT], { encoding: 'utf8' });
    const line = JSON.parse(r.stdout.trim());
    expect(line).toMatchObject({ level: 30, port: 1, msg: 'ready in 5 ms: http://localhost:1' });
  });

  it('prints lines for a person when stdout is a terminal', () => {
    const tty = `Object.defineProperty(process.stdout, 'isTTY', { value: true }); ${SCRIPT}`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', tty], { encoding: 'utf8' });
    const text = r.stdout.replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: ready in 5 ms: http:\/\/localhost:1\n\s+port: 1/);
  });
});
