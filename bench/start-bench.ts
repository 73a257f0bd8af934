// Start benchmark: how long `npm start` takes until /readyz answers 200.
//   cold      a fresh clone after `npm install`: empty DATA_DIR, demo template from the build
//   restart   the same DATA_DIR again
//   postgres  DATABASE_URL with the demo data present (a database created and dropped here)
//   seed      cold without a template (what a first start costs when the build has none)
// Each scenario runs --runs times (default 5) and prints min/median/max, plus the median of
// every startup step the server logged. Runs `npm start` as a user would (--via node skips
// npm's own ~0.3 s). PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin URL).
//   npx tsx bench/start-bench.ts [--runs 5] [--scenarios cold,restart,postgres] [--via npm|node]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, scenarios: { type: 'string', default: 'cold,restart,postgres' }, via: { type: 'string', default: 'npm' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log('usage: npm run bench:start -- [--runs 5] [--scenarios cold,restart,postgres,seed] [--via npm|node]');
  process.exit(0);
}
const runs = Number(values.runs);
const root = path.resolve(import.meta.dirname, '..');
const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Run {
  ms: number;
  steps: Record<string, number>;
}

/**
 * Waits until every process of the group has exited. npm exits on SIGTERM at once, while the
 * server it started is still closing its database (a checkpoint, then DATA_DIR's lock); the next
 * start of the same DATA_DIR would find the lock held and stop ("in use by process N").
 */
async function groupGone(pgid: number, timeoutMs = 15_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return; // ESRCH: nothing left in the group
    }
    if (performance.now() > until) {
      process.kill(-pgid, 'SIGKILL');
      throw new Error(`the server (process group ${pgid}) did not exit within ${timeoutMs} ms of SIGTERM`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One start: spawn, poll /readyz until 200, SIGTERM, wait until the server and npm have exited. */
async function startOnce(env: Record<string, string>): Promise<Run> {
  const port = await freePort();
  const cmd = values.via === 'node' ? [process.execPath, ['scripts/run-built.mjs', 'server']] as const : ['npm', ['start', '--silent']] as const;
  const t0 = performance.now();
  const child = spawn(cmd[0], [...cmd[1]], { cwd: root, env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let exit = '';
  const exited = new Promise<void>((r) => child.once('exit', (code, signal) => ((exit = signal ? `signal ${signal}` : `code ${code}`), r())));
  let dead = false;
  void exited.then(() => (dead = true));
  for (;;) {
    if (dead) throw new Error(`\`${cmd[0]} ${cmd[1].join(' ')}\` exited (${exit}) before the server was ready:\n${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const ms = performance.now() - t0;
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  await groupGone(child.pid!);
  const steps: Record<string, number> = {};
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const j = JSON.parse(line) as { step?: string; ms?: number; msg?: string; sinceStartMs?: number };
    if (j.step && typeof j.ms === 'number') steps[j.step] = j.ms;
    if (j.msg === 'starting' && typeof j.sinceStartMs === 'number') steps['(node until first line)'] = j.sinceStartMs;
  }
  return { ms, steps };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f = (ms: number) => (ms / 1000).toFixed(2).padStart(6);

// The start goals for `npm start`, judged on the median of the runs. Through node (--via node)
// npm's own start is not in the figure, so the verdict says it does not count.
const goalMs: Record<string, number> = { cold: 5000, restart: 1500, postgres: 1000 };
const verdicts: string[] = [];

function report(name: string, rs: Run[]) {
  const ms = rs.map((r) => r.ms);
  console.log(`${name.padEnd(9)} ready (s)  min ${f(Math.min(...ms))}  median ${f(median(ms))}  max ${f(Math.max(...ms))}   (${rs.length} runs)`);
  const names = [...new Set(rs.flatMap((r) => Object.keys(r.steps)))];
  console.log(`          steps, median ms: ${names.map((n) => `${n} ${Math.round(median(rs.map((r) => r.steps[n] ?? 0)))}`).join(', ')}`);
  const goal = goalMs[name];
  if (goal === undefined) return;
  const met = median(ms) <= goal;
  const how = values.via === 'npm' ? (met ? 'met' : 'NOT met') : `${met ? 'under' : 'over'} it, but only \`--via npm\` times \`npm start\``;
  verdicts.push(`${name.padEnd(9)} goal <= ${(goal / 1000).toFixed(1)} s (median): ${how}`);
}

// Start from a current build, as `npm install` leaves it.
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit', env: { ...process.env, BUILD_DEMO: process.env.BUILD_DEMO ?? '1' } });
if (built.status !== 0) process.exit(1);
try {
  const meta = JSON.parse(readFileSync(path.join(root, 'dist/demo-template/meta.json'), 'utf8')) as { seededAt: string };
  console.log(`demo template seeded at ${meta.seededAt}; machine: ${(await import('node:os')).cpus().length} cores, load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} catch {
  console.log('no demo template in dist/ (cold = seed)');
}

const scenarios = values.scenarios!.split(',');
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'mkt-start-bench-'));
  dirs.push(d);
  return d;
};
try {
  if (scenarios.includes('cold') || scenarios.includes('restart')) {
    const cold: Run[] = [];
    const restart: Run[] = [];
    for (let i = 0; i < runs; i++) {
      const dir = tmp();
      cold.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: '' }));
      if (scenarios.includes('restart')) restart.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: '' }));
    }
    if (scenarios.includes('cold')) report('cold', cold);
    if (scenarios.includes('restart')) report('restart', restart);
  }
  if (scenarios.includes('seed')) {
    const rs: Run[] = [];
    const template = path.join(root, 'dist/demo-template');
    const hidden = `${template}.hidden-by-bench`;
    spawnSync('mv', [template, hidden]);
    try {
      for (let i = 0; i < runs; i++) rs.push(await startOnce({ DATA_DIR: tmp(), DATABASE_URL: '' }));
    } finally {
      spawnSync('mv', [hidden, template]);
    }
    report('seed', rs);
  }
  if (scenarios.includes('postgres')) {
    if (!adminUrl) console.log('postgres  skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin URL) to run it');
    else {
      const name = `mkt_start_bench_${process.pid}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      try {
        const seeded = spawnSync(process.execPath, ['scripts/run-built.mjs', 'seed'], { cwd: root, env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' }, stdio: 'inherit' });
        if (seeded.status !== 0) throw new Error('seeding PostgreSQL failed');
        const rs: Run[] = [];
        for (let i = 0; i < runs; i++) rs.push(await startOnce({ DATABASE_URL: url.toString() }));
        report('postgres', rs);
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    }
  }
  if (verdicts.length) console.log(`\nissue 10, goal 3 (${runs} runs, ${new Date().toISOString()}):\n${verdicts.join('\n')}`);
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
