// A server process under test (the sources through tsx, or the build through run-built.mjs):
// its output collected, `ready` resolving with the port from the "readyMs" log line, or rejecting
// with the whole output if the process exits first.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  child: ChildProcess;
  ready: Promise<number>;
  exited: Promise<number | null>;
  output(): string;
}

export function spawnServerProcess(args: string[], env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const line = out.split('\n').find((l) => l.includes('"readyMs"'));
      if (line) resolve(JSON.parse(line).port as number);
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { child, ready, exited, output: () => out };
}
